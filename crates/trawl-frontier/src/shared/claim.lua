#!lua
-- Claims the next item whose queue may be fetched from now, under a lease.
-- ARGV: prefix, worker, lease_ms, token, max_per_call
-- Returns {'ready', queue, item} | {'wait', ms} | {'busy'} | {'paused'} | {'stopped'} | {'empty'}
--
-- Keys (all under one hash tag, so the script stays in one cluster slot):
--   P:ready   ZSET queue -> ms it may next be fetched from (a leased queue: its lease's expiry)
--   P:q:Q     LIST the queue's items, FIFO (first-placed items pushed to the front)
--   P:lease   HASH queue -> "token worker"      P:leased HASH queue -> the leased item
--   P:polite  HASH queue -> ms its politeness delay ends
--   P:asked   HASH queue -> ms the wait its server asked for ends (Retry-After, Crawl-delay)
--   P:later   ZSET "queue\nitem" -> ms due      P:n HASH counters
--   P:qpaused HASH queue -> paused | retired (an operator's)
--   P:seen    the server's time at the last claim or renewal (outage.lua)
local p, worker, lease_ms, token = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
keep_leases_through_outage(p, now, lease_ms)

local state = redis.call('HGET', p .. ':ctl', 'state')
if state == 'stop' then return {'stopped'} end
if state == 'pause' then return {'paused'} end

-- Items due later go to the back of their queues.
local due = redis.call('ZRANGEBYSCORE', p .. ':later', '-inf', now, 'LIMIT', 0, 100)
for _, m in ipairs(due) do
  local sep = string.find(m, '\n', 1, true)
  local q, item = string.sub(m, 1, sep - 1), string.sub(m, sep + 1)
  redis.call('RPUSH', p .. ':q:' .. q, item)
  if redis.call('HEXISTS', p .. ':qpaused', q) == 0 then
    local polite = tonumber(redis.call('HGET', p .. ':polite', q) or '0')
    redis.call('ZADD', p .. ':ready', 'NX', math.max(now, polite), q)
  end
  redis.call('ZREM', p .. ':later', m)
  redis.call('HINCRBY', p .. ':n', 'later', -1)
  redis.call('HINCRBY', p .. ':n', 'queued', 1)
end

for _ = 1, tonumber(ARGV[5]) do
  local top = redis.call('ZRANGE', p .. ':ready', 0, 0, 'WITHSCORES')
  if #top == 0 then break end
  local q, at = top[1], tonumber(top[2])
  if at > now then return {'wait', tostring(at - now)} end
  if redis.call('HEXISTS', p .. ':lease', q) == 1 then
    -- The lease expired (its expiry was the queue's score): its holder is gone; the item goes back first.
    local item = redis.call('HGET', p .. ':leased', q)
    if item then
      redis.call('LPUSH', p .. ':q:' .. q, item)
      redis.call('HINCRBY', p .. ':n', 'queued', 1)
    end
    redis.call('HINCRBY', p .. ':n', 'in_flight', -1)
    redis.call('HINCRBY', p .. ':n', 'reclaimed', 1)
    redis.call('HDEL', p .. ':lease', q)
    redis.call('HDEL', p .. ':leased', q)
  end
  local item = false
  if redis.call('HEXISTS', p .. ':qpaused', q) == 0 then
    item = redis.call('LPOP', p .. ':q:' .. q)
  end
  if item then
    redis.call('HSET', p .. ':lease', q, token .. ' ' .. worker)
    redis.call('HSET', p .. ':leased', q, item)
    redis.call('ZADD', p .. ':ready', now + lease_ms, q)
    redis.call('HINCRBY', p .. ':n', 'queued', -1)
    redis.call('HINCRBY', p .. ':n', 'in_flight', 1)
    return {'ready', q, item}
  end
  redis.call('ZREM', p .. ':ready', q)
end

if redis.call('ZCARD', p .. ':ready') > 0 then return {'busy'} end
local later = redis.call('ZRANGE', p .. ':later', 0, 0, 'WITHSCORES')
if #later > 0 then return {'wait', tostring(math.max(0, tonumber(later[2]) - now))} end
-- A queue an operator paused or retired still holds items: the crawl is not done (as in one process); it
-- waits for the operator to unpause or delete it. (P:qpaused holds only the queues operators named.)
for _, q in ipairs(redis.call('HKEYS', p .. ':qpaused')) do
  if redis.call('LLEN', p .. ':q:' .. q) > 0 then return {'wait', '1000'} end
end
return {'empty'}
