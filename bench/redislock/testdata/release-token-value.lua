-- release.lua: compare-and-DEL. Deletes the lease only for its owner, and
-- recognises its own completed release when it is sent again.
--
-- KEYS[1]  lock key     <prefix>:{<resource>}:lock     (value "<owner>:<token>")
-- KEYS[2]  mint key     <prefix>:{<resource>}:minted   (value "<owner>:<token>" of
--          the last acquisition that minted; "<owner>:<token>:ended" once
--          the call without KEYS[3] below deleted its lock key;
--          "<owner>:<token>:released" once released by a release script
--          before 2026-12-06, which marked it on every release)
-- KEYS[3]  optional: the release record <prefix>:{<resource>}:released, the
--          value "<owner>:<token>" of the last lease released (never has a
--          TTL; only a release writes it, so it still names this owner's
--          release after another owner has acquired, and rewritten :minted;
--          acquire.lua reads it to tell a released lease from one whose
--          key expired).
--          Without it (the heartbeat deleting the key that a renewal landing
--          after the lease ended extended, or Check's probe) the call is no
--          release: :minted is marked "<owner>:<token>:ended", so that a
--          later Release of that lease is not taken for its own resend and
--          says the lease was not held, and nothing is recorded
-- KEYS[4]  optional: this owner's mark <prefix>:{<resource>}:abandoned:<owner>,
--          set (PX ARGV[2]) by every call that names it, so that an acquire
--          attempt of this owner that reaches Redis late (a request held in
--          a stalled server or a socket) writes nothing (see acquire.lua):
--          the cleanup of a failed Acquire, and a Release whose Acquire had
--          an attempt cut off
-- ARGV[1]  the lease's value "<owner>:<token>" (Release, which knows its
--          token: compared whole, a pointer compare of interned Lua
--          strings), or the owner value alone, 32 hex digits (the cleanup
--          of a failed Acquire and Check, which know no token)
-- ARGV[2]  with KEYS[4]: the mark's lifetime in milliseconds
--
-- Returns 1 when the key held this owner's value and was deleted, and also
-- when this owner's release already ran (a resend of the same release,
-- e.g. by a client library retrying after the connection closed before the
-- reply: the first call deleted the key), as long as no other lease of the
-- resource was released since. Returns 0 when the key is missing without
-- such a release, or belongs to another owner; then nothing is written but
-- the mark. The counter key is never touched, so tokens keep increasing.
local arg = ARGV[1]
if KEYS[4] then
  redis.call('SET', KEYS[4], '1', 'PX', ARGV[2])
end
-- A value "<owner>:<token>" (or with more after the token) is this owner's
-- when the owner (32 hex digits, no ':') starts it and a ':' follows,
-- compared in place: a value written by an older acquire script may spell
-- the token differently (Lua's 1e+14). The hot path (the value is ARGV[1]
-- exactly) builds no owner string and no closure.
local cur = redis.call('GET', KEYS[1])
local owner = false
local hit = cur == arg
if not hit and cur then
  owner = string.sub(arg, 1, 32)
  hit = string.find(cur, owner, 1, true) == 1 and string.byte(cur, 33) == 58
end
if hit then
  redis.call('DEL', KEYS[1])
  -- A release writes one record, :released; :minted keeps this lease's
  -- value, and a retry of its Acquire that finds the lock key missing
  -- reads :released before taking the lease again (acquire.lua's KEYS[5]).
  -- Two key writes a cycle instead of three (bench/redislock
  -- BenchmarkScriptWrites: each key write costs the cycle 1-2 points
  -- against bsm/redislock).
  -- The call that is no release marks :minted instead (there is no
  -- :released record to name it): while this owner holds the lock,
  -- :minted holds the same value (the acquire script writes both
  -- together), so no read is needed.
  if KEYS[3] then
    redis.call('SET', KEYS[3], cur)
  else
    redis.call('SET', KEYS[2], cur .. ':ended')
  end
  return 1
end
owner = owner or string.sub(arg, 1, 32)
local function owned(v)
  return v and string.find(v, owner, 1, true) == 1 and string.byte(v, 33) == 58
end
if KEYS[3] and owned(redis.call('GET', KEYS[3])) then
  return 1
end
local minted = redis.call('GET', KEYS[2])
if owned(minted) and string.sub(minted, -9) == ':released' then
  return 1
end
return 0
