-- release.lua: compare-and-DEL. Deletes the lease only for its owner.
--
-- KEYS[1]  lock key <prefix>:{<resource>}:lock (value "<owner>:<token>")
-- ARGV[1]  owner value (32 hex digits)
--
-- Returns 1 when the key held this owner's value and was deleted, or 0 when
-- the key is missing or belongs to another owner; then nothing is written.
-- The counter key is never touched, so tokens keep increasing.
local cur = redis.call('GET', KEYS[1])
local prefix = ARGV[1] .. ':'
if cur and string.sub(cur, 1, #prefix) == prefix then
  return redis.call('DEL', KEYS[1])
end
return 0
