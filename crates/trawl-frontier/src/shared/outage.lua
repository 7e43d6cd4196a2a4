-- Put in claim.lua and renew.lua, after their first line (shared::with_outage).
-- Leases are measured in the server's time, which runs on while no worker can reach it (a Redis restarted from
-- its append-only file, a failover, the network): without this, every lease held through an outage longer than
-- a lease would be expired when the server is back, and a claim would hand out again URIs whose holders are
-- alive and about to complete them. Every live worker renews every third of a lease, so when no call at all came
-- for two thirds of a lease, nobody could renew: each lease gets that gap back before anything is claimed.
local function keep_leases_through_outage(p, now, lease_ms)
  local seen = tonumber(redis.call('GET', p .. ':seen') or '0')
  redis.call('SET', p .. ':seen', now)
  if seen == 0 or now - seen <= lease_ms * 2 / 3 then return end
  local gap = now - seen
  for _, q in ipairs(redis.call('HKEYS', p .. ':lease')) do
    local expiry = redis.call('ZSCORE', p .. ':ready', q)
    if expiry then
      redis.call('ZADD', p .. ':ready', 'XX', tonumber(expiry) + gap, q)
    end
  end
end
