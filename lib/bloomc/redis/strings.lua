local function not_strings(keys, counters)
  for _, key in ipairs(keys) do
    local t = redis.call('TYPE', key)['ok']
    if t ~= 'string' and t ~= 'none' then return 'WRONGTYPE ' .. key .. ' holds a ' .. t .. ', where a filter keeps a string' end
  end
  for _, counter in ipairs(counters) do
    local n = redis.call('GET', counter)
    if n and not tonumber(n) then return 'ERR ' .. counter .. ' holds no count' end
  end
end
