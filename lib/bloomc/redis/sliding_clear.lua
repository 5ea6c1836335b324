local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do
  local _, commas = string.gsub(flat[i + 1], ',', '')
  for j = 1, math.min(commas - 1, 64) do redis.call('DEL', bitmap_key(flat[i], j)) end
end
return redis.call('DEL', KEYS[1])
