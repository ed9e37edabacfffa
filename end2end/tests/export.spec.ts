import { test, expect, type Page } from "@playwright/test";
import * as fs from "node:fs";
import { expectNoSeriousA11yViolations, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createTodoApp } from "../fixtures/apps";
import { holdChunks } from "../fixtures/islands";

const FORMATS: Array<[string, string, string]> = [
  ["mentra", "app_config.json", '"publicUrl": "https://todo.example.com"'],
  ["tpa", "tpa_config.json", '"activationPhrases"'],
  ["mcp", "mcp_tools.json", '"inputSchema"'],
  ["openai", "openai_tools.json", '"type": "function"'],
  ["anthropic", "anthropic_tools.json", '"input_schema"'],
  ["gemini", "gemini_tools.json", '"functionDeclarations"'],
  ["tambo", "tambo_tools.json", '"outputSchema"'],
];

function preview(page: Page) {
  return page.getByRole("textbox", { name: "Preview", exact: true });
}

async function openExport(page: Page): Promise<string> {
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  await page.getByRole("link", { name: "Export", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName}/export`));
  return packageName;
}

test("the preview follows the format and options @js-only", async ({ page }) => {
  await openExport(page);
  await waitForHydration(page, "form[data-hydrated]");
  await expect(page.getByLabel("Format", { exact: true })).toHaveValue("mentra");
  await expect(preview(page)).toContainText('"name": "Todo App"');
  await expectNoSeriousA11yViolations(page);

  for (const [key, file, marker] of FORMATS) {
    await page.getByLabel("Format", { exact: true }).selectOption(key);
    await expect(preview(page)).toContainText(marker);
    await expect(page.getByText(file, { exact: true })).toBeVisible();
  }

  await page.getByLabel("Format", { exact: true }).selectOption("openai");
  await expect(preview(page)).not.toContainText('"strict": true');
  await page.getByLabel("Strict mode", { exact: true }).check();
  await expect(preview(page)).toContainText('"strict": true');
  await expect(preview(page)).toContainText('"additionalProperties": false');
  await page.getByLabel("Include activation phrases in descriptions", { exact: true }).check();
  await expect(preview(page)).toContainText("Possibly activated by phrases like: add a reminder, create a todo, remind me to");

  // The address follows the choices, so a reload keeps them.
  await page.reload();
  await expect(page.getByLabel("Format", { exact: true })).toHaveValue("openai");
  await expect(page.getByLabel("Strict mode", { exact: true })).toBeChecked();
  await expect(preview(page)).toContainText('"strict": true');
});

test("Download saves the format's file with the preview's content", async ({ page }) => {
  await openExport(page);
  for (const [key, file, marker] of [FORMATS[0], FORMATS[3]]) {
    if (test.info().project.use.javaScriptEnabled === false) {
      await page.getByLabel("Format", { exact: true }).selectOption(key);
      await page.getByRole("button", { name: "Show preview", exact: true }).click();
    } else {
      await waitForHydration(page, "form[data-hydrated]");
      await page.getByLabel("Format", { exact: true }).selectOption(key);
    }
    await expect(page.getByText(file, { exact: true })).toBeVisible();
    await expect(preview(page)).toContainText(marker);
    const shown = await preview(page).textContent();
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download", exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(file);
    const saved = fs.readFileSync(await download.path(), "utf8");
    expect(saved).toBe(shown);
    expect(saved.endsWith("\n")).toBeTruthy();
  }
});

test("Copy puts the preview on the clipboard @js-only", async ({ page, context, baseURL }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  await openExport(page);
  await waitForHydration(page, "form[data-hydrated]");
  await page.getByLabel("Format", { exact: true }).selectOption("anthropic");
  await expect(preview(page)).toContainText('"input_schema"');
  await page.getByRole("button", { name: "Copy", exact: true }).click();
  await expect(page.getByText("Copied", { exact: true })).toBeVisible();
  const clipboard = await page.evaluate(() => navigator.clipboard.readText());
  expect(clipboard).toBe(await preview(page).textContent());
});

test("without JavaScript the options are a form that shows the preview", async ({ page }) => {
  test.skip(test.info().project.name !== "no-js", "the plain-form path");
  await openExport(page);
  await page.getByLabel("Format", { exact: true }).selectOption("gemini");
  await page.getByLabel("Include activation phrases in descriptions", { exact: true }).check();
  await page.getByRole("button", { name: "Show preview", exact: true }).click();
  await expect(page).toHaveURL(/format=gemini/);
  await expect(preview(page)).toContainText('"type": "STRING"');
  await expect(preview(page)).toContainText("Possibly activated by phrases like");
});

test("API keys: create one, see it once, use it, revoke it @js-only", async ({ page, request }) => {
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  // The key form belongs to the app page's island: awake before it is used.
  await waitForHydration(page);
  const keys = page.getByRole("region", { name: "API keys", exact: true });
  await expect(keys.getByText("No keys yet.")).toBeVisible();
  await keys.getByRole("button", { name: "Create key", exact: true }).click();
  await expect(keys.getByLabel("Key name", { exact: true })).toHaveAccessibleDescription(/Give the key a name/);
  await keys.getByLabel("Key name", { exact: true }).fill("CI");
  await keys.getByRole("button", { name: "Create key", exact: true }).click();
  const key = await keys.getByLabel("New API key", { exact: true }).inputValue();
  expect(key).toMatch(/^tw_[0-9a-f]{40}$/);
  await expect(keys.getByRole("cell", { name: "CI", exact: true })).toBeVisible();

  const answer = await request.get(`/api/v1/apps/${packageName}/config?format=tpa`, {
    headers: { authorization: `Bearer ${key}` },
  });
  expect(answer.status()).toBe(200);
  expect((await answer.json()).tools.map((t: { id: string }) => t.id)).toEqual(["add_todo", "get_todos"]);

  await page.reload();
  await waitForHydration(page);
  await expect(keys.getByLabel("New API key", { exact: true })).toHaveCount(0);
  await expect(keys.getByText(key)).toHaveCount(0);
  await expect(keys.getByText(`${key.slice(0, 10)}…`)).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  page.once("dialog", (dialog) => dialog.accept());
  await keys.getByRole("button", { name: "Revoke key CI", exact: true }).click();
  await expect(keys.getByText("No keys yet.")).toBeVisible();
  const refused = await request.get(`/api/v1/apps/${packageName}/config`, { headers: { authorization: `Bearer ${key}` } });
  expect(refused.status()).toBe(401);
});

test("API keys: a name typed before the section wakes is kept @js-only", async ({ page }) => {
  await signUp(page);
  const packageName = await createTodoApp(page);
  // The bundle is held from before the page loads, so the name really is
  // typed into a section still asleep (a held fetch never lets the network
  // go idle, so no openUntouched here).
  const release = await holdChunks(page);
  await page.mouse.move(0, 0);
  await page.goto(`/console/apps/${packageName}`);
  const keys = page.getByRole("region", { name: "API keys", exact: true });
  await keys.getByLabel("Key name", { exact: true }).fill("Deploy");
  await expect(page.locator("section[data-hydrated]").first()).toHaveAttribute("data-hydrated", "false");
  release();
  await waitForHydration(page, "section[data-hydrated]");
  await expect(keys.getByLabel("Key name", { exact: true })).toHaveValue("Deploy");
  await keys.getByLabel("Key name", { exact: true }).press("Enter");
  await expect(keys.getByRole("cell", { name: "Deploy", exact: true })).toBeVisible();
  await expect(keys.getByLabel("Key name", { exact: true })).toHaveValue("");
});

test("API keys need JavaScript, and say so without it", async ({ page }) => {
  test.skip(test.info().project.name !== "no-js", "about the page without JavaScript");
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  const keys = page.getByRole("region", { name: "API keys", exact: true });
  await expect(keys.getByText("Creating and revoking keys needs JavaScript.")).toBeVisible();
  await expect(keys.getByRole("button", { name: "Create key", exact: true })).toBeHidden();
});
