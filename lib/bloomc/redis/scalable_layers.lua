local function describe_layers(first)
  local layers, at = {}, first + 1
  for j = 1, tonumber(ARGV[first]) do
    local k = tonumber(ARGV[at])
    layers[j] = {k = k, capacity = tonumber(ARGV[at + 1]), first = at + 2}
    at = at + 2 + k
  end
  return layers
end
local function layer_key(j, part) return KEYS[3] .. ':' .. (j - 1) .. part end
local function layer_has(layers, j)
  local l = layers[j]
  for i = l.first, l.first + l.k - 1 do
    if redis.call('GETBIT', layer_key(j, ''), ARGV[i]) == 0 then return false end
  end
  return true
end
