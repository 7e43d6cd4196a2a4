-- Put in claim.lua, renew.lua, complete.lua and cut.lua, after their first line (shared::with_outage).
-- Leases are measured in the server's time, which runs on while no worker can reach it (a Redis restarted from
-- its append-only file, a failover, the network): without this, every lease held through an outage longer than
-- a lease would be expired when the server is back, and a claim would hand out again URIs whose holders are
-- alive and about to complete them. Every live worker renews every third of a lease, so when no call at all came
-- for two thirds of a lease, nobody could reach the server: each lease still running when the calls stopped
-- gets that gap back before anything else is done. P:seen holds the time of the last call (`at`) and the
-- lease's length (`lease`, from claim and renew; the other steps pass nil and read it).
local function keep_leases_through_outage(p, now, lease_ms)
  local key = p .. ':seen'
  local last = redis.call('HMGET', key, 'at', 'lease')
  local seen = tonumber(last[1] or '0')
  if lease_ms then
    redis.call('HSET', key, 'at', now, 'lease', lease_ms)
  else
    lease_ms = tonumber(last[2] or '0')
    redis.call('HSET', key, 'at', now)
  end
  if seen == 0 or lease_ms == 0 or now - seen <= lease_ms * 2 / 3 then return end
  local gap = now - seen
  for _, q in ipairs(redis.call('HKEYS', p .. ':lease')) do
    local expiry = tonumber(redis.call('ZSCORE', p .. ':ready', q) or '0')
    if expiry > seen then
      redis.call('ZADD', p .. ':ready', 'XX', expiry + gap, q)
    end
  end
end
