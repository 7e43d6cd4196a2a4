#!lua
-- Extends the leases a live worker holds (its heartbeat), so a lease can be short while a fetch is long.
-- ARGV: prefix, worker, lease_ms, then pairs: queue, token. Returns how many were still this worker's.
local p, worker, lease_ms = ARGV[1], ARGV[2], tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
keep_leases_through_outage(p, now, lease_ms)
redis.call('ZADD', p .. ':workers', now, worker)
redis.call('HSETNX', p .. ':wstart', worker, now)
redis.call('HDEL', p .. ':wend', worker)
redis.call('HSET', p .. ':wlease', worker, lease_ms)
local kept = 0
for i = 4, #ARGV, 2 do
  local q, token = ARGV[i], ARGV[i + 1]
  local lease = redis.call('HGET', p .. ':lease', q)
  if lease and string.sub(lease, 1, #token + 1) == token .. ' ' then
    redis.call('ZADD', p .. ':ready', 'XX', now + lease_ms, q)
    kept = kept + 1
  end
end
return kept
