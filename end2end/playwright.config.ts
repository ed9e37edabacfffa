import { defineConfig } from "@playwright/test";
import * as os from "node:os";
import * as path from "node:path";
import * as fs from "node:fs";

// The server under test: the binary `make test` just built, on a throwaway
// SQLite database, on its own port so a console started with `make run` can
// keep running beside it.
const port = Number(process.env.E2E_PORT ?? 3100);
const baseURL = `http://127.0.0.1:${port}`;
const crateRoot = path.resolve(__dirname, "..");
const targetDir = process.env.CARGO_TARGET_DIR ?? path.join(crateRoot, "target");
const serverBin = process.env.TOOLWRIGHT_BIN ?? path.join(targetDir, "debug", "toolwright");
const dataDir = process.env.E2E_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-e2e-"));
const databaseUrl = process.env.E2E_DATABASE_URL ?? `sqlite://${path.join(dataDir, "e2e.db")}`;

export default defineConfig({
  testDir: "./tests",
  timeout: 30_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  workers: 2,
  forbidOnly: !!process.env.CI,
  retries: 0,
  reporter: [["list"]],
  use: {
    baseURL,
    trace: "retain-on-failure",
    launchOptions: {
      // Debian's Chromium; Playwright never downloads a browser here.
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      // Shared with the first visit `make bench` measures (bench/journey.mjs).
      args: JSON.parse(fs.readFileSync(path.join(__dirname, "chromium-args.json"), "utf8")),
    },
  },
  projects: [
    // Every spec runs hydrated …
    { name: "hydrated", use: { javaScriptEnabled: true } },
    // … and, unless it is about the islands themselves, without JavaScript:
    // the console is server-rendered and its forms are plain HTML forms.
    { name: "no-js", use: { javaScriptEnabled: false }, grepInvert: /@js-only/ },
  ],
  webServer: {
    command: `"${serverBin}"`,
    cwd: crateRoot,
    url: `${baseURL}/healthz`,
    reuseExistingServer: !!process.env.E2E_REUSE_SERVER,
    timeout: 60_000,
    stdout: "ignore",
    stderr: "pipe",
    env: {
      DATABASE_URL: databaseUrl,
      LEPTOS_SITE_ADDR: `127.0.0.1:${port}`,
      LEPTOS_SITE_ROOT: process.env.LEPTOS_SITE_ROOT ?? path.join(crateRoot, "target", "site"),
      RUST_LOG: process.env.RUST_LOG ?? "warn",
      // The bundle's file names carry their content's hash (hash.txt, beside the binary).
      LEPTOS_HASH_FILES: "true",
      // "Try a tool" calls app servers the tests start on loopback.
      TOOLWRIGHT_ALLOW_PRIVATE_TARGETS: "true",
    },
  },
});
