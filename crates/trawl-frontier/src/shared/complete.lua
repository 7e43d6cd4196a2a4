#!lua
-- Completes a leased item, and in the same step schedules what came of it, so that no worker ever sees the
-- crawl empty between the two.
-- ARGV: prefix, queue, token, delay_ms, budget, n_first, n_later, n_seen, n_predicted (0 or 1), n_cuts,
--   ended (1 when the item ends here and counts as done; 0 when it is put back: a retry, held for its robots.txt),
--   asked_ms (the rest the server asked: Retry-After, Crawl-delay; an operator's delay does not cut it),
--   fetched (1 when a request went to the host: only then does an operator's delay replace delay_ms), then
--   n_first pairs (queue, item) put back at the front of their queues (a retry, a prerequisite), last first,
--   n_later pairs (due_ms_from_now, "queue\nitem"),
--   n_seen pairs (seen bucket, seen field) marked seen before the new items are looked at (what a browser
--   fetched for the page),
--   n_predicted groups of 4 (a gallery's predicted next page), scheduled only if a new item was queued,
--   n_cuts pairs (seen bucket, seen field): the cut marks claimed with cut.lua, final now (their lines are
--   written; the claims in P:cutclaim go),
--   then groups of 4 for new items: queue, seen bucket, seen field, item.
-- Returns {ok, statuses...}: ok 1, or 0 when the lease is no longer this token's (expired and claimed again:
-- a zombie's result is dropped; the new holder fetches the item again); a status per new item:
-- 0 queued, 1 duplicate, 2 over budget.
local p, q, token = ARGV[1], ARGV[2], ARGV[3]
local delay, budget = tonumber(ARGV[4]), tonumber(ARGV[5])
local n_first, n_later = tonumber(ARGV[6]), tonumber(ARGV[7])
local n_seen, n_predicted, n_cuts = tonumber(ARGV[8]), tonumber(ARGV[9]), tonumber(ARGV[10])
local ended = ARGV[11] == '1'
local asked = tonumber(ARGV[12])
local fetched = ARGV[13] == '1'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
keep_leases_through_outage(p, now, nil)

local function paused(queue)
  return redis.call('HEXISTS', p .. ':qpaused', queue) == 1
end
local function over_budget(queue)
  local b = tonumber(redis.call('HGET', p .. ':qbudget', queue) or budget)
  return b > 0 and tonumber(redis.call('HGET', p .. ':budget', queue) or '0') >= b
end
-- An operator's delay for the queue replaces the computed one, not what the server asked.
local own_delay = redis.call('HGET', p .. ':qdelay', q)
if own_delay and fetched then delay = math.max(tonumber(own_delay), asked) end

local lease = redis.call('HGET', p .. ':lease', q)
if not lease or string.sub(lease, 1, #token + 1) ~= token .. ' ' then
  return {0}
end
redis.call('HDEL', p .. ':lease', q)
redis.call('HDEL', p .. ':leased', q)
redis.call('HINCRBY', p .. ':n', 'in_flight', -1)
if ended then
  redis.call('HINCRBY', p .. ':n', 'done', 1)
  redis.call('HINCRBY', p .. ':wdone', string.sub(lease, #token + 2), 1)
end
local polite = now + delay
redis.call('HSET', p .. ':polite', q, polite)
-- The end of what the server asked, which an operator's shorter delay (queue.lua) does not cut.
if asked > 0 then redis.call('HSET', p .. ':asked', q, now + asked) end

local i = 14
for _ = 1, n_first do
  local fq = ARGV[i]
  redis.call('LPUSH', p .. ':q:' .. fq, ARGV[i + 1])
  redis.call('HINCRBY', p .. ':n', 'queued', 1)
  -- Known by name (queue_names) even when nothing but prerequisites and redirects fed it; nothing spent.
  redis.call('HSETNX', p .. ':budget', fq, 0)
  if fq ~= q and not paused(fq) then
    local fp = tonumber(redis.call('HGET', p .. ':polite', fq) or '0')
    redis.call('ZADD', p .. ':ready', 'NX', math.max(now, fp), fq)
  end
  i = i + 2
end
for _ = 1, n_later do
  redis.call('ZADD', p .. ':later', now + tonumber(ARGV[i]), ARGV[i + 1])
  redis.call('HINCRBY', p .. ':n', 'later', 1)
  i = i + 2
end

for _ = 1, n_seen do
  redis.call('HSET', p .. ':s:' .. ARGV[i], ARGV[i + 1], '')
  i = i + 2
end
local predicted = i
i = i + 4 * n_predicted
for _ = 1, n_cuts do
  if redis.call('HSET', p .. ':s:' .. ARGV[i], ARGV[i + 1], '') == 1 then
    redis.call('HINCRBY', p .. ':n', 'refused', 1)
  end
  redis.call('HDEL', p .. ':cutclaim', ARGV[i] .. ':' .. ARGV[i + 1])
  i = i + 2
end

-- A new item through the seen set and the queue's budget: 0 queued, 1 duplicate, 2 over budget.
local function schedule(nq, bucket, field, item)
  local seen = p .. ':s:' .. bucket
  if redis.call('HEXISTS', seen, field) == 1 then
    return 1
  elseif over_budget(nq) then
    return 2
  end
  redis.call('HSET', seen, field, '')
  redis.call('HINCRBY', p .. ':budget', nq, 1)
  redis.call('RPUSH', p .. ':q:' .. nq, item)
  if not paused(nq) then
    local np = tonumber(redis.call('HGET', p .. ':polite', nq) or '0')
    redis.call('ZADD', p .. ':ready', 'NX', math.max(now, np), nq)
  end
  redis.call('HINCRBY', p .. ':n', 'queued', 1)
  redis.call('HINCRBY', p .. ':n', 'discovered', 1)
  return 0
end

local out = {1}
local queued = false
while i <= #ARGV do
  local status = schedule(ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3])
  queued = queued or status == 0
  out[#out + 1] = status
  i = i + 4
end
if queued and n_predicted == 1 then
  schedule(ARGV[predicted], ARGV[predicted + 1], ARGV[predicted + 2], ARGV[predicted + 3])
end

-- The queue rests for its delay, or leaves the ready set when it has nothing left (or is paused).
if redis.call('LLEN', p .. ':q:' .. q) > 0 and not paused(q) then
  redis.call('ZADD', p .. ':ready', polite, q)
else
  redis.call('ZREM', p .. ':ready', q)
end
return out
