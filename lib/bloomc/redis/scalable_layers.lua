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
local function stored_layers(layers)
  local text = redis.call('GET', KEYS[1])
  if not text then return 1 end
  if type(text) ~= 'string' or not string.match(text, '^[1-9]%d?%d?%d?%d?%d?%d?%d?%d?$') then
    return nil, 'CORRUPT ' .. KEYS[1] .. ' holds no layer count (a whole number from 1)'
  end
  local n = tonumber(text)
  for j = 1, math.min(n, #layers) do
    if layers[j].k == 0 then return nil, 'CORRUPT ' .. KEYS[1] .. ' counts more layers than the parameters allow' end
  end
  return n
end
local function stored_count(key)
  local text = redis.call('GET', key)
  if not text then return 0 end
  if not string.match(text, '^%d+$') then return nil, 'CORRUPT ' .. key .. ' holds no count' end
  return tonumber(text)
end
local function layer_has(layers, j)
  local l = layers[j]
  for i = l.first, l.first + l.k - 1 do
    if redis.call('GETBIT', layer_key(j, ''), ARGV[i]) == 0 then return false end
  end
  return true
end
