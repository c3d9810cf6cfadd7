-- renew.lua: compare-and-PEXPIRE. Extends the lease only for its owner.
--
-- KEYS[1]  lock key <prefix>:{<resource>}:lock (value "<owner>:<token>")
-- ARGV[1]  the lease's value "<owner>:<token>" (owner: 32 hex digits, no
--          ':'; token in decimal)
-- ARGV[2]  TTL in milliseconds
--
-- Returns 1 when the key held this owner's value and its TTL was set to
-- ARGV[2], 0 when the key is missing, or -1 when it holds another value
-- (another owner's); then nothing is written (a missing key is never
-- re-created).
--
-- The value is compared whole (Lua strings are interned: one pointer
-- compare). Only when that fails on a key that exists is the owner
-- compared alone: acquire.lua before it wrote tokens as digits wrote a
-- token of 1e14 and above in Lua's number format ("<owner>:1e+14"), and
-- such keys may still be held; the owner, fresh for every acquisition,
-- decides.
local v = ARGV[1]
local cur = redis.call('GET', KEYS[1])
local n = cur and cur ~= v and string.find(v, ':', 1, true)
if cur == v or (n and string.sub(cur, 1, n) == string.sub(v, 1, n)) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if cur then
  return -1
end
return 0
