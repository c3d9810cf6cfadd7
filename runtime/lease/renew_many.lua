-- renew_many.lua: compare-and-PEXPIRE for a batch of leases of one TTL in
-- one call.
--
-- KEYS[i]      lock key of lease i (in Redis Cluster, every key of one call
--              is in the same hash slot)
-- ARGV[1]      TTL of every lease of the call, in milliseconds
-- ARGV[i+1]    owner value of lease i (32 hex digits, no ':')
--
-- Returns an array: element i is 1 when KEYS[i] held lease i's owner value
-- ("<owner>:<token>") and its TTL was set, 0 when the key is missing or
-- belongs to another owner (nothing written; a missing key is never
-- re-created), as renew.lua does for one lease. The owner is compared in
-- place (string.find at position 1, then the ':' after it), without
-- building a prefix string per key.
local ttl = ARGV[1]
local out = {}
for i = 1, #KEYS do
  local owner = ARGV[i + 1]
  local cur = redis.call('GET', KEYS[i])
  if cur and string.find(cur, owner, 1, true) == 1 and string.byte(cur, #owner + 1) == 58 then
    redis.call('PEXPIRE', KEYS[i], ttl)
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
