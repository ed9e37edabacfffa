import { test, expect, type Page } from "@playwright/test";
import * as path from "node:path";
import * as fs from "node:fs";
import * as os from "node:os";
import { expectNoSeriousA11yViolations, waitForHydration, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createApp, uniquePackage } from "../fixtures/apps";
import { holdChunks } from "../fixtures/islands";
import { toolCard, toolsSection } from "../fixtures/tools";

const fixtures = path.resolve(__dirname, "../../tests/fixtures");

async function openImport(page: Page): Promise<string> {
  await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Empty App", serverUrl: "https://empty.example.com" });
  await page.getByRole("link", { name: "Import", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName}/import$`));
  return packageName;
}

test.describe("import @js-only", () => {
  test("the seed's tpa_config.json imports into an empty app with both tools", async ({ page }) => {
    await openImport(page);
    await expectNoSeriousA11yViolations(page);
    await page.getByLabel("Config file", { exact: true }).setInputFiles(path.join(fixtures, "tpa_config.todo-example.json"));
    await expect(page.getByLabel("Config JSON", { exact: true })).toHaveValue(/"add_todo"/);
    await page.getByRole("button", { name: "Preview import", exact: true }).click();

    const preview = page.getByRole("region", { name: "Import preview", exact: true });
    await expect(preview).toContainText("Tools added");
    await expect(preview.getByRole("listitem").filter({ hasText: "add_todo" })).toBeVisible();
    await expect(preview.getByRole("listitem").filter({ hasText: "get_todos" })).toBeVisible();
    await expect(preview).toContainText("Name: “Empty App” → “Todo App”");
    await expectNoSeriousA11yViolations(page);

    await page.getByRole("button", { name: "Apply import", exact: true }).click();
    await expect(pageNotice(page)).toContainText("Imported. The app has 2 tools now.");
    await expect(toolCard(page, "add_todo")).toContainText("2 parameters");
    await expect(toolCard(page, "get_todos")).toContainText("1 parameter");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Todo App");

    await page.getByRole("link", { name: "History", exact: true }).click();
    await expect(page.getByText("Imported 2 tools")).toBeVisible();
  });

  test("a file with an invalid type and an invalid id shows both paths and changes nothing", async ({ page }) => {
    const packageName = await openImport(page);
    const broken = {
      name: "Broken",
      tools: [
        { id: "add todo", description: "Has a space in its id" },
        {
          id: "weather",
          description: "Weather",
          parameters: { city: { type: "text", description: "Which city" } },
        },
      ],
    };
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tw-import-")), "broken.json");
    fs.writeFileSync(file, JSON.stringify(broken, null, 2));
    await page.getByLabel("Config file", { exact: true }).setInputFiles(file);
    await page.getByRole("button", { name: "Preview import", exact: true }).click();

    const alert = page.getByRole("alert");
    await expect(alert).toContainText("This file cannot be imported: 2 problems.");
    await expect(alert).toContainText("tools[0].id");
    await expect(alert).toContainText("tools[1].parameters.city.type: must be one of string, number, boolean");
    await expect(page.getByRole("button", { name: "Apply import", exact: true })).toBeDisabled();

    await page.goto(`/console/apps/${packageName}`);
    await expect(toolsSection(page).getByText("No tools yet.")).toBeVisible();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Empty App");
  });

  test("malformed JSON shows an error in an alert", async ({ page }) => {
    await openImport(page);
    await page.getByLabel("Config JSON", { exact: true }).fill('{"tools": [ {"id": "x",, } ]}');
    await page.getByRole("button", { name: "Preview import", exact: true }).click();
    await expect(page.getByRole("alert")).toContainText("is not valid JSON");
    await expect(page.getByRole("alert")).toContainText("line 1, column");
  });

  test("text put in before the import wakes is kept", async ({ page }) => {
    const packageName = await openImport(page);
    const release = await holdChunks(page);
    await page.goto(`/console/apps/${packageName}/import`);
    const text = fs.readFileSync(path.join(fixtures, "tpa_config.todo-example.json"), "utf8");
    await page.getByLabel("Config JSON", { exact: true }).fill(text);
    release();
    await waitForHydration(page, "form[data-hydrated]");
    await expect(page.getByLabel("Config JSON", { exact: true })).toHaveValue(text);
    await page.getByRole("button", { name: "Preview import", exact: true }).click();
    await expect(page.getByRole("button", { name: "Apply import", exact: true })).toBeEnabled();
  });

  test("a file chosen before the import wakes is read once it does", async ({ page }) => {
    const packageName = await openImport(page);
    const release = await holdChunks(page);
    await page.goto(`/console/apps/${packageName}/import`);
    await page.getByLabel("Config file", { exact: true }).setInputFiles(path.join(fixtures, "tpa_config.todo-example.json"));
    release();
    await expect(page.getByLabel("Config JSON", { exact: true })).toHaveValue(/"add_todo"/);
    await page.getByRole("button", { name: "Preview import", exact: true }).click();
    await expect(page.getByRole("button", { name: "Apply import", exact: true })).toBeEnabled();
  });

  test("editing the text after a preview needs a new preview before applying", async ({ page }) => {
    await openImport(page);
    await page.getByLabel("Config JSON", { exact: true }).fill(fs.readFileSync(path.join(fixtures, "tpa_config.todo-example.json"), "utf8"));
    await page.getByRole("button", { name: "Preview import", exact: true }).click();
    await expect(page.getByRole("button", { name: "Apply import", exact: true })).toBeEnabled();
    await page.getByLabel("Config JSON", { exact: true }).press("End");
    await page.getByLabel("Config JSON", { exact: true }).pressSequentially(" ");
    await expect(page.getByRole("button", { name: "Apply import", exact: true })).toBeDisabled();
  });
});
