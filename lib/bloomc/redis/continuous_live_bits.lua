local gen = generation(tonumber(ARGV[1]))
redis.call('BITOP', 'OR', KEYS[2], generation_key(gen), generation_key(gen - 1), generation_key(gen - 2))
local set = redis.call('BITCOUNT', KEYS[2])
redis.call('DEL', KEYS[2])
return set
