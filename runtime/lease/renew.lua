-- renew.lua: compare-and-PEXPIRE. Extends the lease only for its owner.
--
-- KEYS[1]  lock key <prefix>:{<resource>}:lock (value "<owner>:<token>")
-- ARGV[1]  owner value (32 hex digits)
-- ARGV[2]  TTL in milliseconds
--
-- Returns 1 when the key held this owner's value and its TTL was set to
-- ARGV[2], or 0 when the key is missing or belongs to another owner; then
-- nothing is written (a missing key is never re-created).
local owner = ARGV[1]
local cur = redis.call('GET', KEYS[1])
if cur and string.find(cur, owner, 1, true) == 1 and string.byte(cur, #owner + 1) == 58 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
