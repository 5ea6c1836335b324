local function generation(period)
  local now = redis.call('TIME')
  return math.floor((tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)) / period)
end
local function generation_key(gen) return KEYS[1] .. ':' .. string.format('%d', gen) end
