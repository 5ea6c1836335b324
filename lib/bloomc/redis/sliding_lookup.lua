local now = server_ms()
local gens, corrupt = stored_gens()
if not gens then return redis.error_reply(corrupt) end
local live = live_gens(gens, now, tonumber(ARGV[1]) + tonumber(ARGV[2]))
local told = described(5)
if not knows(told, live) then return table_reply(-1, now, live) end
for i = #live, 1, -1 do
  if gen_holds(told, live[i]) then return {1, now} end
end
return {0, now}
