-- The release script as it was before 2026-12-07 (it wrote the :released
-- record), kept for BenchmarkScriptWrites' lease-released-record variant.

-- release.lua: compare-and-DEL. Deletes the lease only for its owner, and
-- recognises its own completed release when it is sent again.
--
-- KEYS[1]  lock key     <prefix>:{<resource>}:lock     (value "<owner>")
-- KEYS[2]  a Release (and the cleanup of a failed Acquire): the release
--          record <prefix>:{<resource>}:released, the owner of the last
--          lease released (never has a TTL; only a release writes it, so it
--          still names this owner's release after another owner has
--          acquired; acquire.lua reads it to tell a released lease from one
--          whose key expired).
--          With ARGV[3] "ended" (the heartbeat deleting the key that a
--          renewal landing after the lease ended extended, or Check's
--          probe): the mint key <prefix>:{<resource>}:minted, and the call
--          is no release: :minted, "<owner>:<token>" while this owner holds
--          the lock, is marked "<owner>:<token>:ended" so that no Acquire
--          retry takes the lease back, and nothing is recorded, so that a
--          later Release of that lease says it was not held
-- KEYS[3]  optional: this owner's mark <prefix>:{<resource>}:abandoned:<owner>,
--          set (PX ARGV[2]) by every call that names it, so that an acquire
--          attempt of this owner that reaches Redis late (a request held in
--          a stalled server or a socket) writes nothing (see acquire.lua):
--          the cleanup of a failed Acquire, and a Release whose Acquire had
--          an attempt cut off
-- KEYS[4]  with KEYS[3]: the mint key <prefix>:{<resource>}:minted, whose
--          abandon list ("|<owner>" entries after its value, see
--          acquire.lua) gets this owner, so that a late first attempt,
--          which does not name its mark, finds it there; at most 64
--          entries (the oldest dropped first)
-- ARGV[1]  the owner value, 32 hex digits
-- ARGV[2]  with KEYS[3]: the mark's lifetime in milliseconds
-- ARGV[3]  optional: "ended" (see KEYS[2])
--
-- Returns 1 when the key held this owner's value and was deleted, and also
-- (for a release) when this owner's release already ran (a resend of the
-- same release, e.g. by a client library retrying after the connection
-- closed before the reply: the first call deleted the key), as long as no
-- other lease of the resource was released since. Returns 0 when the key
-- is missing without such a release, or belongs to another owner; then
-- nothing is written but the mark. The counter key is never touched, so
-- tokens keep increasing.
--
-- The hot path (a Release: the key holds the owner) is three calls, GET,
-- DEL and SET of the record, with two keys and one argument (each argument
-- costs the server a string to parse and intern; bench/redislock
-- BenchmarkScriptWrites). The owner is compared whole: a lock value an
-- older acquire script wrote ("<owner>:<token>") belongs to an older
-- client's lease, never to this one.
local owner = ARGV[1]
if KEYS[3] then
  redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
  if KEYS[4] then
    local m = redis.call('GET', KEYS[4]) or ''
    if not string.find(m .. '|', '|' .. owner .. '|', 1, true) then
      local _, entries = string.gsub(m, '|', '|')
      if entries >= 64 then
        local first = string.find(m, '|', 1, true)
        local second = string.find(m, '|', first + 1, true)
        m = string.sub(m, 1, first - 1) .. string.sub(m, second)
      end
      redis.call('SET', KEYS[4], m .. '|' .. owner)
    end
  end
end
local ended = ARGV[3] == 'ended'
if redis.call('GET', KEYS[1]) == owner then
  redis.call('DEL', KEYS[1])
  if not ended then
    redis.call('SET', KEYS[2], owner)
    return 1
  end
  local m = redis.call('GET', KEYS[2])
  if m and string.find(m, owner, 1, true) == 1 and string.byte(m, #owner + 1) == 58 then
    -- ":ended" goes after the token, before an abandon list (acquire.lua)
    local bar = string.find(m, '|', 1, true)
    if bar then
      redis.call('SET', KEYS[2], string.sub(m, 1, bar - 1) .. ':ended' .. string.sub(m, bar))
    else
      redis.call('SET', KEYS[2], m .. ':ended')
    end
  end
  return 1
end
if not ended and redis.call('GET', KEYS[2]) == owner then
  return 1
end
return 0
