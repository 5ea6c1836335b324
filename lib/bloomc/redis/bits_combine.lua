local bad = not_strings(KEYS, {KEYS[2], KEYS[4]})
if bad then return redis.error_reply(bad) end
redis.call('BITOP', ARGV[1], KEYS[1], KEYS[1], KEYS[3])
local a, b = tonumber(redis.call('GET', KEYS[2]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0')
local n = b
if ARGV[1] == 'OR' then n = a + b elseif a < b then n = a end
redis.call('SET', KEYS[2], string.format('%d', n))
return 1
