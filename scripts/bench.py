#!/usr/bin/env python3
"""`make bench`: measure the console against its speed budget and write BENCHMARKS.md.

Expects the release build (scripts/bench.sh makes it): the server
(target/release/toolwright), the bench helper (target/release/toolwright-bench,
built from bench/) and the site (target/site). Loopback only; a few minutes in all.
"""

import http.server
import json
import math
import threading
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
SERVER = TARGET / "release" / "toolwright"
HELPER = TARGET / "release" / "toolwright-bench"
ADDR = os.environ.get("BENCH_ADDR", "127.0.0.1:3400")
BASE = f"http://{ADDR}"
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
SECONDS = int(os.environ.get("BENCH_SECONDS", "5"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "1"))
# `/healthz` is asked this many times a second, idle and under log-ins.
STEADY_RATE = 1000
KB = 1024


def log(message):
    print(f"==> {message}", file=sys.stderr, flush=True)


def helper(*args):
    out = subprocess.run([str(HELPER), *args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def wrk(path, connections, threads, headers=(), script=None, env=None, seconds=SECONDS, warm=True, base=BASE):
    """One measured wrk run (as fast as the server answers), after a warm-up
    of WARMUP seconds of the same load (not measured): the floors between
    the runs write the database from another process, which empties the
    server's caches of it — a cold start the server, the file's only
    writer, never has otherwise."""
    if warm:
        wrk(path, connections, threads, headers, script, env, WARMUP, warm=False, base=base)
        if script == "save.lua":
            env = dict(env, BENCH_REVISIONS=revision_list(settled_revisions(env["BENCH_DATABASE"])))
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", str(ROOT / "bench" / script)]
    command.append(base + path)
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))}
    for label, key in (("50%", "p50_ms"), ("99%", "p99_ms")):
        match = re.search(rf"^\s+{re.escape(label)}\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
        result[key] = float(match.group(1)) * UNITS[match.group(2)]
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    result["errors"] = int(non_2xx.group(1)) if non_2xx else 0
    failed = re.search(r"FAILED_\w+ (\d+)", out)
    if failed:
        result["errors"] += int(failed.group(1))
    return result


def steady(path):
    """`path` asked STEADY_RATE times a second over 4 connections by oha for
    SECONDS, after WARMUP seconds of the same. With --latency-correction a
    request is timed from when it was due, not from when a free connection
    sent it, so a stall counts for every request due while it lasts."""
    def run(seconds):
        command = ["oha", "--no-tui", "--output-format", "json", "-z", f"{seconds}s",
                   "-q", str(STEADY_RATE), "--latency-correction", "-c", "4", "-t", "10s", BASE + path]
        return json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)

    run(WARMUP)
    out = run(SECONDS)
    p99 = out["latencyPercentiles"].get("p99")
    # Answers other than 200 and failed requests; those cut off by the end
    # of the run are not the server's.
    errors = sum(n for status, n in out.get("statusCodeDistribution", {}).items() if status != "200")
    errors += sum(n for error, n in out.get("errorDistribution", {}).items() if error != "aborted due to deadline")
    return {"p99_ms": p99 * 1000 if p99 is not None else math.nan,
            "rps": out["summary"]["requestsPerSec"], "errors": errors}


class StubApp(http.server.BaseHTTPRequestHandler):
    """A Mentra app's `/tool` that answers at once, for tools/call."""
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = b'{"status":"success","reply":"Done"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class StubServer(http.server.ThreadingHTTPServer):
    # The default backlog of 5 refuses connections under the load.
    request_queue_size = 256


def start_stub_app():
    stub = StubServer(("127.0.0.1", 0), StubApp)
    threading.Thread(target=stub.serve_forever, daemon=True).start()
    return stub, f"http://127.0.0.1:{stub.server_address[1]}"


