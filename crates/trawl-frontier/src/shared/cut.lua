#!lua
-- The crawl.log lines of refused URLs (cuts), each logged once crawl-wide and none lost to a kill.
-- ARGV: prefix, mode, queue, token, then groups of 4: the uniq key's seen bucket and field, the cut mark's.
--   mode 'claim': for the worker holding the lease on queue with token, before it writes the lines; it
--     completes its item afterwards with the claimed marks, which makes them final (complete.lua).
--   mode 'final': marks the lines written at once (a cut known only after the completion: over budget);
--     queue and token are empty.
-- Returns a flag per cut: 1 when this worker logs it; 0 when the URL is scheduled (the crawl fetches it),
-- its line is written (a final mark in the seen set), or a worker whose lease is alive has claimed it.
-- A claim, "queue\ntoken", is kept apart in P:cutclaim (field: bucket ':' field of the cut mark), so the
-- seen set's hashes keep their short values. A claim whose lease is gone or expired (its worker died or
-- stalled before completing) is taken over by the next worker to refuse that URL (the one redoing the
-- dead worker's page): at least once.
local p, mode, q, token = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local mine = q .. '\n' .. token
local claims = p .. ':cutclaim'
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
keep_leases_through_outage(p, now, nil)

local function alive(claim)
  local sep = string.find(claim, '\n', 1, true)
  if not sep then return false end
  local cq, ct = string.sub(claim, 1, sep - 1), string.sub(claim, sep + 1)
  local lease = redis.call('HGET', p .. ':lease', cq)
  if not lease or string.sub(lease, 1, #ct + 1) ~= ct .. ' ' then return false end
  -- A leased queue's score in the ready set is its lease's expiry.
  local expires = redis.call('ZSCORE', p .. ':ready', cq)
  return expires ~= false and tonumber(expires) > now
end

local out = {}
-- The cuts of this call already looked at: a URL refused twice is logged once.
local here = {}
for i = 5, #ARGV, 4 do
  local marks, field = p .. ':s:' .. ARGV[i + 2], ARGV[i + 3]
  local slot = ARGV[i + 2] .. ':' .. field
  local take
  if here[slot] then
    take = false
  elseif redis.call('HEXISTS', p .. ':s:' .. ARGV[i], ARGV[i + 1]) == 1 then
    take = false
  elseif redis.call('HEXISTS', marks, field) == 1 then
    take = false
  else
    local claim = redis.call('HGET', claims, slot)
    take = not claim or claim == mine or not alive(claim)
  end
  here[slot] = true
  if take and mode == 'final' then
    redis.call('HSET', marks, field, '')
    redis.call('HINCRBY', p .. ':n', 'refused', 1)
    redis.call('HDEL', claims, slot)
  elseif take then
    redis.call('HSET', claims, slot, mine)
  end
  out[#out + 1] = take and 1 or 0
end
return out
