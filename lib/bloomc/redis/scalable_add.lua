local layers = describe_layers(1)
local bad = not_strings({KEYS[1], KEYS[2]}, {KEYS[1], KEYS[2]})
if bad then return redis.error_reply(bad) end
local n, corrupt = stored_layers(layers)
if not n then return redis.error_reply(corrupt) end
if n > #layers then return {-1, n} end
for j = n, 1, -1 do
  if layer_has(layers, j) then
    redis.call('INCR', KEYS[2])
    return {0, n}
  end
end
local top = n
local taken
taken, corrupt = stored_count(layer_key(top, ':count'))
if not taken then return redis.error_reply(corrupt) end
if taken >= layers[top].capacity then
  if top == #layers then return {-1, n} end
  top = top + 1
  if layers[top].k == 0 then return redis.error_reply('CAPACITY the filter holds its max_capacity') end
  redis.call('SET', KEYS[1], top)
end
local l, new = layers[top], 0
for i = l.first, l.first + l.k - 1 do
  if redis.call('SETBIT', layer_key(top, ''), ARGV[i], 1) == 0 then new = 1 end
end
redis.call('INCR', KEYS[2])
if new == 1 then redis.call('INCR', layer_key(top, ':count')) end
return {new, top}
