-- Accepts, coalesces or drops a review request for a PR (redis-scripts.ts enqueueScript).
-- KEYS: 1 the PR hash, 2 the new job's hash, 3 the repository's live jobs (sorted set).
-- ARGV: 1 job id, 2 head SHA or '', 3 '1' when explicit, 4 the PR as JSON, 5 the job's TTL
--       (s), 6 the PR's TTL (s), 7 now (ms), 8 how long a job counts as live (ms),
--       9 '1' when the base branch changed.
-- Returns {'duplicate' | 'coalesced' | 'accepted', a job id, the priority}.
local head = redis.call('HGET', KEYS[1], 'head')
local headSha = ARGV[2]
if ARGV[3] == '0' and headSha ~= '' and head == headSha then
  return {'duplicate', redis.call('HGET', KEYS[1], 'current') or '', '0'}
end
local newHead = (headSha ~= '' and head ~= headSha) or ARGV[9] == '1'
local waiting = redis.call('HGET', KEYS[1], 'waiting') or ''
if waiting ~= '' and not newHead then
  redis.call('EXPIRE', KEYS[1], ARGV[6])
  return {'coalesced', waiting, '0'}
end
redis.call('HSET', KEYS[1], 'waiting', ARGV[1])
if newHead then redis.call('HSET', KEYS[1], 'current', ARGV[1], 'head', headSha) end
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('HSET', KEYS[2], 'pull', ARGV[4], 'status', 'waiting', 'attempts', '0')
if headSha ~= '' then redis.call('HSET', KEYS[2], 'headSha', headSha) end
redis.call('EXPIRE', KEYS[2], ARGV[5])
local now, window = tonumber(ARGV[7]), tonumber(ARGV[8])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - window)
if waiting ~= '' then redis.call('ZREM', KEYS[3], waiting) end
local load = math.min(redis.call('ZCARD', KEYS[3]), 1023)
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('PEXPIRE', KEYS[3], window)
local second = 0
if not newHead and redis.call('HEXISTS', KEYS[1], 'running') == 1 then second = 1 end
return {'accepted', waiting, tostring(second * 1024 + load + 1)}