def journey():
    """A new developer's first visit in a cold browser (end2end/bench/journey.mjs):
    the bytes it transferred, in all and for each step; `None` if it failed."""
    try:
        out = subprocess.run(["node", "bench/journey.mjs", BASE], cwd=ROOT / "end2end",
                             capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        log("the first visit did not finish in 5 minutes")
        return None
    if out.returncode != 0:
        log(f"the first visit failed:\n{out.stderr.strip()}")
        return None
    return json.loads(out.stdout)


def revision_list(revisions):
    return ",".join(f"{k}={v}" for k, v in revisions.items())


def settled_revisions(database):
    """The apps' revisions once the saves still under way when wrk stopped
    have landed (a save from an older revision would be refused)."""
    last = helper("revisions", database)
    while True:
        time.sleep(0.2)
        now = helper("revisions", database)
        if now == last:
            return now
        last = now


def fetch(path, headers=None, data=None):
    request = urllib.request.Request(BASE + path, data=data, headers=headers or {})
    with urllib.request.urlopen(request) as response:
        return response.read(), response.headers


def wait_until_up(seconds):
    """Waits for the server to answer /healthz (then a first request may
    still fail, and says why)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            fetch("/healthz")
            return
        except OSError:
            time.sleep(0.1)


def log_in():
    """The bench developer's session cookie."""
    body = "email=bench%40example.com&password=correct+horse+battery+staple".encode()
    _, headers = fetch("/api/login", {"Accept": "application/json",
                                      "Content-Type": "application/x-www-form-urlencoded"}, body)
    return next(v.split(";")[0] for k, v in headers.items() if k.lower() == "set-cookie"
                and v.startswith("toolwright_session="))


def start_standin():
    """The test suite's stand-in model server (end2end/fixtures/model-standin.cjs)."""
    proc = subprocess.Popen(["node", str(ROOT / "end2end" / "fixtures" / "model-standin.cjs"), "0"],
                            stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().split()[1])
    return proc, f"http://127.0.0.1:{port}"


def prepare_evals(cookie, org, standin_url):
    """The provider "Standin" of the bench organization, and a case for each
    activation phrase of bench.app00's tools, made as a developer would."""
    form = {"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie}
    provider = urllib.parse.urlencode({"slug": org, "name": "Standin", "base_url": f"{standin_url}/v1",
                                       "model": "standin", "api_key": "sk-bench-standin"})
    fetch("/api/orgs/providers/add", form, provider.encode())
    fetch("/api/evals/cases/from-phrases", form, b"package_name=bench.app00")


def eval_run(key, standin_url):
    """One run of every case of bench.app00 (one trial each) through the API,
    and the same requests sent straight to the stand-in, 4 at a time as the
    console sends them: calls per second of each."""
    urllib.request.urlopen(urllib.request.Request(f"{standin_url}/reset", method="POST")).read()
    auth = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    body, _ = fetch("/api/v1/apps/bench.app00/evals/runs", auth,
                    json.dumps({"provider": "Standin", "trials": 1}).encode())
    run_id = json.loads(body)["id"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        run = json.loads(fetch(f"/api/v1/apps/bench.app00/evals/runs/{run_id}", auth)[0])
        if run["status"] not in ("queued", "running"):
            break
        time.sleep(0.2)
    if run["status"] != "done":
        sys.exit(f"the eval run ended {run['status']}: {run.get('error')}")
    calls = run["calls"]
    console_rps = calls / (run["duration_ms"] / 1000)
    stats = json.loads(urllib.request.urlopen(f"{standin_url}/stats").read())
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as request:
        json.dump(stats["lastRequest"], request)
    command = ["oha", "--no-tui", "--output-format", "json", "-n", str(calls), "-c", "4", "-m", "POST",
               "-H", "Authorization: Bearer sk-bench-standin", "-H", "Content-Type: application/json",
               "-D", request.name, f"{standin_url}/v1/chat/completions"]
    direct = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)
    os.unlink(request.name)
    return ({"rps": console_rps, "calls": calls, "errors": 0},
            {"rps": direct["summary"]["requestsPerSec"], "errors": 0})


def main():
    for tool in ("wrk", "oha", "node"):
        if not shutil.which(tool):
            sys.exit(f"{tool} is missing: run scripts/ensure-tools.sh bench")
    for binary in (SERVER, HELPER):
        if not binary.exists():
            sys.exit(f"{binary} is missing: run scripts/bench.sh")

    work = tempfile.mkdtemp(prefix="toolwright-bench-")
    database = f"sqlite://{work}/bench.db"
    # tools/call goes to a stub app on loopback: the first app's server.
    stub, stub_url = start_stub_app()
    log("seeding 17 apps of 100 tools with 10 parameters each")
    seeded = helper("seed", database, stub_url)

    log(f"starting the release server on {ADDR}")
    env = dict(os.environ, DATABASE_URL=database, LEPTOS_SITE_ADDR=ADDR, LEPTOS_ENV="PROD",
               LEPTOS_SITE_ROOT=str(ROOT / "target" / "site"), LEPTOS_HASH_FILES="true", RUST_LOG="warn",
               # The stub app is on loopback, and the load is far over a key's usual limit.
               TOOLWRIGHT_ALLOW_PRIVATE_TARGETS="true", TOOLWRIGHT_MCP_REQUESTS_PER_MINUTE="1000000000")
    server = subprocess.Popen([str(SERVER)], cwd=ROOT, env=env)
    standin, standin_url = start_standin()
    try:
        wait_until_up(seconds=10)
        cookie = log_in()
        key = seeded["key"]
        prepare_evals(cookie, seeded["org"], standin_url)
        results = {name: [] for name in ("save", "save_floor", "export", "export_floor", "page",
                                           "steady_idle", "steady_login", "login",
                                           "mcp_list", "mcp_call", "stub_direct", "eval_run", "standin_direct")}
        # tool_001's required parameters (bench/src/main.rs: every fourth one, of
        # the types string with an enum, number, boolean); a call without them
        # ends as a tool error naming the first one missing, before the app.
        tool_call = {"toolId": "tool_001", "toolParameters": {"param_0": "low", "param_4": 3, "param_8": True},
                     "timestamp": "2026-01-01T00:00:00Z", "userId": "bench@example.com",
                     "activeSession": None}
        for run in range(1, RUNS + 1):
            log(f"run {run} of {RUNS}")
            wrk_env = dict(os.environ, BENCH_COOKIE=cookie, BENCH_DATABASE=database,
                           BENCH_REVISIONS=revision_list(settled_revisions(database)))
            results["save"].append(wrk("/", 16, 16, script="save.lua", env=wrk_env))
            results["save_floor"].append(helper("floor-save", database, "16", str(SECONDS)))
            results["export"].append(wrk("/api/v1/apps/bench.app00/config?format=mentra", 16, 2,
                                         headers=[f"Authorization: Bearer {key}"]))
            results["export_floor"].append(helper("floor-export", database, "2", str(SECONDS)))
            results["page"].append(wrk("/console/apps/bench.app00", 1, 1, headers=[f"Cookie: {cookie}"]))
            mcp_env = dict(os.environ, BENCH_KEY=key)
            results["mcp_list"].append(wrk("/mcp/bench.app00", 16, 2, script="mcp.lua", env=dict(
                mcp_env, BENCH_BODY=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))))
            results["mcp_call"].append(wrk("/mcp/bench.app00", 16, 2, script="mcp.lua", env=dict(
                mcp_env, BENCH_BODY=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                    "name": "tool_001", "arguments": tool_call["toolParameters"]}}))))
            results["stub_direct"].append(wrk("/tool", 16, 2, script="post.lua", base=stub_url,
                                              env=dict(os.environ, BENCH_BODY=json.dumps(tool_call))))
            eval_run_result, standin_result = eval_run(key, standin_url)
            results["eval_run"].append(eval_run_result)
            results["standin_direct"].append(standin_result)
            results["steady_idle"].append(steady("/healthz"))
            # 8 clients logging in without a pause (one argon2 hash each),
            # for as long as the steady load and its warm-up, and a second
            # or two to spare.
            login = subprocess.Popen(
                ["wrk", "-t8", "-c8", f"-d{SECONDS + WARMUP + 2}s", "--latency", "-s",
                 str(ROOT / "bench" / "login.lua"), BASE + "/api/login"], stdout=subprocess.PIPE, text=True)
            time.sleep(0.5)
            results["steady_login"].append(steady("/healthz"))
            login_out = login.communicate()[0]
            # A refused log-in (throttled, say) hashes nothing: the scenario
            # would not measure what it says.
            refused = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", login_out)
            results["login"].append({"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", login_out).group(1)),
                                     "refused": int(refused.group(1)) if refused else 0})
            log(f"run {run}: save p99 {results['save'][-1]['p99_ms']:.2f} ms "
                f"({results['save'][-1]['rps']:.0f}/s, in-process {results['save_floor'][-1]['rps']:.0f}/s); "
                f"page p50 {results['page'][-1]['p50_ms']:.2f} ms; /healthz p99 "
                f"{results['steady_login'][-1]['p99_ms']:.2f} ms under {results['login'][-1]['rps']:.0f} "
                f"log-ins/s against {results['steady_idle'][-1]['p99_ms']:.2f} ms idle")

        log("a new developer's first visit (Playwright, Chromium)")
        visit = journey()
        rss_kb = int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{server.pid}/status").read_text()).group(1))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        standin.kill()
        stub.shutdown()
        shutil.rmtree(work, ignore_errors=True)

    write_report(results, visit, rss_kb)


