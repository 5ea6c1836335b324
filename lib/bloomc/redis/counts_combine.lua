local bad = not_strings({}, KEYS)
if bad then return redis.error_reply(bad) end
local a, b = tonumber(redis.call('GET', KEYS[1]) or '0'), tonumber(redis.call('GET', KEYS[2]) or '0')
local n = b
if ARGV[1] == 'union' then n = a + b elseif a < b then n = a end
redis.call('SET', KEYS[1], string.format('%d', n))
return n
