-- advance.lua: raise a fence counter to at least a stored token.
--
-- KEYS[1]  counter key <prefix>:{<resource>}:token (integer, never has a TTL)
-- ARGV[1]  atLeast: a token known to have been used (e.g. read from a fenced
--          row), in decimal digits
--
-- Sets the counter to max(counter, atLeast), never lowering it and never
-- giving it a TTL, so the next acquire mints a token above atLeast.
-- Returns {counter before, counter after} as decimal digits (compared as
-- digits, not Lua numbers, which are exact only below 2^53); a missing
-- counter counts as 0.
local function below(a, b)
  if string.byte(a, 1) == 45 then -- '-': a negative counter set by hand
    return true
  end
  return #a < #b or (#a == #b and a < b)
end
local before = redis.call('GET', KEYS[1]) or '0'
local want = ARGV[1]
if below(before, want) then
  redis.call('SET', KEYS[1], want)
  return {before, want}
end
return {before, before}
