-- wrk: POST BENCH_BODY as JSON over and over (a ToolCall straight to the
-- stub app, the floor of a tools/call through the console).
wrk.method = "POST"
wrk.body = os.getenv("BENCH_BODY")
wrk.headers["Content-Type"] = "application/json"
