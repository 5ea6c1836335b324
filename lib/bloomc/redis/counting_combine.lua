local bad = not_strings(KEYS, {})
if bad then return redis.error_reply(bad) end
local w, t = tonumber(ARGV[1]), 'u' .. ARGV[1]
local a, b = tonumber(ARGV[3]), tonumber(ARGV[4])
if ARGV[2] == 'union' then
  each_nonzero_cell(KEYS[2], w, a, b, function(cell)
    local v = redis.call('BITFIELD_RO', KEYS[2], 'GET', t, '#' .. cell)[1]
    redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', 'INCRBY', t, '#' .. cell, v)
  end)
else
  each_nonzero_cell(KEYS[1], w, a, b, function(cell)
    local v = redis.call('BITFIELD_RO', KEYS[2], 'GET', t, '#' .. cell)[1]
    if v < redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. cell)[1] then
      redis.call('BITFIELD', KEYS[1], 'SET', t, '#' .. cell, v)
    end
  end)
end
return 1
