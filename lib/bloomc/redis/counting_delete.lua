local bad = not_strings(KEYS, {KEYS[2], KEYS[3]})
if bad then return redis.error_reply(bad) end
local k, t, max, out = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), {}
for base = 4, #ARGV, k do
  local counted = 1
  for i = base, base + k - 1 do
    if redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. ARGV[i])[1] == 0 then counted = 0; break end
  end
  if counted == 1 then
    local least
    for i = base, base + k - 1 do
      local v = redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. ARGV[i])[1]
      if v ~= 0 and v ~= max then
        redis.call('BITFIELD', KEYS[1], 'INCRBY', t, '#' .. ARGV[i], -1)
        v = v - 1
      end
      if least == nil or v < least then least = v end
    end
    if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
    if least == 0 and tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
  end
  out[#out + 1] = counted
end
return out
