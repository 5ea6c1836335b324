local bad = not_strings(KEYS, {KEYS[2], KEYS[3]})
if bad then return redis.error_reply(bad) end
local k, out, fresh = tonumber(ARGV[1]), {}, 0
for base = 2, #ARGV, k do
  local new = 0
  for i = base, base + k - 1 do
    if redis.call('SETBIT', KEYS[1], ARGV[i], 1) == 0 then new = 1 end
  end
  out[#out + 1] = new
  fresh = fresh + new
end
redis.call('INCRBY', KEYS[2], #out)
if fresh > 0 then redis.call('INCRBY', KEYS[3], fresh) end
return out
