local period = tonumber(ARGV[2])
local gen = generation(period)
local key, older, last = generation_key(gen), generation_key(gen - 1), generation_key(gen - 2)
local bad = not_strings({key, older, last, KEYS[2]}, {KEYS[2]})
if bad then return redis.error_reply(bad) end
local k, out = tonumber(ARGV[1]), {}
for base = 3, #ARGV, k do
  local live = 1
  for i = base, base + k - 1 do
    if redis.call('SETBIT', key, ARGV[i], 1) == 0 and live == 1
       and redis.call('GETBIT', older, ARGV[i]) == 0 and redis.call('GETBIT', last, ARGV[i]) == 0 then
      live = 0
    end
  end
  out[#out + 1] = 1 - live
end
redis.call('PEXPIREAT', key, (gen + 3) * period)
redis.call('INCRBY', KEYS[2], #out)
return out
