local k, out = tonumber(ARGV[1]), {}
for base = 2, #ARGV, k do
  local found = 1
  for i = base, base + k - 1 do
    if redis.call('GETBIT', KEYS[1], ARGV[i]) == 0 then found = 0; break end
  end
  out[#out + 1] = found
end
return out
