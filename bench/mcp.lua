-- wrk: one JSON-RPC request to an MCP endpoint over and over, as a client of
-- the 2025-11-25 protocol sends it. Reads BENCH_BODY (the request) and
-- BENCH_KEY (an API key of the app) from the environment.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  failures = 0
  wrk.method = "POST"
  wrk.body = os.getenv("BENCH_BODY")
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_KEY")
end

function response(status, headers, body)
  -- A JSON-RPC error (a refused request) or a tool error fails too.
  if status ~= 200 or string.find(body, '"error"', 1, true) or string.find(body, '"isError":true', 1, true) then
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("failures") or 0)
  end
  io.write(string.format("FAILED_REQUESTS %d\n", failed))
end
