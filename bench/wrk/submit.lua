-- wrk script of the submission load (bench/submit-load.ts, not by hand):
--
--   wrk -t1 -c64 -d20s --latency -s bench/wrk/submit.lua http://127.0.0.1:4700 -- \
--       <api key> <season ids, comma separated> <endedAt ISO> <players> <results per match> [<stats>]
--
-- Every request is one submitMatchResult of a fresh random matchId (a UUID v4) for <results per
-- match> consecutive players from a random one in 1..<players>, points random, counted in every
-- season listed (seasonIds); with <stats> > 0, each result carries stats s2..s<stats + 1> too, random
-- (for the seasons' further boards: docs/design.md#boards). A response with
-- status other than 200 or a body without "accepted" counts as bad (its body is kept by code).
-- done() prints one JSON line, starting with {"wrk":, that the bench parses.

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
  thread:set("thread_id", #threads)
end

local season, ended, players, per_match, stats
local query = "mutation($input: MatchResultInput!) { submitMatchResult(input: $input) { accepted } }"

local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%04x%08x",
    math.random(0, 0xffffffff), math.random(0, 0xffff), math.random(0, 0xfff),
    0x8000 + math.random(0, 0x3fff), math.random(0, 0xffff), math.random(0, 0xffffffff))
end

function init(args)
  math.randomseed(os.time() + 7919 * thread_id)
  wrk.method = "POST"
  wrk.path = "/graphql"
  wrk.headers["content-type"] = "application/json"
  wrk.headers["authorization"] = "Bearer " .. args[1]
  season, ended, players, per_match = args[2], args[3], tonumber(args[4]), tonumber(args[5])
  stats = tonumber(args[6] or "0")
  bad = 0 -- globals: done() reads them from each thread with thread:get()
  codes = ""
end

function request()
  local first = math.random(1, players - per_match)
  local results = {}
  for i = 1, per_match do
    local extra = {}
    for s = 1, stats do
      extra[s] = string.format('{"name":"s%d","value":%d}', s + 1, math.random(0, 100000))
    end
    local with_stats = stats > 0 and string.format(',"stats":[%s]', table.concat(extra, ",")) or ""
    results[i] = string.format('{"playerId":"%d","points":%d%s}', first + i - 1, math.random(0, 100000), with_stats)
  end
  local body = string.format(
    '{"query":"%s","variables":{"input":{"matchId":"%s","seasonIds":[%s],"endedAt":"%s","results":[%s]}}}',
    query, uuid(), season, ended, table.concat(results, ","))
  return wrk.format(nil, nil, nil, body)
end

function response(status, _, body)
  if status ~= 200 or not body:find('"accepted"', 1, true) then
    bad = bad + 1
    local code = body:match('"code":"([A-Z_]+)"') or tostring(status)
    if #codes < 200 then codes = codes .. code .. " " end
  end
end

-- wrk's own CPU seconds (own-cpu.lua, beside this script: wrk names the script by the path it was given).
local own_cpu_seconds = dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "own-cpu.lua")

function done(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local e = summary.errors
  local bad_total, codes_all = 0, ""
  for _, thread in ipairs(threads) do
    bad_total = bad_total + thread:get("bad")
    codes_all = codes_all .. thread:get("codes")
  end
  io.write(string.format(
    '{"wrk":1,"seconds":%.3f,"requests":%d,"rps":%.1f,"non2xx3xx":%d,"badResponses":%d,"badCodes":"%s",'
      .. '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d},'
      .. '"p50":%.3f,"p90":%.3f,"p99":%.3f,"cpuSeconds":%.2f}\n',
    seconds, summary.requests, summary.requests / seconds, e.status, bad_total, codes_all,
    e.connect, e.read, e.write, e.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000,
    own_cpu_seconds()))
end
