-- release.lua: compare-and-DEL. Deletes the lease only for its owner, and
-- recognises its own completed release when it is sent again.
--
-- KEYS[1]  lock key <prefix>:{<resource>}:lock   (value "<owner>:<token>")
-- KEYS[2]  mint key <prefix>:{<resource>}:minted (value "<owner>:<token>" of
--          the last acquisition that minted; "<owner>:<token>:released"
--          once that acquisition was released)
-- KEYS[3]  optional: this owner's mark <prefix>:{<resource>}:abandoned:<owner>
--          (PX ARGV[2]). Written by every call that names it: "released"
--          when this call deleted the owner's lock key, else "1". While it
--          exists an acquire attempt of this owner that reaches Redis late
--          (a request held in a stalled server or a socket) writes nothing
--          (see acquire.lua), and a release sent again after the first one
--          ran is recognised by "released" even when another owner has
--          taken the lock (and :minted) since.
-- ARGV[1]  the lease's value "<owner>:<token>" (Release, which knows its
--          token: compared whole, a pointer compare of interned Lua
--          strings), or the owner value alone, 32 hex digits (the cleanup
--          of a failed Acquire and Check, which know no token)
-- ARGV[2]  with KEYS[3]: the mark's lifetime in milliseconds
--
-- Returns 1 when the key held this owner's value and was deleted, and also
-- when this owner's release already ran (a resend of the same release,
-- e.g. by a client library retrying after the connection closed before the
-- reply: the first call deleted the key). Returns 0 when the key is missing
-- without such a release, or belongs to another owner; then nothing is
-- written but the mark. The counter key is never touched, so tokens keep
-- increasing.
local arg = ARGV[1]
local cur = redis.call('GET', KEYS[1])
local mine = cur == arg
-- Otherwise the owner (32 hex digits, no ':', the whole of ARGV[1] or its
-- start) starts this owner's value and a ':' follows, compared in place:
-- a value written by an older acquire script may spell the token
-- differently (Lua's 1e+14).
if not mine and cur then
  mine = string.find(cur, string.sub(arg, 1, 32), 1, true) == 1 and string.byte(cur, 33) == 58
end
if mine then
  redis.call('DEL', KEYS[1])
  -- While this owner holds the lock, :minted holds the same value (the
  -- acquire script writes both together), so no read is needed.
  redis.call('SET', KEYS[2], cur .. ':released')
  if KEYS[3] then
    redis.call('SET', KEYS[3], 'released', 'PX', ARGV[2])
  end
  return 1
end
if KEYS[3] then
  if redis.call('GET', KEYS[3]) == 'released' then
    return 1
  end
  redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
end
local minted = redis.call('GET', KEYS[2])
local owner = string.sub(arg, 1, 32)
if minted and string.find(minted, owner, 1, true) == 1 and string.byte(minted, 33) == 58
    and string.sub(minted, -9) == ':released' then
  return 1
end
return 0