def median(runs, key):
    return statistics.median(run[key] for run in runs)


def ratio(a, b):
    return a / b if b else math.nan


def run_ratio(results, name, floor, key):
    """The median of each run's ratio against the floor of the same run (the
    machine's speed drifts between runs; a run and its floor are seconds apart)."""
    return statistics.median(ratio(a[key], b[key]) for a, b in zip(results[name], results[floor]))


def mark(ok):
    return "✅" if ok else "❌"


def kb(n):
    return f"{n / KB:.0f} KB"


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor())
    memory = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1)) / 1024 / 1024
    return f"{os.cpu_count()} cores, {cpu}, {memory:.0f} GiB, {platform.system()} {platform.release()}"


def write_report(results, visit, rss_kb):
    m = {name: {k: median(runs, k) for k in runs[0]} for name, runs in results.items()}
    save, page, export = m["save"], m["page"], m["export"]
    save_failed = sum(run["errors"] for run in results["save"])
    save_ratio = run_ratio(results, "save", "save_floor", "rps")
    export_ratio = run_ratio(results, "export", "export_floor", "rps")
    steady_ratio = run_ratio(results, "steady_login", "steady_idle", "p99_ms")
    list_ratio = run_ratio(results, "mcp_list", "export", "rps")
    call_ratio = run_ratio(results, "mcp_call", "stub_direct", "rps")
    eval_ratio = run_ratio(results, "eval_run", "standin_direct", "rps")
    mcp_failed = sum(run["errors"] for name in ("mcp_list", "mcp_call") for run in results[name])
    steady_errors = sum(run["errors"] for name in ("steady_idle", "steady_login") for run in results[name])
    refused = sum(run["refused"] for run in results["login"])

    if visit:
        total = visit["total_bytes"]
        visit_row = (f"| First visit in a cold browser: landing, sign up, new app, a tool with two parameters, "
                     f"export page, download | {kb(total)} transferred | ≤ 210 KB | {mark(total <= 210 * KB)} |")
    else:
        visit_row = ("| First visit in a cold browser: landing, sign up, new app, a tool with two parameters, "
                     "export page, download | failed (see the log of `make bench`) | ≤ 210 KB | ❌ |")
    lines = [
        "# Benchmarks",
        "",
        "Written by `make bench` (scripts/bench.py); do not edit by hand.",
        "",
        f"- Machine: {machine()}",
        f"- Date: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- Command: `make bench` — release build, SQLite seeded with 17 apps of 100 tools (10 parameters each), "
        f"loopback; medians of {RUNS} runs of {SECONDS} s",
        "",
        "| scenario | figure | target | met? |",
        "| --- | --- | --- | --- |",
        visit_row,
        f"| Save a tool, 16 concurrent editors, SQLite | p99 {save['p99_ms']:.2f} ms (p50 {save['p50_ms']:.2f} ms); "
        f"{save['rps']:.0f} saves/s, {save_ratio:.2f}× the in-process floor ({m['save_floor']['rps']:.0f}/s, "
        f"p50 {m['save_floor']['p50_ms']:.2f} ms, p99 {m['save_floor']['p99_ms']:.2f} ms)"
        + (f"; {save_failed} failed" if save_failed else "")
        + f" | p99 ≤ 25 ms | {mark(save['p99_ms'] <= 25 and save_failed == 0)} |",
        f"| App page with 100 tools, server-rendered, one connection | p50 {page['p50_ms']:.2f} ms "
        f"(p99 {page['p99_ms']:.2f} ms) | p50 ≤ 3 ms | {mark(page['p50_ms'] <= 3)} |",
        f"| Export API, 100-tool app, 16 connections | {export['rps']:.0f} req/s, {export_ratio:.2f}× the "
        f"in-process export ({m['export_floor']['rps']:.0f}/s on 2 threads) | — | — |",
        f"| MCP tools/list, 100-tool app (a page of 50), 16 connections | {m['mcp_list']['rps']:.0f} req/s "
        f"(p99 {m['mcp_list']['p99_ms']:.2f} ms), {list_ratio:.2f}× the export API above | — | — |",
        f"| MCP tools/call to a stub app on loopback, 16 connections | {m['mcp_call']['rps']:.0f} calls/s "
        f"(p99 {m['mcp_call']['p99_ms']:.2f} ms), {call_ratio:.2f}× a direct POST of the ToolCall to the stub "
        f"({m['stub_direct']['rps']:.0f}/s)"
        + (f"; {mcp_failed} failed" if mcp_failed else "")
        + " | — | — |",
        f"| Eval run of bench.app00's cases (one per activation phrase, one trial each) against the stand-in "
        f"model server | {m['eval_run']['rps']:.0f} calls/s ({m['eval_run']['calls']:.0f} calls), "
        f"{eval_ratio:.2f}× the same requests sent straight to the stand-in, 4 at a time "
        f"({m['standin_direct']['rps']:.0f}/s) | — | — |",
        f"| Server memory (RSS) after the run | {rss_kb / 1024:.1f} MB | ≤ 128 MB | {mark(rss_kb <= 128 * 1024)} |",
        f"| `/healthz` p99 at {STEADY_RATE:,} requests/s while 8 clients log in | "
        f"{m['steady_login']['p99_ms']:.2f} ms against {m['steady_idle']['p99_ms']:.2f} ms idle: "
        f"{steady_ratio:.2f}× ({m['login']['rps']:.0f} log-ins/s"
        + (f", {refused} refused" if refused else "")
        + (f"; {steady_errors} requests failed" if steady_errors else "")
        + f") | ≤ 3× idle | {mark(steady_ratio <= 3 and refused == 0 and steady_errors == 0)} |",
    ]
    if visit:
        lines += [
            "",
            "The first visit, step by step:",
            "",
            "| step | transferred | responses |",
            "| --- | --- | --- |",
        ]
        lines += [f"| {s['step']} | {kb(s['bytes'])} | {len(s['files'])} |" for s in visit["steps"]]
    lines += [
        "",
        "- Saves, the export and the app page: wrk, as fast as the server answers. `/healthz`: oha at a steady "
        "rate over 4 connections, each request timed from when it was due, so a stall counts for every request "
        "it holds up.",
        "- Floors: the same save or export done in-process by the bench helper (bench/), in the same run.",
        "- MCP: wrk POSTing one JSON-RPC request as a 2025-11-25 client (bench/mcp.lua), with the key limit "
        "raised; each tools/call is counted, sent to the stub app (Python's threaded HTTP server, bench.py) "
        "and logged. The direct POST is the same ToolCall to the same stub (bench/post.lua).",
        "- Eval run: started and read through the CI API (`/api/v1/apps/{pkg}/evals/runs`), its calls per "
        "second from its own start and end; the stand-in is the test suite's (end2end/fixtures/model-standin.cjs), "
        "and the direct figure is oha sending the run's last request as many times, 4 at a time.",
        "- First visit: Playwright driving Chromium (end2end/bench/journey.mjs); each response counted as it "
        "came over the wire, headers and compressed body, redirects and server-function calls included.",
        "",
    ]
    (ROOT / "BENCHMARKS.md").write_text("\n".join(lines))
    log("wrote BENCHMARKS.md")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
