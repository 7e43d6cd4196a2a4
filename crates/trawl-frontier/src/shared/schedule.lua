#!lua
-- Schedules new items (seeds, operator additions) through the seen set.
-- ARGV: prefix, budget, then groups of 4: queue, seen bucket, seen field, item.
-- Returns a status per item: 0 queued, 1 duplicate, 2 over budget.
local p, budget = ARGV[1], tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
-- A queue's own budget (an operator's) or the crawl's; 0: none.
local function over_budget(q)
  local b = tonumber(redis.call('HGET', p .. ':qbudget', q) or budget)
  return b > 0 and tonumber(redis.call('HGET', p .. ':budget', q) or '0') >= b
end
local out = {}
for i = 3, #ARGV, 4 do
  local q, bucket, field, item = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local seen = p .. ':s:' .. bucket
  if redis.call('HEXISTS', seen, field) == 1 then
    out[#out + 1] = 1
  elseif over_budget(q) then
    out[#out + 1] = 2
  else
    redis.call('HSET', seen, field, '')
    redis.call('HINCRBY', p .. ':budget', q, 1)
    redis.call('RPUSH', p .. ':q:' .. q, item)
    if redis.call('HEXISTS', p .. ':qpaused', q) == 0 then
      local polite = tonumber(redis.call('HGET', p .. ':polite', q) or '0')
      redis.call('ZADD', p .. ':ready', 'NX', math.max(now, polite), q)
    end
    redis.call('HINCRBY', p .. ':n', 'queued', 1)
    redis.call('HINCRBY', p .. ':n', 'discovered', 1)
    out[#out + 1] = 0
  end
end
return out
