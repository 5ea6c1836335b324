local now = server_ms()
local gens, corrupt = stored_gens()
if not gens then return redis.error_reply(corrupt) end
return table_reply(0, now, (live_gens(gens, now, tonumber(ARGV[1]) + tonumber(ARGV[2]))))
