// A new developer's whole first visit, in a browser with nothing cached:
// the landing page, sign up, a new app, a tool with two parameters, the
// export page and its download. Prints what it transferred (JSON): every
// response's header and body bytes as they came over the wire (compressed,
// redirects and server-function calls included), in all and for each step.
//
//   node bench/journey.mjs http://127.0.0.1:3400     (from end2end/)
//
// `make bench` runs it against its server (scripts/bench.py).
import { chromium, expect as baseExpect } from "@playwright/test";
import http from "node:http";
import { readFileSync } from "node:fs";

const base = process.argv[2];
if (!base) {
  console.error("usage: node bench/journey.mjs BASE_URL");
  process.exit(2);
}
// Waking an island fetches its code first; on a busy machine that can take
// longer than the default five seconds.
const expect = baseExpect.configure({ timeout: 20_000 });

const PASSWORD = "correct horse battery staple";
const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const email = `journey-${unique}@example.com`;
const packageName = `com.example.journey${unique}`;

const browser = await chromium.launch({
  // Debian's Chromium, with the flags of the end-to-end tests (playwright.config.ts).
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: JSON.parse(readFileSync(new URL("../chromium-args.json", import.meta.url), "utf8")),
});

let step = "";
// Every request the page made, in order, with the step it was made in.
const requests = [];
const byRequest = new Map();

try {
  const context = await browser.newContext({ baseURL: base, acceptDownloads: true });
  const page = await context.newPage();

  page.on("request", (request) => {
    const entry = { step, request, url: request.url(), finished: false, sizes: null };
    requests.push(entry);
    byRequest.set(request, entry);
  });
  const settle = (request) => {
    const entry = byRequest.get(request);
    if (!entry || entry.finished) return;
    entry.finished = true;
    entry.sizes = transferred(request);
    // Awaited once the journey is over; a failure then fails the journey.
    entry.sizes.catch(() => {});
  };
  page.on("requestfinished", settle);
  page.on("requestfailed", settle);

  // The download, once asked for (counted apart: see countDownload).
  let downloadUrl = null;
  // What a step needs settled before the next one starts: the page and
  // everything it asked for (its islands' code included).
  const quiet = async () => {
    await page.waitForLoadState("networkidle");
    await expect.poll(() => requests.filter((r) => !r.finished && r.url !== downloadUrl).length).toBe(0);
  };

  step = "landing";
  await page.goto("/", { waitUntil: "networkidle" });
  await quiet();

  step = "sign up";
  await page.getByRole("link", { name: "Sign up", exact: true }).click();
  await page.waitForURL(/\/signup$/, { waitUntil: "networkidle" });
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  // Hydrated or not, the form gets there: before its island wakes it is a
  // plain form post.
  await page.getByRole("button", { name: "Create account", exact: true }).click();
  await page.waitForURL(/\/console\/apps$/, { waitUntil: "networkidle" });
  await quiet();

  step = "new app";
  await page.getByRole("link", { name: "New app", exact: true }).click();
  await page.waitForURL(/\/console\/apps\/new$/, { waitUntil: "networkidle" });
  await page.getByLabel("Package name", { exact: true }).fill(packageName);
  await page.getByLabel("Name", { exact: true }).fill("Todo App");
  await page.getByLabel("Description", { exact: true }).fill("Manage your to-do items");
  await page.getByLabel("Server URL", { exact: true }).fill("https://todo.example.com");
  // By the keyboard, with the pointer out of the way: the app page's island
  // wakes when the pointer comes to it, and that belongs to the next step.
  await page.mouse.move(0, 0);
  await page.getByRole("button", { name: "Create app", exact: true }).press("Enter");
  await page.waitForURL(new RegExp(`/console/apps/${packageName.replace(/\./g, "\\.")}(\\?.*)?$`), {
    waitUntil: "networkidle",
  });
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Todo App");
  await quiet();

  step = "add a tool";
  const tools = page.locator("section").filter({ has: page.getByRole("heading", { name: "AI Tools", exact: true }) });
  const editor = page.getByRole("form", { name: "Tool editor", exact: true });
  // A click before the tools island has hydrated is lost (as it would be
  // for a person, who clicks again): ask again until the editor opens.
  await expect(async () => {
    await tools.getByRole("button", { name: "Add tool", exact: true }).click({ timeout: 2_000 });
    await expect(editor).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 30_000 });
  await editor.getByLabel("Tool ID", { exact: true }).fill("add_todo");
  await editor.getByLabel("Description", { exact: true }).first().fill("Add a new to-do item");
  await editor.getByLabel("Activation phrases", { exact: true }).fill("add a reminder, create a todo, remind me to");
  const parameters = [
    ["todo_item", "The to-do item text"],
    ["due_date", "Due date in ISO format (YYYY-MM-DD)"],
  ];
  for (const [i, [name, description]] of parameters.entries()) {
    await editor.getByRole("button", { name: "Add parameter", exact: true }).click();
    const group = editor.getByRole("group", { name: `Parameter ${i + 1}`, exact: true });
    await group.getByLabel("Name", { exact: true }).fill(name);
    await group.getByLabel("Description", { exact: true }).fill(description);
  }
  await editor.getByRole("button", { name: "Save tool", exact: true }).click();
  await expect(editor).toHaveCount(0);
  await expect(
    tools.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "add_todo", exact: true }) }),
  ).toBeVisible();
  await quiet();

  step = "export page";
  await page.getByRole("link", { name: "Export", exact: true }).click();
  await page.waitForURL(/\/export(\?.*)?$/, { waitUntil: "networkidle" });
  await quiet();

  step = "download";
  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download", exact: true }).click();
  const download = await downloading;
  downloadUrl = download.url();
  // Resolves once the file is all there.
  await download.path();
  const failure = await download.failure();
  if (failure) throw new Error(`the download failed: ${failure}`);
  await quiet();
  await countDownload(context, downloadUrl);

  const steps = [];
  let total = 0;
  for (const entry of requests) {
    if (!/^https?:/.test(entry.url)) continue;
    // Playwright has them once the response is over; never having them is a bug.
    const sizes = entry.sizes && (await within(entry.sizes, 10_000, null));
    if (!sizes) throw new Error(`no sizes for ${entry.url}: was it still loading?`);
    const { headers, body, note } = sizes;
    const bytes = Math.max(0, headers + body);
    let row = steps.find((s) => s.step === entry.step);
    if (!row) steps.push((row = { step: entry.step, bytes: 0, files: [] }));
    row.bytes += bytes;
    row.files.push({ url: shortUrl(entry.url), bytes, ...(note ? { note } : {}) });
    total += bytes;
  }
  process.stdout.write(`${JSON.stringify({ total_bytes: total, steps }, null, 2)}\n`);
} finally {
  await browser.close();
  // The download asked again may have left a kept-alive connection open.
  http.globalAgent.destroy();
}

