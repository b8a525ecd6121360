-- Whether a job may run now (redis-scripts.ts startScript).
-- KEYS: 1 the PR hash, 2 the job's hash, 3 the repository's live jobs.
-- ARGV: 1 job id, 2 attempt, 3 prefix of the `alive` keys, 4 how long `alive` lasts (ms).
-- Returns '' (run), 'busy' (wait for the PR's running job) or why it may not run.
local settled = redis.call('HGET', KEYS[2], 'status')
if settled == 'completed' or settled == 'failed' or settled == 'cancelled' then
  return 'already ' .. settled
end
local id = ARGV[1]
local current = redis.call('HGET', KEYS[1], 'current')
local waiting = redis.call('HGET', KEYS[1], 'waiting')
if current ~= id and waiting ~= id then
  local reason = current and ('superseded by job ' .. current) or 'pull request closed'
  redis.call('HSET', KEYS[2], 'status', 'cancelled', 'reason', reason)
  redis.call('ZREM', KEYS[3], id)
  return reason
end
local running = redis.call('HGET', KEYS[1], 'running')
if running and running ~= id and current ~= id
  and redis.call('EXISTS', ARGV[3] .. running) == 1 then
  redis.call('HSET', KEYS[2], 'parked', '1')
  return 'busy'
end
redis.call('HSET', KEYS[1], 'current', id, 'running', id)
if waiting == id then redis.call('HDEL', KEYS[1], 'waiting') end
redis.call('SET', ARGV[3] .. id, '1', 'PX', ARGV[4])
redis.call('HDEL', KEYS[2], 'parked')
redis.call('HSET', KEYS[2], 'status', 'active', 'attempts', ARGV[2])
return ''
