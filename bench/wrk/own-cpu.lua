-- Shared by requests.lua and submit.lua (loaded with dofile from the same folder): returns the
-- function that gives wrk's own CPU seconds (utime + stime of all its threads) from
-- /proc/self/stat. Read at the end of the run, when wrk has done all its work: the bench cannot
-- sample a process that has exited.
return function()
  local f = io.open("/proc/self/stat", "r")
  if f == nil then return 0 end
  local stat = f:read("*a")
  f:close()
  local fields = {}
  -- The command name may contain spaces and parentheses: the fields start after the last ")".
  for field in stat:match(".*%) (.*)"):gmatch("%S+") do fields[#fields + 1] = field end
  -- After "(comm) ": state is field 1, utime and stime are 12 and 13, in ticks of 1/100 s.
  return (tonumber(fields[12]) + tonumber(fields[13])) / 100
end
