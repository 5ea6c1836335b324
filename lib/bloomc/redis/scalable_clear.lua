local n = tonumber(ARGV[1])
for j = 1, n do redis.call('DEL', layer_key(j, ''), layer_key(j, ':count')) end
return redis.call('DEL', KEYS[1], KEYS[2])
