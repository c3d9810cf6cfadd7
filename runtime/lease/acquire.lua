-- acquire.lua: take the lease on KEYS[1] and mint its fencing token.
--
-- KEYS[1]  lock key     <prefix>:{<resource>}:lock   (value "<owner>", has a TTL;
--          an older script wrote "<owner>:<token>")
-- KEYS[2]  counter key  <prefix>:{<resource>}:token  (integer, never has a TTL)
-- KEYS[3]  mint key     <prefix>:{<resource>}:minted (value "<owner>:<token>" of
--          the last acquisition that minted, never has a TTL), followed by
--          the abandon list "|<owner>|<owner>..." while abandon marks may
--          live: the owners whose Acquire gave up (see release.lua), kept by
--          every write of the key until their marks expire
-- KEYS[4]  abandon mark <prefix>:{<resource>}:abandoned:<owner>, set by
--          the cleanup of an Acquire that gave up on this owner (see
--          release.lua); while it exists this owner's attempts write nothing.
--          Optional: a first attempt leaves it out and finds its owner in
--          the abandon list instead, which the :minted write returns anyway
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
-- With only ARGV[1] and ARGV[2], the call is a first attempt with no floor
-- and no high-water mark to ask for (the hot path: three keys and two
-- arguments; each argument costs the server a string to parse and intern).
--
-- Tokens are handled as their decimal digits: a Lua number is a double,
-- exact only below 2^53, and fence tokens go up to 2^63-1 (a high-water
-- mark taken from a nanosecond clock is above 2^53).
--
-- Returns the fencing token (an integer > 0; as a string of digits when it
-- is not exact as a Lua number, or is read back from a value) when this owner holds the lease
-- after the call, 0 when another owner holds it, -1 (see ARGV[4]), -2
-- when the Acquire of this owner had already given up (its mark KEYS[4],
-- or its owner in the abandon list: then the call's writes are undone and
-- nothing is left written), or -3 when
-- the counter holds a negative value (nothing is left written: a token is ≥ 1).
--   * Key absent: raise the counter to the floor, SET the lock NX PX ttl to
--     the owner, INCR the counter, record "<owner>:<token>" in the mint
--     key, return the new token.
--   * Key holds this owner (a retry after an ambiguous reply): refresh the
--     TTL and return the token the mint key records for it; nothing is
--     minted.
--   * Key holds another owner's value: change nothing, return 0.
--
-- The hot path (a first attempt, no floor) is three calls: SET NX PX (which
-- is also the lock check: a refused acquire writes nothing), INCR, and SET
-- of the mint key with GET, whose old value carries the abandon list: a
-- late first attempt of an abandoned Acquire is told apart without a call
-- of its own, and the list is only parsed while it is not empty. The lock key holds the
-- owner alone: the token is in the mint key, so the lock value needs no
-- number formatting. Each redis.call and each argument costs the server
-- measurably per cycle (bench/redislock BenchmarkScriptWrites), so the
-- rare paths (retries, floors, errors) come after it.
local owner = ARGV[1]
-- The hot path first, as straight-line code: run first, the general
-- code's tests of the rare cases cost the server about 1% of a cycle's
-- instructions (bench/redislock BenchmarkServerInstructions: 85.0k
-- against 84.1k). It takes the lock, mints and records as the general
-- code would; a case it does not finish (the lock held, an odd counter,
-- an abandon list) goes on below with what it did so far (locked, token,
-- value, old), and the general code skips the calls already made.
local hot = #ARGV == 2 and not KEYS[4]
local locked, token, value, old = false, nil, nil, nil
if hot then
  locked = redis.call('SET', KEYS[1], owner, 'NX', 'PX', ARGV[2])
  if locked then
    token = redis.pcall('INCR', KEYS[2])
    if type(token) == 'number' and token >= 1 and token < 100000000000000 then
      value = owner .. ':' .. token
      old = redis.call('SET', KEYS[3], value, 'GET')
      if not old or not string.find(old, '|', 1, true) then
        return token
      end
    end
  end
