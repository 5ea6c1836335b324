local n = 0
each_nonzero_cell(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), function() n = n + 1 end)
return n
