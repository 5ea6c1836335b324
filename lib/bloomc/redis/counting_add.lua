local bad = not_strings(KEYS, {KEYS[2], KEYS[3]})
if bad then return redis.error_reply(bad) end
local k, t, out, fresh = tonumber(ARGV[1]), ARGV[2], {}, 0
for base = 3, #ARGV, k do
  local new = 0
  for i = base, base + k - 1 do
    local cell = '#' .. ARGV[i]
    if t == 'u1' then
      if redis.call('BITFIELD', KEYS[1], 'SET', t, cell, 1)[1] == 0 then new = 1 end
    elseif redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', 'INCRBY', t, cell, 1)[1] == 1 then
      new = 1
    end
  end
  out[#out + 1] = new
  fresh = fresh + new
end
redis.call('INCRBY', KEYS[2], #out)
if fresh > 0 then redis.call('INCRBY', KEYS[3], fresh) end
return out
