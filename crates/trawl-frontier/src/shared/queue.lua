#!lua
-- An operator's action on one queue, for every worker: pause, retire, unpause, delete, delay, budget; or
-- `list` for the queues' rows.
-- ARGV: prefix, op, queue, value ('' clears a delay or budget), max rows (list)
-- Returns: 1 done / -1 no such queue; delete: the URIs dropped; list: rows of
--   {queue, state, queued, leased, spent, budget or '', delay or '', wait_ms}
local p, op, q, value = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function known(queue)
  return redis.call('EXISTS', p .. ':q:' .. queue) == 1 or redis.call('HEXISTS', p .. ':budget', queue) == 1
end
local function leased(queue)
  return redis.call('HEXISTS', p .. ':lease', queue) == 1
end

if op == 'list' then
  local rows = {}
  local seen = {}
  local function row(queue, score)
    if seen[queue] then return end
    seen[queue] = true
    -- A paused or retired queue is out of P:ready: its wait is its rest (a Retry-After goes on while paused).
    score = score or tonumber(redis.call('HGET', p .. ':polite', queue) or '0')
    local state = redis.call('HGET', p .. ':qpaused', queue)
    if not state then
      if leased(queue) then state = 'in-process'
      elseif score and score > now then state = 'snoozed'
      else state = 'ready' end
    end
    rows[#rows + 1] = {
      queue, state, redis.call('LLEN', p .. ':q:' .. queue), leased(queue) and 1 or 0,
      tonumber(redis.call('HGET', p .. ':budget', queue) or '0'),
      redis.call('HGET', p .. ':qbudget', queue) or '', redis.call('HGET', p .. ':qdelay', queue) or '',
      math.max(0, (score or now) - now),
    }
  end
  local ready = redis.call('ZRANGE', p .. ':ready', 0, tonumber(ARGV[5]) - 1, 'WITHSCORES')
  for i = 1, #ready, 2 do row(ready[i], tonumber(ready[i + 1])) end
  for _, queue in ipairs(redis.call('HKEYS', p .. ':qpaused')) do row(queue, nil) end
  return rows
end

if not known(q) then return -1 end
if op == 'pause' or op == 'retire' then
  redis.call('HSET', p .. ':qpaused', q, op == 'pause' and 'paused' or 'retired')
  -- A leased queue keeps its entry (its lease's expiry) until the lease ends.
  if not leased(q) then redis.call('ZREM', p .. ':ready', q) end
elseif op == 'unpause' then
  redis.call('HDEL', p .. ':qpaused', q)
  if redis.call('LLEN', p .. ':q:' .. q) > 0 and not leased(q) then
    local polite = tonumber(redis.call('HGET', p .. ':polite', q) or '0')
    redis.call('ZADD', p .. ':ready', 'NX', math.max(now, polite), q)
  end
elseif op == 'delete' then
  local n = redis.call('LLEN', p .. ':q:' .. q)
  redis.call('DEL', p .. ':q:' .. q)
  redis.call('HINCRBY', p .. ':n', 'queued', -n)
  if not leased(q) then redis.call('ZREM', p .. ':ready', q) end
  return n
elseif op == 'delay' then
  if value == '' then redis.call('HDEL', p .. ':qdelay', q) else redis.call('HSET', p .. ':qdelay', q, value) end
  -- A shorter delay shortens the rest running now, down to what the server asked, as in one process
  -- (xt24a F1: the host rested the longer delay out); a leased queue's next rest is set as it completes.
  if value ~= '' and not leased(q) then
    local polite = tonumber(redis.call('HGET', p .. ':polite', q) or '0')
    local floor = math.max(now + tonumber(value), tonumber(redis.call('HGET', p .. ':asked', q) or '0'))
    if floor < polite then
      redis.call('HSET', p .. ':polite', q, floor)
      -- Only where it waits in the ready set (not paused or retired).
      redis.call('ZADD', p .. ':ready', 'XX', floor, q)
    end
  end
elseif op == 'budget' then
  if value == '' then redis.call('HDEL', p .. ':qbudget', q) else redis.call('HSET', p .. ':qbudget', q, value) end
else
  return redis.error_reply('no queue action ' .. op)
end
return 1
