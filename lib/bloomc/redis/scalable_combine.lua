local function layer_key(base, j, part) return KEYS[base + 2] .. ':' .. (j - 1) .. part end
local function number(key) return tonumber(redis.call('GET', key) or '0') end
local function log1p(x)
  local u = 1 + x
  if u == 1 then return x end
  return math.log(u) * x / (u - 1)
end
local counters = {KEYS[1], KEYS[2], KEYS[4], KEYS[5], KEYS[7], KEYS[8]}
local bad = not_strings(counters, counters)
if bad then return redis.error_reply(bad) end
local n = {}
for _, base in ipairs({1, 4, 7}) do
  local text = redis.call('GET', KEYS[base]) or '1'
  if not string.match(text, '^[1-9]%d*$') then return redis.error_reply('CORRUPT ' .. KEYS[base] .. ' holds no layer count (a whole number from 1)') end
  n[base] = tonumber(text)
  if n[base] > #ARGV / 2 then return redis.error_reply('CORRUPT ' .. KEYS[base] .. ' counts more layers than the parameters allow') end
  local bits, counts = {}, {}
  for j = 1, n[base] do bits[j], counts[j] = layer_key(base, j, ''), layer_key(base, j, ':count') end
  bad = not_strings(bits, {}) or not_strings(counts, counts)
  if bad then return redis.error_reply(bad) end
end
local a, b = {}, {}
for j = 1, n[4] do a[j] = number(layer_key(4, j, ':count')) end
for j = 1, n[7] do b[j] = number(layer_key(7, j, ':count')) end
local size = number(KEYS[5]) + number(KEYS[8])
if KEYS[1] ~= KEYS[4] then
  for j = 1, n[1] do redis.call('DEL', layer_key(1, j, ''), layer_key(1, j, ':count')) end
end
local top = math.max(n[4], n[7])
for j = 1, top do
  local bits, count = layer_key(1, j, ''), a[j]
  if j > n[4] then
    redis.call('BITOP', 'OR', bits, layer_key(7, j, ''))
    count = b[j]
  elseif j <= n[7] then
    redis.call('BITOP', 'OR', bits, layer_key(4, j, ''), layer_key(7, j, ''))
    local m, k = tonumber(ARGV[2 * j - 1]), tonumber(ARGV[2 * j])
    local set = redis.call('BITCOUNT', bits)
    count = a[j] + b[j]
    if set < m then
      local estimate = math.floor(-(m / k) * log1p(-set / m) + 0.5)
      count = math.min(math.max(estimate, a[j], b[j]), count)
    end
  elseif KEYS[1] ~= KEYS[4] then
    redis.call('BITOP', 'OR', bits, layer_key(4, j, ''))
  end
  redis.call('SET', layer_key(1, j, ':count'), string.format('%.0f', count))
end
redis.call('SET', KEYS[1], top)
redis.call('SET', KEYS[2], string.format('%.0f', size))
return top
