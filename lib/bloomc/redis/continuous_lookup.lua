local k, out = tonumber(ARGV[1]), {}
local gen = generation(tonumber(ARGV[2]))
local live = {}
for age = 0, 2 do live[#live + 1] = generation_key(gen - age) end
for base = 3, #ARGV, k do
  local found = 1
  for i = base, base + k - 1 do
    local any = 0
    for _, key in ipairs(live) do
      if redis.call('GETBIT', key, ARGV[i]) == 1 then any = 1; break end
    end
    if any == 0 then found = 0; break end
  end
  out[#out + 1] = found
end
return out
