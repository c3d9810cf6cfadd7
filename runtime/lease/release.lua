-- release.lua: compare-and-DEL. Deletes the lease only for its owner.
--
-- Three forms, told apart by the number of keys:
--
-- A Release (the hot path): KEYS[1] only, the lock key
-- <prefix>:{<resource>}:lock (value "<owner>"); ARGV[1] the owner value,
-- 32 hex digits. GET, compare, DEL: the calls, keys and arguments of
-- bsm/redislock's release, nothing else written (each call, key and
-- argument costs the server measurably per cycle; bench/redislock
-- BenchmarkScriptWrites). A release sent twice by the client library
-- (go-redis retries after the connection closed before the reply) finds
-- the key gone, or another owner's, on its second run: the client tells
-- that from a lost lease by the number of times the command was written
-- and its own deadline (see Lease.Release), so the script records nothing.
-- Clients before 2026-12-07 also SET <prefix>:{<resource>}:released to the
-- owner here; this script neither writes nor reads it.
--
-- With the abandon mark: KEYS[2] this owner's mark
-- <prefix>:{<resource>}:abandoned:<owner>, KEYS[3] the mint key
-- <prefix>:{<resource>}:minted, ARGV[2] the mark's lifetime in
-- milliseconds: the cleanup of a failed Acquire, and a Release whose
-- Acquire may have an attempt still on its way (cut off, or written more
-- than once). The mark is set (PX ARGV[2]) and the owner added to the mint
-- key's abandon list ("|<owner>" entries after its value, see
-- acquire.lua; at most 64, the oldest dropped first), so that an acquire
-- attempt of this owner that reaches Redis late (a request held in a
-- stalled server or a socket) writes nothing: a retry finds its mark, a
-- first attempt, which names no mark, finds itself in the list.
--
-- Ended: KEYS[2] the mint key, ARGV[2] "ended": the heartbeat deleting
-- the key that a renewal landing after the lease ended extended, or
-- Check's probe; no release. :minted, "<owner>:<token>" while this owner
-- holds the lock, is marked "<owner>:<token>:ended" so that no Acquire
-- retry takes the lease back.
--
-- Returns 1 when the key held this owner's value and was deleted, -1 when
-- it held another value (another owner's, or one set by hand), 0 when it
-- was missing; then nothing is written but the mark. The
-- owner is compared whole: a lock value an older acquire script wrote
-- ("<owner>:<token>") belongs to an older client's lease, never to this
-- one. The counter key is never touched, so tokens keep increasing.
local owner = ARGV[1]
local held = 0
local cur = redis.call('GET', KEYS[1])
if cur == owner then
  redis.call('DEL', KEYS[1])
  held = 1
elseif cur then
  held = -1
end
if not KEYS[2] then
  return held
end
if KEYS[3] then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
  local m = redis.call('GET', KEYS[3]) or ''
  if not string.find(m .. '|', '|' .. owner .. '|', 1, true) then
    local _, entries = string.gsub(m, '|', '|')
    if entries >= 64 then
      local first = string.find(m, '|', 1, true)
      local second = string.find(m, '|', first + 1, true)
      m = string.sub(m, 1, first - 1) .. string.sub(m, second)
    end
    redis.call('SET', KEYS[3], m .. '|' .. owner)
  end
  return held
end
if held == 1 and ARGV[2] == 'ended' then
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
end
return held
