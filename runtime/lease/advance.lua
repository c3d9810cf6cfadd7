-- advance.lua: raise a fence counter to at least a stored token.
--
-- KEYS[1]  counter key <prefix>:{<resource>}:token (integer, never has a TTL)
-- ARGV[1]  atLeast: a token known to have been used (e.g. read from a fenced row)
--
-- Sets the counter to max(counter, atLeast), never lowering it and never
-- giving it a TTL, so the next acquire mints a token above atLeast.
-- Returns {counter before, counter after}; a missing counter counts as 0.
local before = tonumber(redis.call('GET', KEYS[1]) or '0')
local want = tonumber(ARGV[1])
if want > before then
  redis.call('SET', KEYS[1], ARGV[1])
  return {before, want}
end
return {before, before}
