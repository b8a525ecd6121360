-- revertHead(key): the PR's head goes back to the last completed one; prepended to the
-- scripts that use it.
local function revertHead(key)
  local done = redis.call('HGET', key, 'doneHead')
  if done then redis.call('HSET', key, 'head', done) else redis.call('HDEL', key, 'head') end
end
