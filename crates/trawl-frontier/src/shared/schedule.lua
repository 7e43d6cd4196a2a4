#!lua
-- Schedules new items (seeds, operator additions) through the seen set.
-- ARGV: prefix, budget, then groups of 4: queue, seen bucket, seen field, item.
-- Returns a status per item: 0 queued, 1 duplicate, 2 over budget.
local p, budget = ARGV[1], tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 3, #ARGV, 4 do
  local q, bucket, field, item = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local seen = p .. ':s:' .. bucket
  if redis.call('HEXISTS', seen, field) == 1 then
    out[#out + 1] = 1
  elseif budget > 0 and tonumber(redis.call('HGET', p .. ':budget', q) or '0') >= budget then
    out[#out + 1] = 2
  else
    redis.call('HSET', seen, field, '')
    if budget > 0 then redis.call('HINCRBY', p .. ':budget', q, 1) end
    redis.call('RPUSH', p .. ':q:' .. q, item)
    local polite = tonumber(redis.call('HGET', p .. ':polite', q) or '0')
    redis.call('ZADD', p .. ':ready', 'NX', math.max(now, polite), q)
    redis.call('HINCRBY', p .. ':n', 'queued', 1)
    redis.call('HINCRBY', p .. ':n', 'discovered', 1)
    out[#out + 1] = 0
  end
end
return out
