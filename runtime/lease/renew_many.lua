-- renew_many.lua: compare-and-PEXPIRE for a batch of leases of one TTL in
-- one call.
--
-- KEYS[i]      lock key of lease i (in Redis Cluster, every key of one call
--              is in the same hash slot)
-- ARGV[1]      TTL of every lease of the call, in milliseconds
-- ARGV[i+1]    owner value of lease i (32 hex digits, no ':')
--
-- Returns an array: first the number of leases renewed, then the index i
-- (from 1, ascending) of each lease not renewed. Lease i is renewed (its
-- TTL set) when KEYS[i] holds its owner value ("<owner>:<token>"); when the
-- key is missing or belongs to another owner nothing is written (a missing
-- key is never re-created), as renew.lua does for one lease. The caller
-- checks that the count and the indices add up to #KEYS. The reply stays
-- one integer long when every lease was renewed, the usual case, instead
-- of one per lease. The owner is compared in place (string.find at
-- position 1, then the ':' after it), without building a prefix string
-- per key.
local ttl = ARGV[1]
local out = {0}
local kept = 0
for i = 1, #KEYS do
  local owner = ARGV[i + 1]
  local cur = redis.call('GET', KEYS[i])
  if cur and string.find(cur, owner, 1, true) == 1 and string.byte(cur, #owner + 1) == 58 then
    redis.call('PEXPIRE', KEYS[i], ttl)
    kept = kept + 1
  else
    out[#out + 1] = i
  end
end
out[1] = kept
return out
