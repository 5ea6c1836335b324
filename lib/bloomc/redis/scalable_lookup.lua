local layers = describe_layers(1)
local n, corrupt = stored_layers(layers)
if not n then return redis.error_reply(corrupt) end
if n > #layers then return {-1, n} end
for j = n, 1, -1 do
  if layer_has(layers, j) then return {1, n} end
end
return {0, n}
