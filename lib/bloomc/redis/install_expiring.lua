local now = redis.call('TIME')
if tonumber(ARGV[1]) <= tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) then
  return redis.call('DEL', KEYS[1], KEYS[2])
end
redis.call('PEXPIREAT', KEYS[1], ARGV[1])
redis.call('RENAME', KEYS[1], KEYS[2])
return 1
