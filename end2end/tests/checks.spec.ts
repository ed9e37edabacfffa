import { test, expect, type Page } from "@playwright/test";
import * as path from "node:path";
import * as fs from "node:fs";
import { validateAppConfig } from "@mentra/sdk";
import { expectNoSeriousA11yViolations, waitForHydration, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createApp, createTodoApp, uniquePackage } from "../fixtures/apps";
import { editor, toolCard } from "../fixtures/tools";

const fixtures = path.resolve(__dirname, "../../tests/fixtures");
const HINTS: Array<[string, string]> = [
  ["Read-only", "readOnlyHint"],
  ["Destructive", "destructiveHint"],
  ["Idempotent", "idempotentHint"],
  ["Open world", "openWorldHint"],
];

function checks(page: Page) {
  return page.getByRole("region", { name: "Checks", exact: true });
}

function readyFor(page: Page) {
  return page.getByRole("region", { name: "Ready for", exact: true });
}

/** The MCP export of the app, as the export page's download gives it. */
async function mcpExport(page: Page, packageName: string) {
  const response = await page.request.get(`/console/apps/${packageName}/export/download?format=mcp`);
  expect(response.ok()).toBeTruthy();
  return JSON.parse(await response.text());
}

async function openTool(page: Page, id: string) {
  await waitForHydration(page, "section.tools[data-hydrated]");
  await toolCard(page, id).getByRole("button", { name: "Edit", exact: true }).click();
  await expect(editor(page)).toBeVisible();
}

test.describe("hints and checks @js-only", () => {
  test("each hint in each state reaches the MCP export as decided", async ({ page }) => {
    await signUp(page);
    const packageName = await createTodoApp(page);
    await page.goto(`/console/apps/${packageName}`);
    // Nothing decided yet: no annotations at all.
    expect((await mcpExport(page, packageName)).tools[1].annotations).toBeUndefined();

    for (const [option, value] of [["Yes", true], ["No", false], ["Not set", undefined]] as const) {
      await openTool(page, "get_todos");
      for (const [label] of HINTS) {
        await editor(page).getByLabel(label, { exact: true }).selectOption(option);
      }
      await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
      await expect(pageNotice(page)).toHaveText("Saved tool get_todos.");
      const annotations = (await mcpExport(page, packageName)).tools[1].annotations;
      if (value === undefined) {
        expect(annotations).toBeUndefined();
      } else {
        expect(annotations).toEqual(Object.fromEntries(HINTS.map(([, key]) => [key, value])));
      }
    }
    // The history tells the last change in words.
    await page.getByRole("link", { name: "History", exact: true }).click();
    await expect(page.getByText("Edited tool get_todos: Read-only: no → not set", { exact: false })).toBeVisible();
  });

  test("a finding's link opens the tool editor at its field", async ({ page }) => {
    await signUp(page);
    const packageName = await createTodoApp(page);
    await page.goto(`/console/apps/${packageName}`);
    const region = checks(page);
    // One line for the rule, a link for each tool it concerns.
    const line = region.getByRole("listitem").filter({ hasText: "Set Destructive to Yes or No" });
    await expect(line).toHaveCount(1);
    await expect(line.getByRole("link", { name: "get_todos", exact: true })).toBeVisible();
    await expectNoSeriousA11yViolations(page);

    await line.getByRole("link", { name: "add_todo", exact: true }).click();
    await expect(page).toHaveURL(/\?tool=add_todo&field=hints\.destructive/);
    await expect(editor(page)).toBeVisible();
    await expect(editor(page).getByLabel("Tool ID", { exact: true })).toHaveValue("add_todo");
    await expect(editor(page).getByLabel("Destructive", { exact: true })).toBeFocused();

    // Deciding it takes the tool off the line; the line stays for the other.
    await editor(page).getByLabel("Destructive", { exact: true }).selectOption("No");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("Saved tool add_todo.");
    await expect(line.getByRole("link", { name: "add_todo", exact: true })).toHaveCount(0);
    await expect(line.getByRole("link", { name: "get_todos", exact: true })).toBeVisible();
    // Deciding it for the other too takes the line away, and the count beside
    // "AI Tools" follows.
    const before = await region.getByRole("listitem").count();
    await openTool(page, "get_todos");
    await editor(page).getByLabel("Destructive", { exact: true }).selectOption("No");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("Saved tool get_todos.");
    await expect(line).toHaveCount(0);
    await expect(region.getByRole("listitem")).toHaveCount(before - 1);
    await expect(page.getByRole("link", { name: `${before - 1} findings`, exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "AI Tools", exact: true })).toBeVisible();
  });

  test("an imported app keeps its permissions and webview through an edit and an export", async ({ page }) => {
    await signUp(page);
    const packageName = uniquePackage();
    await createApp(page, { packageName, name: "Notes", serverUrl: "https://notes.example.com" });
    await page.getByRole("link", { name: "Import", exact: true }).click();
    const file = path.join(fixtures, "mentra-webview-notes.app_config.json");
    await page.getByLabel("Config file", { exact: true }).setInputFiles(file);
    await expect(page.getByLabel("Config JSON", { exact: true })).toHaveValue(/webviewURL/);
    await page.getByRole("button", { name: "Preview import", exact: true }).click();
    const preview = page.getByRole("region", { name: "Import preview", exact: true });
    await expect(preview).toContainText("permissions");
    await expect(preview).toContainText("webviewURL");
    await page.getByRole("button", { name: "Apply import", exact: true }).click();
    await expect(pageNotice(page)).toContainText("Imported. The app has 2 tools now.");

    await openTool(page, "take_note");
    await editor(page).getByLabel("Description", { exact: true }).first().fill("Save a voice note, with a short tag if given");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("Saved tool take_note.");

    const response = await page.request.get(`/console/apps/${packageName}/export/download?format=mentra`);
    const exported = JSON.parse(await response.text());
    const original = JSON.parse(fs.readFileSync(file, "utf8"));
    for (const key of ["permissions", "hardwareRequirements", "settings", "webviewURL"]) {
      expect(exported[key], key).toEqual(original[key]);
    }
    expect(exported.tools[0].description).toBe("Save a voice note, with a short tag if given");
    expect(exported.tools[0].confirmBeforeRun).toBe(false);
    expect(exported.tools[0].parameters.tag.maxLength).toBe(20);
    // Still what Mentra's own validator accepts.
    expect(validateAppConfig(exported)).toBe(true);
  });
});

