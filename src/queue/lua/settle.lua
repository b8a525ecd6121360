-- Records how a job ended (redis-scripts.ts settleScript).
-- KEYS: 1 the PR hash, 2 the job's hash, 3 the repository's live jobs.
-- ARGV: 1 job id, 2 status, 3 reason or '', 4 the head it reviewed or '', 5 prefix of the
--       `alive` keys, 6 prefix of the job hashes.
-- Returns {status, the PR's parked job or ''}.
local pull, id, status, reason = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local current = redis.call('HGET', pull, 'current') == id
local waiting = redis.call('HGET', pull, 'waiting')
if status ~= 'completed' and not current then
  status = 'cancelled'
  if reason == '' or ARGV[2] ~= 'cancelled' then reason = 'superseded' end
end
if status == 'waiting' and waiting and waiting ~= id then
  status, reason = 'cancelled', 'superseded by job ' .. waiting
end
if current and status == 'completed' and ARGV[4] ~= '' then
  redis.call('HSET', pull, 'doneHead', ARGV[4])
end
if current and status == 'waiting' then redis.call('HSET', pull, 'waiting', id) end
if current and status == 'failed' then
  revertHead(pull)
  if waiting == id then redis.call('HDEL', pull, 'waiting') end
end
if redis.call('HGET', pull, 'running') == id then redis.call('HDEL', pull, 'running') end
redis.call('DEL', ARGV[5] .. id)
if status ~= 'waiting' then redis.call('ZREM', KEYS[3], id) end
redis.call('HSET', KEYS[2], 'status', status)
if reason == '' then redis.call('HDEL', KEYS[2], 'reason') else redis.call('HSET', KEYS[2], 'reason', reason) end
local parked = ''
waiting = redis.call('HGET', pull, 'waiting')
if waiting and waiting ~= id and redis.call('HDEL', ARGV[6] .. waiting, 'parked') == 1 then
  parked = waiting
end
return {status, parked}
