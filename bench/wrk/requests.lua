-- wrk script of bench/api.bench.ts (run by bench/wrk.ts, not by hand):
--
--   wrk -t2 -c50 -d5s --latency -s bench/wrk/requests.lua http://127.0.0.1:4700 -- \
--       <rate> <check> <max player> <weight> <method> <path> <headers> <body> [<weight> ...]
--
-- One or more kinds of request, each picked with its weight; <headers> is "name: value" lines,
-- <body> "" for none. In a path or a body, {{player}} becomes a random player id in
-- 1..<max player>, {{place}} such a number (a JSON number: a place on the board), {{players}} a
-- JSON list of 50 ids and {{players1000}} of 1,000 (raw text: URL-encode around it).
-- <rate> > 0 is this thread's offered rate in requests/s, open loop: requests are due at the times
-- of a Poisson process of that rate, whether or not earlier ones were answered, and each goes out
-- at its time on a free connection (one due while every connection waits is sent late: `late`
-- counts those sent more than 1 ms after their time). <rate> 0: each connection sends its next
-- request as soon as it has an answer. <check> "1" looks at every response: any status but 200
-- and 304, or a body holding "errors", is a bad response. That makes wrk copy every response into
-- Lua (which costs wrk much more CPU per request on a large body), so the bench asks for it only where
-- a first response was bad.
-- done() prints one JSON line, starting with {"wrk":, that the bench parses.

local threads = {}

-- A monotonic clock in ms (wrk's Lua is LuaJIT; its API has no clock of its own).
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } ladder_timespec;
  int clock_gettime(int clock_id, ladder_timespec *tp);
]]
local timespec = ffi.new("ladder_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, timespec) -- CLOCK_MONOTONIC
  return tonumber(timespec.tv_sec) * 1000 + tonumber(timespec.tv_nsec) / 1e6
end

-- Runs in the main Lua state, once per thread, before init().
function setup(thread)
  threads[#threads + 1] = thread
  thread:set("thread_id", #threads)
end

local kinds = {}
local total_weight = 0
local max_player = 1

local function random_player()
  return tostring(math.random(1, max_player))
end

local function random_players(n)
  local ids = {}
  for i = 1, n do ids[i] = '"' .. random_player() .. '"' end
  return "[" .. table.concat(ids, ",") .. "]"
end

local function fill(template)
  if template == nil then return nil end
  return (
    template
      :gsub("{{players1000}}", function() return random_players(1000) end)
      :gsub("{{players}}", function() return random_players(50) end)
      :gsub("{{place}}", random_player)
      :gsub("{{player}}", random_player)
  )
end

local function is_template(s)
  return s ~= nil and (s:find("{{player", 1, true) ~= nil or s:find("{{place}}", 1, true) ~= nil)
end

local function format(kind)
  return wrk.format(kind.method, fill(kind.path), kind.headers, fill(kind.body))
end

-- Runs in each thread's own Lua state with the arguments after `--` (args[0] is the URL).
function init(args)
  -- Each thread has its own random state: seed it per thread, or all threads draw the same ids.
  math.randomseed(os.time() + 7919 * thread_id)
  local rate = tonumber(args[1])
  local check = args[2] == "1"
  max_player = tonumber(args[3])
  local i = 4
  while args[i] ~= nil do
    local headers = {}
    for name, value in args[i + 3]:gmatch("([^:\n]+):%s*([^\n]*)") do headers[name] = value end
    local kind = {
      weight = tonumber(args[i]), method = args[i + 1], path = args[i + 2], headers = headers,
      body = args[i + 4] ~= "" and args[i + 4] or nil,
    }
    -- A request without placeholders is formatted once, not once per request.
    if not is_template(kind.path) and not is_template(kind.body) then kind.fixed = format(kind) end
    total_weight = total_weight + kind.weight
    kinds[#kinds + 1] = kind
    i = i + 5
  end

  -- wrk decides after init() whether `request` and `delay` exist: defined only when needed, so a
  -- single fixed request costs wrk nothing per request and unpaced runs schedule no timers.
  if #kinds > 1 or not kinds[1].fixed then
    request = function()
      local kind = kinds[1]
      if #kinds > 1 then
        local r = math.random() * total_weight
        for _, k in ipairs(kinds) do
          kind = k
          r = r - k.weight
          if r < 0 then break end
        end
      end
      return kind.fixed or format(kind)
    end
  else
    wrk.method, wrk.path, wrk.headers, wrk.body = kinds[1].method, kinds[1].path, kinds[1].headers, kinds[1].body
  end
  if rate > 0 then
    -- wrk asks delay() each time a connection is free for its next request: it takes the next
    -- due time of the schedule and waits until then (wrk's timers count whole ms). A connection
    -- that takes a time already past sends at once, and is late if more than 1 ms past.
    local mean_gap = 1000 / rate
    local next_due
    late = 0 -- global: done() reads it from each thread with thread:get()
    delay = function()
      local now = now_ms()
      next_due = next_due or now + math.random() * mean_gap
      local due = next_due
      next_due = next_due - math.log(1 - math.random()) * mean_gap -- exponential gaps: Poisson arrivals
      if due < now - 1 then late = late + 1 end
      return math.max(0, math.floor(due - now + 0.5))
    end
  end
  if check then
    bad_responses = 0 -- global: done() reads it from each thread with thread:get()
    response = function(status, _, body)
      if (status ~= 200 and status ~= 304) or body:find('"errors"', 1, true) then bad_responses = bad_responses + 1 end
    end
  end
end

-- wrk's own CPU seconds (own-cpu.lua, beside this script: wrk names the script by the path it was given).
local own_cpu_seconds = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "own-cpu.lua")

-- Runs in the main Lua state after the run. latency:percentile() is in microseconds.
-- badResponses is -1 when responses were not checked.
function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local bad, late = -1, 0
  for _, thread in ipairs(threads) do
    local n = thread:get("bad_responses")
    if n ~= nil then bad = math.max(bad, 0) + n end
    late = late + (thread:get("late") or 0)
  end
  io.write(string.format(
    '{"wrk":1,"seconds":%.3f,"requests":%d,"rps":%.1f,"non2xx3xx":%d,"badResponses":%d,"late":%d,'
      .. '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},'
      .. '"p50":%.3f,"p90":%.3f,"p99":%.3f,"cpuSeconds":%.2f}\n',
    seconds, summary.requests, summary.requests / seconds, e.status, bad, late,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    own_cpu_seconds()))
end
