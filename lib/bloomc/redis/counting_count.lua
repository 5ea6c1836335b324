local k, t, out = tonumber(ARGV[1]), ARGV[2], {}
for base = 3, #ARGV, k do
  local min
  for i = base, base + k - 1 do
    local v = redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. ARGV[i])[1]
    if min == nil or v < min then min = v end
    if min == 0 then break end
  end
  out[#out + 1] = min
end
return out
