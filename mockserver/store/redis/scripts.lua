-- The Redis backend's script, each call run atomically: a namespace's change is one step for
-- every process sharing it. ARGV[1] is the key prefix P, ARGV[2] what the call does (the
-- calls are at the end). Keys, under P and a namespace's escaped name N ('%' and ':'
-- percent-escaped):
--   P:names, P:tick    zset of namespaces scored by last use; the use counter (no clock)
--   P:calls            int     the server-wide call number (every process's journal entries)
--   P:feed             stream  per script call its origin o and what it announced a
--   P:layout           string  the layout this script and the codec write (checked at start)
--   P:scenario:DIGEST  string  an uploaded scenario's YAML, by its digest
--   P:ns:N:state, ver  strings the namespace's state (JSON); the version that wrote it
--   P:ns:N:lease       string  who may write it next (a process that missed too often; expires)
--   P:ns:N:journal     hash    entries (SEQ: JSON), their call numbers (c:SEQ) and times
--                              (t:SEQ, once sent); the oldest kept (first), the bytes (bytes)
--   P:ns:N:shelves     set     the kinds of stored object it keeps
--   P:ns:N:KIND        hash    stored objects by id (JSON); KIND:order (zset) their ids,
--                              oldest first; KIND:bytes (int) the bytes they hold

-- what this call announces (kind:name:seq each, ':'-joined): one feed entry, at its end
local said = {}
local function announce(kind, n, seq) said[#said + 1] = kind .. ':' .. n .. ':' .. seq end
local function forget(p, n)
  local base = p .. ':ns:' .. n
  for _, kind in ipairs(redis.call('SMEMBERS', base .. ':shelves')) do
    local shelf = base .. ':' .. kind
    redis.call('DEL', shelf, shelf .. ':order', shelf .. ':bytes')
  end
  redis.call('DEL', base .. ':state', base .. ':ver', base .. ':lease', base .. ':journal',
    base .. ':shelves')
  redis.call('ZREM', p .. ':names', n)
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
-- journal entries from ARGV[i] (count, then seq + value each): each numbered (P:calls) and,
-- unless the limit is 0, kept; the oldest leave past either bound (never the newest: one big
-- request is kept). Returns the numbers and the ARGV index after them.
local function journal(p, base, i, jlimit, jbytes)
  local numbers, count, key = {}, tonumber(ARGV[i]), base .. ':journal'
  local first, total
  if count > 0 and jlimit > 0 then
    local meta = redis.call('HMGET', key, 'first', 'bytes')
    first, total = tonumber(meta[1]), tonumber(meta[2]) or 0
  end
  for k = 1, count do
    local text, value = ARGV[i + 2 * k - 1], ARGV[i + 2 * k]  -- (a number's text as sent)
    numbers[k] = redis.call('INCR', p .. ':calls')
    if jlimit > 0 then
      local seq = tonumber(text)
      total, first = total + #value, first or seq
      while first < seq and (seq - first + 1 > jlimit or total > jbytes) do
        local old = tostring(first)
        total = total - redis.call('HSTRLEN', key, old)
        redis.call('HDEL', key, old, 't:' .. old, 'c:' .. old)
        first = first + 1
      end
      -- the last with where the journal now begins, and its bytes
      local meta = k == count and {'first', first, 'bytes', total} or {}
      redis.call('HSET', key, text, value, 'c:' .. text, numbers[k], unpack(meta))
    end
  end
  return numbers, i + 1 + 2 * count
end
local function drop_stored(shelf, id, weighed)
  if weighed then redis.call('DECRBY', shelf .. ':bytes', redis.call('HSTRLEN', shelf, id)) end
  redis.call('HDEL', shelf, id)
  redis.call('ZREM', shelf .. ':order', id)
end
-- a stored object set: kept last in its order unless it was there; the oldest dropped past
-- the count (or, weighed, the bytes) its kind may keep
local function set_stored(base, kind, id, value, weighed, slimit, sbytes)
  local shelf, order = base .. ':' .. kind, base .. ':' .. kind .. ':order'
  redis.call('SADD', base .. ':shelves', kind)
  if not redis.call('ZSCORE', order, id) then
    local last = redis.call('ZRANGE', order, -1, -1, 'WITHSCORES')
    redis.call('ZADD', order, #last > 0 and tonumber(last[2]) + 1 or 1, id)
  end
  local total = 0
  if weighed then
    total = redis.call('INCRBY', shelf .. ':bytes', #value - redis.call('HSTRLEN', shelf, id))
  end
  redis.call('HSET', shelf, id, value)
  while true do
    local kept = redis.call('ZCARD', order)
    if not (kept > slimit or (weighed and kept > 1 and total > sbytes)) then break end
    drop_stored(shelf, redis.call('ZRANGE', order, 0, 0)[1], weighed)
    if weighed then total = tonumber(redis.call('GET', shelf .. ':bytes')) end
  end
end
-- The one way a namespace changes: compare and set. ARGV from i: name, the version the change
-- was made on ('' for a new namespace), the version it writes, a lease token ('' for none);
-- the limits: namespaces, journal entries and bytes, stored objects and bytes; lease ms; the
-- state ('' if unchanged); journal entries (count, then seq + value each), stored-object
-- changes (count, then kind + 'set'/'del' + id + value + weighed ('1'/'') each),
-- announcements (count, then kind + seq each). Written if the namespace is still in that
-- version and no other holds its lease: {1, call numbers, names evicted}. Else {0, state,
-- version ('' if none), 1 if another holds its lease}; a caller that gave a lease token then
-- holds the lease (its next try cannot miss but for a reset).
local function change(p, i)
  local n, want, mine, token = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local slimit, sbytes, state = tonumber(ARGV[i + 7]), tonumber(ARGV[i + 8]), ARGV[i + 10]
  local base = p .. ':ns:' .. n
  local now = redis.call('MGET', base .. ':ver', base .. ':lease')
  local version, lease = now[1] or '', now[2]
  local other = lease and lease ~= token
  if other or version ~= want then
    if token ~= '' and not other then
      redis.call('SET', base .. ':lease', token, 'PX', ARGV[i + 9])
    end
    return {0, redis.call('GET', base .. ':state') or '', version, other and 1 or 0}
  end
  if lease then redis.call('DEL', base .. ':lease') end
  local evicted = touch(p, n, tonumber(ARGV[i + 4]))
  local numbers
  numbers, i = journal(p, base, i + 11, tonumber(ARGV[i + 5]), tonumber(ARGV[i + 6]))
  for _ = 1, tonumber(ARGV[i]) do
    local kind, id, weighed = ARGV[i + 1], ARGV[i + 3], ARGV[i + 5] ~= ''
    if ARGV[i + 2] == 'set' then
      set_stored(base, kind, id, ARGV[i + 4], weighed, slimit, sbytes)
    else
      drop_stored(base .. ':' .. kind, id, weighed)
    end
    i = i + 5
  end
  for k = 1, tonumber(ARGV[i + 1]) do announce(ARGV[i + 2 * k], n, ARGV[i + 2 * k + 1]) end
  if state ~= '' then
    redis.call('MSET', base .. ':state', state, base .. ':ver', mine)
  else
    redis.call('SET', base .. ':ver', mine)
  end
  return {1, numbers, evicted}
end

-- The calls. 'layout' (ARGV[3]: this layout) stamps a prefix no process has used; returns
-- the prefix's layout ('1' if it holds keys but no stamp: a release before stamps wrote them).
local p, call = ARGV[1], ARGV[2]
if call == 'layout' then
  local have = redis.call('GET', p .. ':layout')
  if have then return have end
  if redis.call('EXISTS', p .. ':names', p .. ':feed', p .. ':calls', p .. ':tick') > 0 then
    return '1'
  end
  redis.call('SET', p .. ':layout', ARGV[3])
  return ARGV[3]
end
-- Every other call: the origin, the feed's length, then the completed journal entries riding
-- along (count, then name + seq + times each): the times kept beside an entry still in its
-- journal, each announced. 'complete' is only that; 'reset' then forgets a namespace (its
-- name); 'change' is the change above.
local origin, maxlen, riding = ARGV[3], ARGV[4], tonumber(ARGV[5])
for i = 6, 5 + 3 * riding, 3 do
  local key = p .. ':ns:' .. ARGV[i] .. ':journal'
  if redis.call('HEXISTS', key, ARGV[i + 1]) == 1 then
    redis.call('HSET', key, 't:' .. ARGV[i + 1], ARGV[i + 2])
  end
  announce('entry', ARGV[i], ARGV[i + 1])
end
local i, answer = 6 + 3 * riding, 1
if call == 'reset' then
  forget(p, ARGV[i])
  announce('reset', ARGV[i], 0)
elseif call == 'change' then
  answer = change(p, i)
end
if #said > 0 then
  redis.call('XADD', p .. ':feed', 'MAXLEN', '~', maxlen, '*', 'o', origin, 'a',
    table.concat(said, ':'))
end
return answer
