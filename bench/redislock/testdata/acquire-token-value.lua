-- acquire.lua: take the lease on KEYS[1] and mint its fencing token.
--
-- KEYS[1]  lock key     <prefix>:{<resource>}:lock   (value "<owner>:<token>", has a TTL)
-- KEYS[2]  counter key  <prefix>:{<resource>}:token  (integer, never has a TTL)
-- KEYS[3]  mint key     <prefix>:{<resource>}:minted (value "<owner>:<token>" of
--          the last acquisition that minted, never has a TTL)
-- KEYS[4]  abandon mark <prefix>:{<resource>}:abandoned:<owner>, set by
--          the cleanup of an Acquire that gave up on this owner (see
--          release.lua); while it exists this owner's attempts write nothing
-- KEYS[5]  release record <prefix>:{<resource>}:released, the value
--          "<owner>:<token>" of the last lease released (see release.lua);
--          read only by a retry that finds the lock key missing, so that a
--          lease already released is not taken again. Optional: a caller
--          that never releases (a test of the retry alone) may leave it out
-- ARGV[1]  owner value: 32 hex digits (128 random bits), unique per Acquire call
-- ARGV[2]  TTL in milliseconds
-- ARGV[3]  floor: the counter is first raised to at least this value (a
--          durable high-water mark; "0" for none)
-- ARGV[4]  "1": if the counter key is missing, write nothing and return -1,
--          so the caller can fetch a high-water mark and call again with it
--          as the floor; "0": mint from the floor
-- ARGV[5]  "0": the first attempt of this owner value, which cannot have
--          minted yet, so the mint key is not read; anything else (or
--          absent): a retry
--
-- Tokens are handled as their decimal digits: a Lua number is a double,
-- exact only below 2^53, and fence tokens go up to 2^63-1 (a high-water
-- mark taken from a nanosecond clock is above 2^53).
--
-- Returns the fencing token (an integer > 0; as a string of digits when it
-- is not exact as a Lua number, or is read back from a value) when this owner holds the lease
-- after the call, 0 when another owner holds it, -1 (see ARGV[4]), -2
-- when the Acquire of this owner had already given up (KEYS[4]), or -3 when
-- the counter holds a negative value (nothing is written: a token is ≥ 1).
--   * Key absent: raise the counter to the floor, INCR it, SET the lock NX PX
--     ttl, return the new token.
--   * Key holds this owner's value (a retry after an ambiguous reply): refresh
--     the TTL and return the token stored with it; nothing is minted.
--   * Key holds another owner's value: change nothing, return 0.
-- The hot path (the lock key absent, no floor) runs no closure and no
-- string.format: each redis.call, closure and format costs the server
-- measurably per cycle (bench/redislock BenchmarkScriptWrites), so the
-- helpers of the rare paths are defined on those paths only.
--
-- The token of a value, as the reply (the digits after the owner and ':',
-- or, for a value an older script wrote in Lua's number format, 1e+14,
-- that number) is inlined where it is used.
--
-- A value "<owner>:<token>" is this owner's when the owner (32 hex
-- digits, no ':') starts it and a ':' follows: compared in place, without
-- building a prefix string. The abandon mark and the lock key are read in
-- one MGET (false for a missing key).
local owner, n = ARGV[1], #ARGV[1]
local cur
if KEYS[4] then
  local got = redis.call('MGET', KEYS[1], KEYS[4])
  if got[2] then
    return -2
  end
  cur = got[1]
else
  cur = redis.call('GET', KEYS[1])
end
if cur then
  if string.find(cur, owner, 1, true) == 1 and string.byte(cur, n + 1) == 58 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    local t = string.sub(cur, n + 2)
    if string.find(t, '^%d+$') then
      return t
    end
    return tonumber(t)
  end
  return 0
end
-- Key absent, but this owner minted last and nobody minted since (its first
-- attempt landed, the reply was lost, and the key expired or was deleted
-- before this retry): take the lease again with the same token.
local minted = ARGV[5] ~= '0' and redis.call('GET', KEYS[3])
if minted then
  -- Release no longer marks :minted (it writes only the :released record,
  -- one key write less a cycle): a lease of this owner that was released
  -- is the one :released names. A value an older release script marked
  -- ("<owner>:<token>:released") fails the token compare below.
  if string.find(minted, owner, 1, true) == 1 and string.byte(minted, n + 1) == 58
      and not (KEYS[5] and redis.call('GET', KEYS[5]) == minted) then
    local token = string.sub(minted, n + 2)
    if token == redis.call('GET', KEYS[2]) then
      redis.call('SET', KEYS[1], minted, 'PX', ARGV[2])
      if string.find(token, '^%d+$') then
        return token
      end
      return tonumber(token)
    end
  end
end
local floor = ARGV[3]
if not floor or floor == '' then
  floor = '0'
end
if ARGV[4] == '1' or floor ~= '0' then
  -- a < b, for the digits of two integers (no leading zeros), b
  -- non-negative.
  local function below(a, b)
    if string.byte(a, 1) == 45 then -- '-': a negative counter set by hand
      return true
    end
    return #a < #b or (#a == #b and a < b)
  end
  -- Only a high-water mark needs the counter read (INCR creates it at 1).
  local counter = redis.call('GET', KEYS[2])
  if not counter and ARGV[4] == '1' then
    return -1
  end
  if below(counter or '0', floor) then
    redis.call('SET', KEYS[2], floor)
  end
end
local token = redis.call('INCR', KEYS[2])
if token < 1 then
  -- The counter held a negative value (set by hand): no lease mints a
  -- token below 1. Undo the INCR and write nothing.
  redis.call('DECR', KEYS[2])
  return -3
end
-- The digits: below 10^14 Lua's own number format (%.14g, used by ..)
-- writes every digit; up to 2^53 string.format's %d does; above, where a
-- double is not exact, they are read back from the counter.
local value
if token < 100000000000000 then
  value = owner .. ':' .. token
elseif token < 9007199254740992 then
  value = owner .. ':' .. string.format('%d', token)
else
  token = redis.call('GET', KEYS[2])
  value = owner .. ':' .. token
end
redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2])
redis.call('SET', KEYS[3], value)
return token
