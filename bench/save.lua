-- wrk: save tool_000 of one app per thread (run with -t N -c N), following
-- each app's revision so that no save is stale.
-- Reads BENCH_COOKIE and BENCH_REVISIONS ("app=rev,app=rev,…") from the environment.
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("index", counter)
  table.insert(threads, thread)
end

function init(args)
  app = string.format("bench.app%02d", index)
  revision = 0
  for name, rev in string.gmatch(os.getenv("BENCH_REVISIONS"), "([^=,]+)=(%d+)") do
    if name == app then revision = tonumber(rev) end
  end
  cookie = os.getenv("BENCH_COOKIE")
  variant = 0
  failures = 0
end

local params = {}
for p = 0, 9 do
  local kind = ({"string", "number", "boolean"})[(p % 3) + 1]
  local allowed = ""
  if kind == "string" and p % 2 == 0 then allowed = "low, medium, high" end
  table.insert(params, string.format(
    '{"name":"param_%d","param_type":"%s","description":"Parameter %d of tool 0: what it means and which values make sense","required":%s,"allowed_values":"%s"}',
    p, kind, p, tostring(p % 4 == 0), allowed))
end
local params_json = "[" .. table.concat(params, ",") .. "]"

function request()
  variant = variant + 1
  local body = string.format(
    '{"package_name":"%s","revision":%d,"original_id":"tool_000","draft":{"tool_id":"tool_000","description":"Tool 0 (http %d): does one thing the assistant can ask the app to do.","activation_phrases":"run tool 0, please do 0, start number 0","title":"","max_calls":"","read_only":false,"destructive":false,"idempotent":false,"open_world":false,"parameters":%s}}',
    app, revision, variant, params_json)
  return wrk.format("POST", "/api/tools/save", {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json",
    ["Cookie"] = cookie,
  }, body)
end

function response(status, headers, body)
  local next = string.match(body, '"revision":(%d+)')
  if status == 200 and next then
    revision = tonumber(next)
  else
    failures = failures + 1
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("failures") or 0)
  end
  io.write(string.format("FAILED_SAVES %d\n", failed))
end