end
if not value then
  if KEYS[4] and redis.call('EXISTS', KEYS[4]) == 1 then
    return -2
  end
  local floor = ARGV[3]
  if not floor or floor == '' then
    floor = '0'
  end
  local first = #ARGV == 2 or ARGV[5] == '0'
  if not hot and first and floor == '0' and ARGV[4] ~= '1' then
    locked = redis.call('SET', KEYS[1], owner, 'NX', 'PX', ARGV[2])
  end
  if not locked then
    local n = #owner
    -- The token digits the mint key records for this owner, or nil. A
    -- value an older release script marked ("<owner>:<token>:released") or
    -- the heartbeat marked ended ("...:ended") is not a token.
    local function mine()
      local m = redis.call('GET', KEYS[3])
      if m and string.find(m, owner, 1, true) == 1 and string.byte(m, n + 1) == 58 then
        local t = string.sub(m, n + 2)
        local bar = string.find(t, '|', 1, true)
        if bar then
          t = string.sub(t, 1, bar - 1) -- the abandon list follows
        end
        if string.find(t, '^%d+$') then
          return t
        end
      end
      return nil
    end
    local cur = redis.call('GET', KEYS[1])
    if cur == owner then
      -- This owner's first attempt landed (the reply was lost, or go-redis
      -- sent the command again): refresh the TTL, return its token.
      redis.call('PEXPIRE', KEYS[1], ARGV[2])
      local t = mine()
      if t then
        return t
      end
      -- The mint record is gone (deleted by hand): the caller never got
      -- the token minted then, so the lease keeps its key and mints anew.
      locked = true
    elseif cur then
      return 0
    elseif not first then
      -- Key absent, but this owner minted last and nobody minted since (its
      -- first attempt landed, the reply was lost, and the key expired or was
      -- deleted before this retry): take the lease again with the same
      -- token. A lease already released is not taken back: its Release set
      -- this owner's mark (KEYS[4], checked above) whenever an attempt of
      -- its Acquire may still arrive (see release.lua).
      local t = mine()
      if t and t == redis.call('GET', KEYS[2]) then
        redis.call('SET', KEYS[1], owner, 'PX', ARGV[2])
        return t
      end
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
        if locked then
          redis.call('DEL', KEYS[1])
        end
        return -1
      end
      if below(counter or '0', floor) then
        redis.call('SET', KEYS[2], floor)
      end
    end
  end
  if not token then
    token = redis.pcall('INCR', KEYS[2])
  end
  if type(token) ~= 'number' or token < 1 then
    -- The counter is not an integer (INCR failed and wrote nothing), or it
    -- held a negative value set by hand (no lease mints a token below 1):
    -- undo the INCR and the lock, and fail with INCR's own error or -3.
    if locked then
      redis.call('DEL', KEYS[1])
    end
    if type(token) ~= 'number' then
      return redis.call('INCR', KEYS[2])
    end
    redis.call('DECR', KEYS[2])
    return -3
  end
  -- The digits: below 10^14 Lua's own number format (%.14g, used by ..)
  -- writes every digit; up to 2^53 string.format's %d does; above, where a
  -- double is not exact, they are read back from the counter.
  if token < 100000000000000 then
    value = owner .. ':' .. token
  elseif token < 9007199254740992 then
    value = owner .. ':' .. string.format('%d', token)
  else
    token = redis.call('GET', KEYS[2])
    value = owner .. ':' .. token
  end
  if not locked then
    redis.call('SET', KEYS[1], owner, 'NX', 'PX', ARGV[2])
  end
  old = redis.call('SET', KEYS[3], value, 'GET')
  if not old or not string.find(old, '|', 1, true) then
    return token
  end
end
-- The abandon list (rare: an Acquire gave up within the marks' lifetime).
-- This owner in it: this is a late attempt of an Acquire that gave up
-- (or of a released lease's Acquire, see release.lua); undo every write
-- of this call (the counter back by the INCR: nobody has seen the token)
-- and return -2. Else carry the list over to the new value, without the
-- owners whose marks have expired.
local bar = string.find(old, '|', 1, true)
local list = string.sub(old, bar)
if string.find(list .. '|', '|' .. owner .. '|', 1, true) then
  redis.call('DEL', KEYS[1])
  redis.call('DECR', KEYS[2])
  redis.call('SET', KEYS[3], old)
  return -2
end
local base = string.sub(KEYS[1], 1, #KEYS[1] - 4) .. 'abandoned:' -- KEYS[1] ends in "lock"
local keep = {value}
for o in string.gmatch(list, '[^|]+') do
  if redis.call('EXISTS', base .. o) == 1 then
    keep[#keep + 1] = o
  end
end
if #keep > 1 then
  redis.call('SET', KEYS[3], table.concat(keep, '|'))
end
return token
