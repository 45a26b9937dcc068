"""The Redis backend's Lua scripts: each runs atomically in Redis, so a namespace's change is
one step for every process sharing it.

Keys, under a prefix ``P`` (``--state-prefix``) and a namespace's escaped name ``N`` (``%`` and
``:`` percent-escaped, so no name's keys run into another's)::

    P:names              zset   namespaces, scored by last use (P:tick), oldest first
    P:tick               int    the use counter (no wall clock: nothing ambient)
    P:incarnations       int    numbers each namespace made anew
    P:versions           int    numbers each namespace's written states (never twice)
    P:calls              int    the server-wide call number (every process's journal entries)
    P:feed               stream the change feed: per entry its origin o and what it announced a
                         (kind:escaped name:seq, ':'-joined; one entry per script call)
    P:layout             string the key layout these scripts write (checked at start)
    P:scenario:DIGEST    string an uploaded scenario's YAML, by its digest
    P:ns:N:state         string the namespace's counters, hits, scenario, queue, clock, budgets
    P:ns:N:ver           string which written state it is: a P:versions number, or the token a
                         one-round-trip change named it by (its process's origin and a count)
    P:ns:N:lock          string who holds it (a token; expires, so a dead process lets go)
    P:ns:N:journal       hash   journal entries by number (SEQ, written with their answers),
                         each one's server-wide call number (c:SEQ) and how long it took
                         (t:SEQ, written once it is sent); the oldest entry's number still
                         kept (first) and the bytes the kept entries hold (bytes)
    P:ns:N:KIND          hash   stored objects by id (KIND: chat, responses, conversations)
    P:ns:N:KIND:order    zset   their ids, oldest first
    P:ns:N:KIND:bytes    int    the bytes they hold

A namespace changes in one of two ways. ``TRY`` writes a change made on the state this process
last saw, if that state is still the namespace's (its ``ver``) and nobody holds the namespace:
one round trip, the common case. Otherwise ``ACQUIRE`` takes the namespace's lock and reads it,
and ``COMMIT`` writes and lets go.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ACQUIRE",
    "ANNOUNCE",
    "COMMIT",
    "COMPLETE",
    "KINDS",
    "LAYOUT",
    "LAYOUT_VERSION",
    "RELEASE",
    "RESET",
    "TRY",
]

#: The kinds of stored object, by the key each is kept under.
KINDS: Final = ("chat", "responses", "conversations")

#: The key layout above (``P:layout``). 1: releases before it, which did not stamp theirs (a
#: journal's times, call numbers, first entry and bytes under keys of their own; a feed entry
#: per announcement).
LAYOUT_VERSION: Final = "2"

#: ARGV: prefix, this layout. Stamps a prefix no process has used; returns the prefix's layout
#: ('1' if it holds keys but no stamp: an older release wrote them).
LAYOUT: Final = """
local p, want = ARGV[1], ARGV[2]
local have = redis.call('GET', p .. ':layout')
if have then return have end
if redis.call('EXISTS', p .. ':names', p .. ':feed', p .. ':calls', p .. ':tick') > 0 then
  return '1'
end
redis.call('SET', p .. ':layout', want)
return want
"""

_SHARED: Final = """
-- what this call announces (kind:name:seq, ':'-joined): one feed entry, written by tell()
local said
local function announce(kind, n, seq)
  if said then said = said .. ':' .. kind .. ':' .. n .. ':' .. seq
  else said = kind .. ':' .. n .. ':' .. seq end
end
local function tell(p, maxlen, origin)
  if said then
    redis.call('XADD', p .. ':feed', 'MAXLEN', '~', maxlen, '*', 'o', origin, 'a', said)
  end
end
local function forget(p, n)
  local base = p .. ':ns:' .. n
  redis.call('DEL', base .. ':state', base .. ':ver', base .. ':journal',
    base .. ':chat', base .. ':chat:order', base .. ':chat:bytes',
    base .. ':responses', base .. ':responses:order', base .. ':responses:bytes',
    base .. ':conversations', base .. ':conversations:order', base .. ':conversations:bytes')
  redis.call('ZREM', p .. ':names', n)
end
-- (name, seq, times) triples from ARGV[from] to ARGV[to]: the times kept beside the entry if
-- it is still in its journal
local function complete(p, from, to)
  for i = from, to, 3 do
    local journal = p .. ':ns:' .. ARGV[i] .. ':journal'
    if redis.call('HEXISTS', journal, ARGV[i + 1]) == 1 then
      redis.call('HSET', journal, 't:' .. ARGV[i + 1], ARGV[i + 2])
    end
    announce('entry', ARGV[i], ARGV[i + 1])
  end
