local now = server_ms()
local ttl, window, g, first = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local life = ttl + window
local gens, corrupt = stored_gens()
if not gens then return redis.error_reply(corrupt) end
local live, ended = live_gens(gens, now, life)
for _, gen in ipairs(ended) do redis.call('HDEL', KEYS[1], gen.text) end
local newest = live[#live]
if not newest or (now - newest.start >= window and #live < g + 1) then
  local c = first
  if newest then
    local function distinct(gen)
      local sum = 0
      for _, n in ipairs(gen.counts) do sum = sum + n end
      return sum
    end
    local seen, before, max = distinct(newest), 0, 1099511627776
    if #live > 1 then before = distinct(live[#live - 1]) end
    if seen >= max then
      c = max
    else
      if before > 0 and seen > before then
        local half = math.floor(seen / 2)
        if seen - before < half then seen = seen + (seen - before) else seen = seen + half end
      end
      c = math.min(seen + math.floor(seen / 16) + 64, max)
    end
  end
  newest = {start = now, text = whole(now), capacity = c, adds = 0, counts = {0}}
  live[#live + 1] = newest
  redis.call('HSET', KEYS[1], newest.text, whole(c) .. ',0,0')
  redis.call('PEXPIREAT', KEYS[1], now + life)
  return table_reply(-1, now, live)
end
local told = described(5)
if not knows(told, live) then return table_reply(-1, now, live) end
local d, top = told[newest.text], #newest.counts
local answer = 1
if gen_holds(told, newest) then
  answer = 0
else
  for i = #live - 1, 1, -1 do
    if gen_holds(told, live[i]) then answer = 0; break end
  end
  if newest.counts[top] >= d.layers[top].capacity then
    if top == #d.layers then return table_reply(-1, now, live) end
    top = top + 1
    if d.layers[top].k == 0 then return redis.error_reply('CAPACITY a generation holds the most layers there are') end
    newest.counts[top] = 0
  end
  local key = bitmap_key(newest.text, top)
  local bad = not_strings({key}, {})
  if bad then return redis.error_reply(bad) end
  local l, changed = d.layers[top], 0
  for i = l.first, l.first + l.k - 1 do
    if redis.call('SETBIT', key, ARGV[i], 1) == 0 then changed = 1 end
  end
  redis.call('PEXPIREAT', key, newest.start + life)
  newest.counts[top] = newest.counts[top] + changed
end
newest.adds = newest.adds + 1
local fields = {whole(newest.capacity), whole(newest.adds)}
for _, n in ipairs(newest.counts) do fields[#fields + 1] = whole(n) end
redis.call('HSET', KEYS[1], newest.text, table.concat(fields, ','))
redis.call('PEXPIREAT', KEYS[1], newest.start + life)
return {answer, now, #newest.counts}
