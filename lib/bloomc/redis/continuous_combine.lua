local period = tonumber(ARGV[1])
local gen = generation(period)
local function src_key(g) return KEYS[2] .. ':' .. string.format('%d', g) end
local keys = {KEYS[3], KEYS[4]}
for g = gen - 2, gen do
  keys[#keys + 1] = generation_key(g)
  keys[#keys + 1] = src_key(g)
end
local bad = not_strings(keys, {KEYS[3], KEYS[4]})
if bad then return redis.error_reply(bad) end
if ARGV[2] == 'union' then
  for g = gen - 2, gen + 1 do
    local d, s = generation_key(g), src_key(g)
    if redis.call('EXISTS', s) == 1 then
      redis.call('BITOP', 'OR', d, d, s)
      redis.call('PEXPIREAT', d, (g + 3) * period)
    end
  end
else
  local dcum, scum, prev, cur = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
  redis.call('DEL', dcum, scum, prev, cur, generation_key(gen + 1))
  for age = 0, 2 do
    local g = gen - age
    local d = generation_key(g)
    redis.call('BITOP', 'OR', dcum, dcum, d)
    redis.call('BITOP', 'OR', scum, scum, src_key(g))
    redis.call('BITOP', 'AND', cur, dcum, scum)
    redis.call('BITOP', 'XOR', d, cur, prev)
    if redis.call('BITCOUNT', d) == 0 then
      redis.call('DEL', d)
    else
      redis.call('PEXPIREAT', d, (g + 3) * period)
    end
    prev, cur = cur, prev
  end
  redis.call('DEL', dcum, scum, prev, cur)
end
local a, b = tonumber(redis.call('GET', KEYS[3]) or '0'), tonumber(redis.call('GET', KEYS[4]) or '0')
local n = b
if ARGV[2] == 'union' then n = a + b elseif a < b then n = a end
redis.call('SET', KEYS[3], string.format('%d', n))
return 1