end
-- the namespace used now; the least recently used past the limit forgotten
-- (only a name new to the set can take it past the limit: a known one is only moved)
local function touch(p, n, limit)
  local added = redis.call('ZADD', p .. ':names', redis.call('INCR', p .. ':tick'), n)
  local evicted = {}
  while added == 1 and redis.call('ZCARD', p .. ':names') > math.max(limit, 1) do
    local oldest = redis.call('ZRANGE', p .. ':names', 0, 0)[1]
    forget(p, oldest)
    evicted[#evicted + 1] = oldest
    announce('reset', oldest, 0)
  end
  return evicted
end
local function drop_stored(shelf, id, weighed)
  if weighed then redis.call('DECRBY', shelf .. ':bytes', redis.call('HSTRLEN', shelf, id)) end
  redis.call('HDEL', shelf, id)
end
-- journal entries from ARGV[i] (count, then seq + blob each): each numbered (P:calls) and,
-- unless the limit is 0, kept with its number; the oldest leave past either bound (never the
-- newest: one big request is kept). Returns the numbers and the ARGV index after them.
local function journal(p, base, i, jlimit, jbytes)
  local numbers = {}
  local count = tonumber(ARGV[i]); i = i + 1
  if count == 0 then return numbers, i end
  local key = base .. ':journal'
  local first, total
  if jlimit > 0 then
    local meta = redis.call('HMGET', key, 'first', 'bytes')
    first, total = tonumber(meta[1]), tonumber(meta[2]) or 0
  end
  for k = 1, count do
    local text, blob = ARGV[i], ARGV[i + 1]  -- (a number's text as sent: not formatted again)
    local number = redis.call('INCR', p .. ':calls')
    numbers[k] = number
    if jlimit > 0 then
      local seq = tonumber(text)
      total = total + #blob
      first = first or seq
      while first < seq and (seq - first + 1 > jlimit or total > jbytes) do
        local old = tostring(first)
        total = total - redis.call('HSTRLEN', key, old)
        redis.call('HDEL', key, old, 't:' .. old, 'c:' .. old)
        first = first + 1
      end
      if k < count then
        redis.call('HSET', key, text, blob, 'c:' .. text, number)
      else  -- with where the journal now begins, and its bytes
        redis.call('HSET', key, text, blob, 'c:' .. text, number, 'first', first, 'bytes', total)
      end
    end
    i = i + 2
  end
  return numbers, i
end
-- ARGV from ``at``: state ('' = unchanged), journal limit, journal bytes, store limit, store
-- bytes, origin, feed length, then journal entries (count, then seq + blob each), stored-object
-- changes (count, then kind + 'set'/'del' + id + blob each) and announcements (count, then
-- kind + seq each). The state's new version is ``mine`` if given (unique: its writer's origin
-- and count), else a new P:versions number. Returns {that version, the entries' call numbers}.
local function write(p, n, at, mine)
  local base = p .. ':ns:' .. n
  local slimit, sbytes = tonumber(ARGV[at + 3]), tonumber(ARGV[at + 4])
  local numbers, i = journal(p, base, at + 7, tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]))
  local count = tonumber(ARGV[i]); i = i + 1
  for _ = 1, count do
    local kind, op, id = ARGV[i], ARGV[i + 1], ARGV[i + 2]
    local shelf, order = base .. ':' .. kind, base .. ':' .. kind .. ':order'
    local weighed = kind ~= 'conversations'  -- as in memory: completions and responses
    if op == 'set' then
      if not redis.call('ZSCORE', order, id) then
        local last = redis.call('ZRANGE', order, -1, -1, 'WITHSCORES')
        local score = 1
        if #last > 0 then score = tonumber(last[2]) + 1 end
        redis.call('ZADD', order, score, id)
      end
      local total = 0
      if weighed then
        local was = redis.call('HSTRLEN', shelf, id)
        total = redis.call('INCRBY', shelf .. ':bytes', #ARGV[i + 3] - was)
      end
      redis.call('HSET', shelf, id, ARGV[i + 3])
      while true do
        local kept = redis.call('ZCARD', order)
        if not (kept > slimit or (weighed and kept > 1 and total > sbytes)) then break end
        local oldest = redis.call('ZPOPMIN', order)[1]
        drop_stored(shelf, oldest, weighed)
        if weighed then total = tonumber(redis.call('GET', shelf .. ':bytes')) end
      end
    else
      drop_stored(shelf, id, weighed)
      redis.call('ZREM', order, id)
    end
    i = i + 4
  end
  count = tonumber(ARGV[i]); i = i + 1
  for _ = 1, count do
    announce(ARGV[i], n, ARGV[i + 1])
    i = i + 2
  end
  local version = mine or redis.call('INCR', p .. ':versions')
  if ARGV[at] ~= '' then
    redis.call('MSET', base .. ':state', ARGV[at], base .. ':ver', version)
  else
    redis.call('SET', base .. ':ver', version)
  end
  return {version, numbers}
end
"""

#: ARGV: prefix, name, token, lock ms, namespace limit, origin, feed length, then (name, seq,
#: times) per journal entry completed since (as ``COMPLETE``: they ride along).
#: Returns {0, ms the lock has left} if another holds the namespace, else
#: {1, state ('' for a new namespace), its incarnation if new (else 0), names evicted}.
ACQUIRE: Final = (
    _SHARED
    + """
local p, n, token = ARGV[1], ARGV[2], ARGV[3]
local base = p .. ':ns:' .. n
complete(p, 8, #ARGV)
if not redis.call('SET', base .. ':lock', token, 'NX', 'PX', ARGV[4]) then
  tell(p, ARGV[7], ARGV[6])
  return {0, redis.call('PTTL', base .. ':lock')}
end
local state = redis.call('GET', base .. ':state')
local fresh = 0
if not state then
  fresh = redis.call('INCR', p .. ':incarnations')
  state = ''
end
local evicted = touch(p, n, tonumber(ARGV[5]))
tell(p, ARGV[7], ARGV[6])
return {1, state, fresh, evicted}
"""
)

#: ARGV: prefix, name, token, then what ``write`` takes (above). Written only while the caller
#: still holds the namespace; then let go. Returns {version, call numbers}.
COMMIT: Final = (
    _SHARED
    + """
local p, n, token = ARGV[1], ARGV[2], ARGV[3]
local base = p .. ':ns:' .. n
if redis.call('GET', base .. ':lock') ~= token then
  return redis.error_reply('MOCKSERVER_LOCK_LOST the namespace was held too long')
end
if not redis.call('ZSCORE', p .. ':names', n) then  -- evicted or reset while held: counted again
  redis.call('ZADD', p .. ':names', redis.call('INCR', p .. ':tick'), n)
end
local done = write(p, n, 4)
redis.call('DEL', base .. ':lock')
tell(p, ARGV[10], ARGV[9])
return done
"""
)

#: ARGV: prefix, name, the version the change was made on, the version it writes (a token no
#: other change has: the next change this process makes on it may be sent before it is
#: written), namespace limit, origin, feed length, the count of completed journal entries
#: riding along, their (name, seq, times), then what ``write`` takes. Returns {1, version,
#: call numbers, names evicted} if written; {0} if another process holds the namespace;
#: {0, state, version} if the namespace is no longer in that version (its state now: '' if it
#: is gone).
TRY: Final = (
    _SHARED
    + """
local p, n, want, mine = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local origin, maxlen = ARGV[6], ARGV[7]
local base = p .. ':ns:' .. n
local riding = tonumber(ARGV[8])
complete(p, 9, 8 + 3 * riding)
local held = redis.call('MGET', base .. ':lock', base .. ':ver')
if held[1] then
  tell(p, maxlen, origin)
  return {0}
end
local version = held[2]
if version ~= want then
  tell(p, maxlen, origin)
  return {0, redis.call('GET', base .. ':state') or '', version or ''}
end
local evicted = touch(p, n, tonumber(ARGV[5]))
local done = write(p, n, 9 + 3 * riding, mine)
tell(p, maxlen, origin)
return {1, done[1], done[2], evicted}
"""
)

#: ARGV: prefix, origin, feed length, then (name, seq, times) per completed entry: its times
#: kept if it is still in its journal; announced.
COMPLETE: Final = (
    _SHARED
    + """
complete(ARGV[1], 4, #ARGV)
tell(ARGV[1], ARGV[3], ARGV[2])
return 1
"""
)

#: ARGV: prefix, name, origin, feed length, the token this caller holds the namespace by ('' if
#: none): forget the namespace and announce its reset, unless another holds it (then {0, ms
#: the lock has left}; the caller waits). Returns {1}.
RESET: Final = (
    _SHARED
    + """
local p, n = ARGV[1], ARGV[2]
local holder = redis.call('GET', p .. ':ns:' .. n .. ':lock')
if holder and holder ~= ARGV[5] then
  return {0, redis.call('PTTL', p .. ':ns:' .. n .. ':lock')}
end
forget(p, n)
announce('reset', n, 0)
tell(p, ARGV[4], ARGV[3])
return {1}
"""
)

#: ARGV: prefix, name, origin, feed length, then kind + seq per announcement.
ANNOUNCE: Final = (
    _SHARED
    + """
for i = 5, #ARGV, 2 do
  announce(ARGV[i], ARGV[2], ARGV[i + 1])
end
tell(ARGV[1], ARGV[4], ARGV[3])
return 1
"""
)

#: ARGV: prefix, then (name, token) per lock to let go if that token still holds it.
RELEASE: Final = """
local p = ARGV[1]
for i = 2, #ARGV, 2 do
  local lock = p .. ':ns:' .. ARGV[i] .. ':lock'
  if redis.call('GET', lock) == ARGV[i + 1] then redis.call('DEL', lock) end
end
return 1
"""
