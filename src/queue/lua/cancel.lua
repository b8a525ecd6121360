-- Forgets the PR's current and waiting job (redis-scripts.ts cancelScript).
-- KEYS: 1 the PR hash. Returns the waiting job's id, or ''.
local waiting = redis.call('HGET', KEYS[1], 'waiting') or ''
redis.call('HDEL', KEYS[1], 'current', 'waiting')
revertHead(KEYS[1])
return waiting
