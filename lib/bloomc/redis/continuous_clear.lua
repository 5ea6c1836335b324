local gen = generation(tonumber(ARGV[1]))
for g = gen - 4, gen + 1 do redis.call('DEL', generation_key(g)) end
return redis.call('DEL', KEYS[2])
