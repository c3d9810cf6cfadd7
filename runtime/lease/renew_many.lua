-- renew_many.lua: compare-and-PEXPIRE for a batch of leases in one call.
--
-- KEYS[i]      lock key of lease i (in Redis Cluster, every key of one call
--              is in the same hash slot)
-- ARGV[2i-1]   owner value of lease i
-- ARGV[2i]     TTL of lease i in milliseconds
--
-- Returns an array: element i is 1 when KEYS[i] held lease i's owner value
-- and its TTL was set, 0 when the key is missing or belongs to another
-- owner (nothing written; a missing key is never re-created), as renew.lua
-- does for one lease.
local out = {}
for i = 1, #KEYS do
  local cur = redis.call('GET', KEYS[i])
  local prefix = ARGV[2 * i - 1] .. ':'
  if cur and string.sub(cur, 1, #prefix) == prefix then
    redis.call('PEXPIRE', KEYS[i], ARGV[2 * i])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