/**
 * A request's response as transferred: its head and its (encoded) body. A
 * response the browser's cache gave transferred nothing, and counts 0.
 */
async function transferred(request) {
  // Failed before any answer came: nothing was transferred.
  if (!(await request.response())) return { headers: 0, body: 0 };
  const sizes = await request.sizes();
  return { headers: sizes.responseHeadersSize, body: sizes.responseBodySize };
}

/**
 * Chromium hands a download's body to its download manager, which tells the
 * page nothing of its size: unless the page saw it, the download is asked
 * for again as the browser asked for it (its cookie, the encodings Chromium
 * accepts) and counted as it comes.
 */
async function countDownload(context, url) {
  let entry = requests.findLast((r) => r.url === url);
  const measured = entry?.finished ? await within(entry.sizes.catch(() => null), 5_000, null) : null;
  if (measured && measured.body > 0) return;
  const cookie = (await context.cookies(url)).map((c) => `${c.name}=${c.value}`).join("; ");
  const again = await fetchCounted(url, {
    accept: entry?.request.headers().accept ?? "*/*",
    "accept-encoding": "gzip, deflate, br, zstd",
    cookie,
  });
  if (again.status !== 200) throw new Error(`the download asked again answered ${again.status}`);
  if (!entry) {
    entry = { step: "download", request: null, url, finished: true, sizes: null };
    requests.push(entry);
  }
  entry.finished = true;
  entry.sizes = Promise.resolve({
    headers: measured ? measured.headers : again.headers,
    body: again.body,
    note: "body measured again",
  });
}

/** GET `url`: its status, the size of its head and of its body as sent. */
function fetchCounted(url, headers) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (response) => {
      let body = 0;
      // Node leaves the body encoded: these are the bytes the server sent.
      response.on("data", (chunk) => (body += chunk.length));
      response.on("error", reject);
      response.on("end", () => {
        let head = `HTTP/${response.httpVersion} ${response.statusCode} ${response.statusMessage}\r\n`;
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          head += `${response.rawHeaders[i]}: ${response.rawHeaders[i + 1]}\r\n`;
        }
        head += "\r\n";
        resolve({ status: response.statusCode, headers: Buffer.byteLength(head), body });
      });
    });
    request.on("error", reject);
  });
}

/** `promise`, or `fallback` if it has not settled within `ms`. */
async function within(promise, ms, fallback) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

function shortUrl(url) {
  const parsed = new URL(url);
  return parsed.origin === new URL(base).origin ? parsed.pathname + parsed.search : url;
}
