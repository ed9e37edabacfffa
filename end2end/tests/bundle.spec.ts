import { test, expect, type Page } from "@playwright/test";
import { signUp } from "../fixtures/accounts";
import { createTodoApp } from "../fixtures/apps";

/** The paths of the scripts and wasm the page at `path` asks for. */
async function codeFetched(page: Page, path: string): Promise<string[]> {
  const fetched: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (/\.(js|wasm)$/.test(url.pathname)) fetched.push(url.pathname);
  });
  await page.goto(path);
  await page.waitForLoadState("networkidle");
  return fetched;
}

test("pages that work as plain HTML load no script", async ({ page }) => {
  for (const path of ["/", "/signup", "/login"]) {
    expect(await codeFetched(page, path), path).toEqual([]);
  }
  const email = await signUp(page);
  // The organization pages too: their few conveniences are an inline script.
  const personal = `/console/orgs/${email.replace(/[^a-z0-9]+/g, "-")}`;
  for (const path of ["/console/apps", "/console/apps/new", "/console/orgs/new", personal]) {
    expect(await codeFetched(page, path), path).toEqual([]);
  }
});

test("the islands' code is named by its content and kept for good @js-only", async ({ page }) => {
  await signUp(page);
  const packageName = await createTodoApp(page);
  const answers: { path: string; cacheControl: string }[] = [];
  page.on("response", (response) => {
    const url = new URL(response.url());
    if (url.pathname.startsWith("/pkg/")) {
      answers.push({ path: url.pathname, cacheControl: response.headers()["cache-control"] ?? "" });
    }
  });
  await page.goto(`/console/apps/${packageName}`);
  await page.waitForLoadState("networkidle");
  const bundle = answers.filter((a) => /\.(js|wasm|css)$/.test(a.path));
  expect(bundle.map((a) => a.path.replace(/\.[A-Za-z0-9_-]{22}\./, ".HASH.")).sort()).toEqual([
    "/pkg/toolwright.HASH.css",
    "/pkg/toolwright.HASH.js",
    "/pkg/toolwright.HASH.wasm",
  ]);
  for (const answer of bundle) {
    expect(answer.cacheControl, answer.path).toBe("public, max-age=31536000, immutable");
  }
  // The favicon keeps its name: it is checked with the server each time.
  const favicon = await page.request.get("/favicon.svg");
  expect(favicon.headers()["cache-control"]).toBe("no-cache");
});
