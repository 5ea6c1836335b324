local function server_ms()
  local now = redis.call('TIME')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end
local function whole(n) return string.format('%d', n) end
local function bitmap_key(start, j) return KEYS[2] .. ':' .. start .. ':' .. (j - 1) end
local function stored_gens()
  local flat, gens = redis.call('HGETALL', KEYS[1]), {}
  for i = 1, #flat, 2 do
    local fields = {}
    for n in string.gmatch(flat[i + 1], '[^,]+') do fields[#fields + 1] = n end
    local ok = string.match(flat[i], '^%d%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?$') and #fields >= 3 and #fields <= 66
    for _, n in ipairs(fields) do ok = ok and string.match(n, '^%d%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?%d?$') end
    if not ok or tonumber(fields[1]) == 0 then
      return nil, 'CORRUPT ' .. KEYS[1] .. ' holds no generation at ' .. string.sub(flat[i], 1, 20)
    end
    local gen = {start = tonumber(flat[i]), text = flat[i], capacity = tonumber(fields[1]), adds = tonumber(fields[2]), counts = {}}
    for j = 3, #fields do gen.counts[j - 2] = tonumber(fields[j]) end
    gens[#gens + 1] = gen
  end
  table.sort(gens, function(a, b) return a.start < b.start end)
  return gens
end
local function live_gens(gens, now, life)
  local live, ended = {}, {}
  for _, gen in ipairs(gens) do
    if now - gen.start >= life then ended[#ended + 1] = gen else live[#live + 1] = gen end
  end
  return live, ended
end
local function described(at)
  local gens, n = {}, tonumber(ARGV[at])
  at = at + 1
  for _ = 1, n do
    local gen, layers = {capacity = tonumber(ARGV[at + 1]), layers = {}}, tonumber(ARGV[at + 2])
    gens[ARGV[at]] = gen
    at = at + 3
    for j = 1, layers do
      local k = tonumber(ARGV[at])
      gen.layers[j] = {k = k, capacity = tonumber(ARGV[at + 1]), first = at + 2}
      at = at + 2 + k
    end
  end
  return gens
end
local function knows(told, live)
  for _, gen in ipairs(live) do
    local d = told[gen.text]
    if not d or d.capacity ~= gen.capacity or #d.layers < #gen.counts then return false end
  end
  return true
end
local function table_reply(head, now, live)
  local out = {head, now}
  for _, gen in ipairs(live) do
    out[#out + 1] = gen.start
    out[#out + 1] = gen.capacity
    out[#out + 1] = gen.adds
    out[#out + 1] = #gen.counts
    for _, c in ipairs(gen.counts) do out[#out + 1] = c end
  end
  return out
end
local function gen_holds(told, gen)
  local d = told[gen.text]
  for j = #gen.counts, 1, -1 do
    local l, found = d.layers[j], true
    for i = l.first, l.first + l.k - 1 do
      if redis.call('GETBIT', bitmap_key(gen.text, j), ARGV[i]) == 0 then found = false; break end
    end
    if found then return true end
  end
  return false
end
