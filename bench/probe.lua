-- wrk: a latency probe rather than a flood. Each connection waits
-- BENCH_PROBE_GAP_MS (default 4) milliseconds after each answer before its
-- next request, so with 4 connections /healthz is asked about 1,000 times a
-- second: far below what the server can answer, so each request's time is
-- how long the server takes to get to it and answer, not how long it waits
-- behind the requests before it. wrk times each request from when it is
-- written, so the pause is not counted.
local gap = tonumber(os.getenv("BENCH_PROBE_GAP_MS") or "4")

function delay()
  return gap
end
