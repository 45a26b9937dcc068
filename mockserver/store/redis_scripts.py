"""The Redis backend's Lua scripts: each runs atomically in Redis, so a namespace's change is
one step for every process sharing it.

Keys, under a prefix ``P`` (``--state-prefix``) and a namespace's escaped name ``N`` (``%`` and
``:`` percent-escaped, so no name's keys run into another's)::

    P:names            zset   namespaces, scored by last use (P:tick), oldest first
    P:tick             int    the use counter (no wall clock: nothing ambient)
    P:incarnations     int    numbers each namespace made anew
    P:feed             stream the change feed (kind k, escaped name n, seq s, origin o)
    P:scenario:DIGEST  string an uploaded scenario's YAML, by its digest
    P:ns:N:state       string the namespace's counters, hits, scenario, queue, clock, budgets
    P:ns:N:lock        string who holds it (a token; expires, so a dead process lets go)
    P:ns:N:journal     hash   journal entries by number (written with their answers)
    P:ns:N:journal:times hash how long each took, by number (written once it is sent)
    P:ns:N:KIND        hash   stored objects by id (KIND: chat, responses, conversations)
    P:ns:N:KIND:order  zset   their ids, oldest first
"""

from __future__ import annotations

from typing import Final

__all__ = ["ACQUIRE", "COMMIT", "COMPLETE", "KINDS", "RELEASE", "RESET"]

#: The kinds of stored object, by the key each is kept under.
KINDS: Final = ("chat", "responses", "conversations")

_FORGET: Final = """
local function forget(p, n)
  local base = p .. ':ns:' .. n
  redis.call('DEL', base .. ':state', base .. ':journal', base .. ':journal:times',
    base .. ':chat', base .. ':chat:order',
    base .. ':responses', base .. ':responses:order',
    base .. ':conversations', base .. ':conversations:order')
  redis.call('ZREM', p .. ':names', n)
end
local function announce(p, maxlen, kind, n, seq, origin)
  redis.call('XADD', p .. ':feed', 'MAXLEN', '~', maxlen, '*',
    'k', kind, 'n', n, 's', seq, 'o', origin)
end
local function complete(p, origin, maxlen, from)
  for i = from, #ARGV, 3 do
    local journal = p .. ':ns:' .. ARGV[i] .. ':journal'
    if redis.call('HEXISTS', journal, ARGV[i + 1]) == 1 then
      redis.call('HSET', journal .. ':times', ARGV[i + 1], ARGV[i + 2])
    end
    announce(p, maxlen, 'entry', ARGV[i], ARGV[i + 1], origin)
  end
end
"""

#: ARGV: prefix, name, token, lock ms, namespace limit, origin, feed length, then (name, seq,
#: times) per journal entry completed since (as ``COMPLETE``: they ride along).
#: Returns {0, ms the lock has left} if another holds the namespace, else
#: {1, state ('' for a new namespace), its incarnation if new (else 0), names evicted}.
ACQUIRE: Final = (
    _FORGET
    + """
local p, n, token = ARGV[1], ARGV[2], ARGV[3]
local base = p .. ':ns:' .. n
complete(p, ARGV[6], ARGV[7], 8)
if not redis.call('SET', base .. ':lock', token, 'NX', 'PX', ARGV[4]) then
  return {0, redis.call('PTTL', base .. ':lock')}
end
local tick = redis.call('INCR', p .. ':tick')
local state = redis.call('GET', base .. ':state')
local fresh = 0
if not state then
  fresh = redis.call('INCR', p .. ':incarnations')
  state = ''
end
redis.call('ZADD', p .. ':names', tick, n)
local evicted = {}
local limit = tonumber(ARGV[5])
while redis.call('ZCARD', p .. ':names') > math.max(limit, 1) do
  local oldest = redis.call('ZRANGE', p .. ':names', 0, 0)[1]
  forget(p, oldest)
  evicted[#evicted + 1] = oldest
  announce(p, ARGV[7], 'reset', oldest, 0, ARGV[6])
end
return {1, state, fresh, evicted}
"""
)

#: ARGV: prefix, name, token, state ('' = unchanged), journal limit, store limit, origin,
#: feed length, then journal entries (count, then seq + blob each), stored-object changes
#: (count, then kind + 'set'/'del' + id + blob each) and announcements (count, then kind +
#: seq each). Written only while the caller still holds the namespace; then let go.
COMMIT: Final = (
    _FORGET
    + """
local p, n, token = ARGV[1], ARGV[2], ARGV[3]
local base = p .. ':ns:' .. n
if redis.call('GET', base .. ':lock') ~= token then
  return redis.error_reply('MOCKSERVER_LOCK_LOST the namespace was held too long')
end
if ARGV[4] ~= '' then redis.call('SET', base .. ':state', ARGV[4]) end
if not redis.call('ZSCORE', p .. ':names', n) then  -- evicted or reset while held: counted again
  redis.call('ZADD', p .. ':names', redis.call('INCR', p .. ':tick'), n)
end
local jlimit, slimit = tonumber(ARGV[5]), tonumber(ARGV[6])
local i = 9
local count = tonumber(ARGV[i]); i = i + 1
for _ = 1, count do
  local seq = tonumber(ARGV[i])
  if jlimit > 0 then redis.call('HSET', base .. ':journal', ARGV[i], ARGV[i + 1]) end
  if seq > jlimit then
    redis.call('HDEL', base .. ':journal', tostring(seq - jlimit))
    redis.call('HDEL', base .. ':journal:times', tostring(seq - jlimit))
  end
  i = i + 2
end
count = tonumber(ARGV[i]); i = i + 1
for _ = 1, count do
  local kind, op, id = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local shelf, order = base .. ':' .. kind, base .. ':' .. kind .. ':order'
  if op == 'set' then
    if not redis.call('ZSCORE', order, id) then
      local last = redis.call('ZRANGE', order, -1, -1, 'WITHSCORES')
      local score = 1
      if #last > 0 then score = tonumber(last[2]) + 1 end
      redis.call('ZADD', order, score, id)
    end
    redis.call('HSET', shelf, id, ARGV[i + 3])
    while redis.call('ZCARD', order) > slimit do
      local oldest = redis.call('ZPOPMIN', order)
      redis.call('HDEL', shelf, oldest[1])
    end
  else
    redis.call('HDEL', shelf, id)
    redis.call('ZREM', order, id)
  end
  i = i + 4
end
count = tonumber(ARGV[i]); i = i + 1
for _ = 1, count do
  announce(p, ARGV[8], ARGV[i], n, ARGV[i + 1], ARGV[7])
  i = i + 2
end
redis.call('DEL', base .. ':lock')
return 1
"""
)

#: ARGV: prefix, origin, feed length, then (name, seq, times) per completed entry: its times
#: kept if it is still in its journal; announced.
COMPLETE: Final = (
    _FORGET
    + """
complete(ARGV[1], ARGV[2], ARGV[3], 4)
return 1
"""
)

#: ARGV: prefix, name, origin, feed length, then kind + seq per announcement (none: forget
#: the namespace and announce its reset).
RESET: Final = (
    _FORGET
    + """
local p, n = ARGV[1], ARGV[2]
if #ARGV == 4 then
  forget(p, n)
  announce(p, ARGV[4], 'reset', n, 0, ARGV[3])
  return 1
end
for i = 5, #ARGV, 2 do
  announce(p, ARGV[4], ARGV[i], n, ARGV[i + 1], ARGV[3])
end
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
