-- acquire.lua: take the lease on KEYS[1] and mint its fencing token.
--
-- KEYS[1]  lock key     <prefix>:{<resource>}:lock   (value "<owner>:<token>", has a TTL)
-- KEYS[2]  counter key  <prefix>:{<resource>}:token  (integer, never has a TTL)
-- KEYS[3]  mint key     <prefix>:{<resource>}:minted (value "<owner>:<token>" of
--          the last acquisition that minted, never has a TTL)
-- KEYS[4]  abandon mark <prefix>:{<resource>}:abandoned:<owner>, set by
--          the cleanup of an Acquire that gave up on this owner (see
--          release.lua); while it exists this owner's attempts write nothing
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
-- Returns the fencing token (an integer > 0) when this owner holds the lease
-- after the call, 0 when another owner holds it, -1 (see ARGV[4]), or -2
-- when the Acquire of this owner had already given up (KEYS[4]).
--   * Key absent: raise the counter to the floor, INCR it, SET the lock NX PX
--     ttl, return the new token.
--   * Key holds this owner's value (a retry after an ambiguous reply): refresh
--     the TTL and return the token stored with it; nothing is minted.
--   * Key holds another owner's value: change nothing, return 0.
if KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1 then
  return -2
end
-- A value "<owner>:<token>" is this owner's when the owner (32 hex
-- digits, no ':') starts it and a ':' follows: compared in place, without
-- building a prefix string.
local owner, n = ARGV[1], #ARGV[1]
local cur = redis.call('GET', KEYS[1])
if cur then
  if string.find(cur, owner, 1, true) == 1 and string.byte(cur, n + 1) == 58 then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return tonumber(string.sub(cur, n + 2))
  end
  return 0
end
-- Key absent, but this owner minted last and nobody minted since (its first
-- attempt landed, the reply was lost, and the key expired or was deleted
-- before this retry): take the lease again with the same token.
local minted = ARGV[5] ~= '0' and redis.call('GET', KEYS[3])
if minted then
  if string.find(minted, owner, 1, true) == 1 and string.byte(minted, n + 1) == 58 then
    local token = tonumber(string.sub(minted, n + 2))
    if token == tonumber(redis.call('GET', KEYS[2])) then
      redis.call('SET', KEYS[1], minted, 'PX', ARGV[2])
      return token
    end
  end
end
local floor = tonumber(ARGV[3]) or 0
if ARGV[4] == '1' or floor > 0 then
  -- Only a high-water mark needs the counter read (INCR creates it at 1).
  local counter = redis.call('GET', KEYS[2])
  if not counter and ARGV[4] == '1' then
    return -1
  end
  if floor > (tonumber(counter) or 0) then
    redis.call('SET', KEYS[2], ARGV[3])
  end
end
local token = redis.call('INCR', KEYS[2])
-- %d, not Lua's own number format (%.14g: 1e+14, or digits lost above).
local value = owner .. ':' .. string.format('%d', token)
redis.call('SET', KEYS[1], value, 'NX', 'PX', ARGV[2])
redis.call('SET', KEYS[3], value)
return token