test("the app page lists findings and the export page says what each format needs", async ({ page }) => {
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  const region = checks(page);
  await expect(region.getByRole("listitem").filter({ hasText: "get_todos" }).first()).toBeVisible();
  await expect(region.getByRole("listitem").filter({ hasText: "Read-only" }).first()).toContainText("add_todo");
  await expect(page.getByRole("heading", { name: "AI Tools", exact: true })).toBeVisible();

  await page.goto(`/console/apps/${packageName}/export`);
  const lines = readyFor(page).getByRole("listitem");
  await expect(lines).toHaveCount(7);
  for (const key of ["mentra", "tpa", "mcp", "openai", "anthropic", "gemini", "tambo"]) {
    await expect(lines.filter({ hasText: new RegExp(`^${key}\\b`) })).toHaveCount(1);
  }
  await expect(lines.filter({ hasText: /^mentra/ })).toContainText("✔");
  await expect(lines.filter({ hasText: /^mcp/ })).toContainText("blocker");
  await expect(lines.filter({ hasText: /^mcp/ })).toContainText("add_todo: Read-only, Destructive, Open world");
  await expectNoSeriousA11yViolations(page);
});

test("the checks API answers for a key and refuses without one @js-only", async ({ page }) => {
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  await waitForHydration(page, "section.tools[data-hydrated]");
  const keys = page.getByRole("region", { name: "API keys", exact: true });
  // A key limited to exports is enough for a CI job; it cannot connect an assistant.
  await keys.getByLabel("Key name", { exact: true }).fill("CI");
  await keys.getByLabel("Export only", { exact: true }).check();
  await keys.getByRole("button", { name: "Create key", exact: true }).click();
  const key = await keys.getByLabel("New API key", { exact: true }).inputValue();
  expect(key.length).toBeGreaterThan(20);
  await expect(keys.getByRole("row").filter({ hasText: "CI" })).toContainText("(export only)");
  const mcp = await page.request.post(`/mcp/${packageName}`, {
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
    data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });
  expect(mcp.status()).toBe(403);

  const url = `/api/v1/apps/${packageName}/checks`;
  const anonymous = await page.request.get(url, { headers: { cookie: "" } });
  expect(anonymous.status()).toBe(401);
  const answer = await page.request.get(url, { headers: { authorization: `Bearer ${key}` } });
  expect(answer.ok()).toBeTruthy();
  const body = await answer.json();
  expect(Object.keys(body.ready)).toEqual(["mentra", "tpa", "mcp", "openai", "anthropic", "gemini", "tambo"]);
  expect(body.ready.mcp).toBe(false);
  const destructive = body.findings.find((f: { path: string }) => f.path === "tools[0].hints.destructive");
  expect(destructive).toMatchObject({ severity: "blocker", consumers: ["mcp"] });
  expect(typeof destructive.message).toBe("string");
});
