#!lua
-- Claims the lines of refused URLs (cuts) for the worker holding a lease, so that each is logged once
-- crawl-wide and none is lost: the worker writes the lines it claimed, then completes its item, and the
-- completion makes the claims final.
-- ARGV: prefix, queue, token, then groups of 4: the uniq key's seen bucket and field, the cut mark's.
-- Returns a flag per cut: 1 when this worker logs it; 0 when the URL is scheduled (the crawl fetches it),
-- its line is written (a final mark, ''), or a worker whose lease is alive has claimed it.
-- A claim is "queue\ntoken"; a claim whose lease is gone or expired (its worker died or stalled before
-- completing) is taken over, so the line is written at least once.
local p, q, token = ARGV[1], ARGV[2], ARGV[3]
local mine = q .. '\n' .. token
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

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
for i = 4, #ARGV, 4 do
  local marks, field = p .. ':s:' .. ARGV[i + 2], ARGV[i + 3]
  local claim = redis.call('HGET', marks, field)
  local take
  if here[marks .. field] then
    take = false
  elseif redis.call('HEXISTS', p .. ':s:' .. ARGV[i], ARGV[i + 1]) == 1 then
    take = false
  elseif not claim then
    take = true
  elseif claim == '' then
    take = false
  else
    take = claim == mine or not alive(claim)
  end
  here[marks .. field] = true
  if take then
    redis.call('HSET', marks, field, mine)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
