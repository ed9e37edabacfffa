import { test, expect, type Page } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { FOUR_TOOLS, seedApp } from "../fixtures/seed";
import { editor, toolCard } from "../fixtures/tools";

// Checks give one line per rule, naming each tool it concerns; an app
// without tools is ready for no format (SPEC.md section 6). Hints of every
// tool are decided in one form. Runs with and without JavaScript.

const HINTS = ["Read-only", "Destructive", "Idempotent", "Open world"];
const IDS = FOUR_TOOLS.map((tool) => tool.id);
const FORMATS = ["mentra", "tpa", "mcp", "openai", "anthropic", "gemini", "tambo"];

const hydrated = () => test.info().project.use.javaScriptEnabled !== false;

function checks(page: Page) {
  return page.getByRole("region", { name: "Checks", exact: true });
}

/** Signs up and opens an app of four tools, none with a hint decided. */
async function openFourTools(page: Page): Promise<string> {
  await signUp(page);
  const { packageName } = await seedApp(page, { name: "Todo App", publicUrl: "https://todo.example.com", tools: FOUR_TOOLS });
  await page.goto(`/console/apps/${packageName}`);
  if (hydrated()) await waitForHydration(page, "section.tools[data-hydrated]");
  return packageName;
}

test("one line per rule, with a link to each tool it concerns", async ({ page }) => {
  await openFourTools(page);
  const findings = checks(page).locator("li.finding");
  for (const hint of ["Read-only", "Open world"]) {
    const line = findings.filter({ hasText: `Set ${hint} to Yes or No` });
    await expect(line, `exactly one line says “Set ${hint} to Yes or No”`).toHaveCount(1);
    for (const id of IDS) {
      await expect(line.getByRole("link", { name: id, exact: true }), `the “${hint}” line links to ${id}, named by its id`).toHaveCount(1);
    }
  }
  const count = await findings.count();
  expect(count, `four tools give fewer than 10 lines of checks, not one per tool and rule (there are ${count})`).toBeLessThan(10);
  await expectNoSeriousA11yViolations(page);
});

test("an app without tools is ready for no format", async ({ page }) => {
  await signUp(page);
  const { packageName } = await seedApp(page, { name: "Empty App", publicUrl: "https://empty.example.com", tools: [] });
  await page.goto(`/console/apps/${packageName}`);
  await expect(checks(page)).toContainText("This app has no tools yet");

  await page.goto(`/console/apps/${packageName}/export`);
  const ready = page.getByRole("region", { name: "Ready for", exact: true });
  const lines = ready.getByRole("listitem");
  await expect(lines).toHaveCount(FORMATS.length);
  await expect(ready.locator(".ready"), "no format is shown as ready").toHaveCount(0);
  for (const key of FORMATS) {
    const line = lines.filter({ hasText: new RegExp(`^${key}\\b`) });
    await expect(line, `one line for ${key}`).toHaveCount(1);
    await expect(line, `${key} is not ready without tools`).not.toContainText("✔");
    await expect(line.locator(".blocked"), `${key} is shown as blocked`).toHaveCount(1);
  }
});

test("Hints of every tool: decide them all in one form", async ({ page }) => {
  const packageName = await openFourTools(page);
  // Its own page, linked from the checks (a row per tool would double a
  // large app's page).
  await checks(page).getByRole("link", { name: "Decide the hints of every tool", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName.replace(/\./g, "\\.")}/hints$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Hints of");
  const form = page.getByRole("form", { name: "Hints of every tool", exact: true });
  await expect(form).toBeVisible();
  for (const id of IDS) {
    for (const hint of HINTS) {
      const select = form.getByLabel(`${hint} of ${id}`, { exact: true });
      await expect(select, `a select “${hint} of ${id}”`).toHaveCount(1);
      await expect(select.locator("option")).toHaveText(["Not set", "Yes", "No"]);
      await expect(select.locator("option:checked"), `${hint} of ${id} starts not set`).toHaveText("Not set");
    }
  }
  await expectNoSeriousA11yViolations(page);

  for (const id of IDS) {
    await form.getByLabel(`Read-only of ${id}`, { exact: true }).selectOption({ label: "Yes" });
    await form.getByLabel(`Open world of ${id}`, { exact: true }).selectOption({ label: "No" });
  }
  await form.getByRole("button", { name: "Save hints", exact: true }).click();
  // Back on the app's page, at its checks.
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName.replace(/\./g, "\\.")}\\?hints=4#checks$`));
  await expect(pageNotice(page)).toHaveText("Saved hints.");
  const findings = checks(page).locator("li.finding");
  await expect(findings.filter({ hasText: "Set Read-only to Yes or No" }), "Read-only is decided for every tool").toHaveCount(0);
  await expect(findings.filter({ hasText: "Set Open world to Yes or No" }), "Open world is decided for every tool").toHaveCount(0);

  // Saved: the form shows them when opened again.
  await page.goto(`/console/apps/${packageName}/hints`);
  const again = page.getByRole("form", { name: "Hints of every tool", exact: true });
  for (const id of IDS) {
    await expect(again.getByLabel(`Read-only of ${id}`, { exact: true }).locator("option:checked")).toHaveText("Yes");
    await expect(again.getByLabel(`Open world of ${id}`, { exact: true }).locator("option:checked")).toHaveText("No");
  }

  // The tool editor (JavaScript only) shows the same.
  if (hydrated()) {
    await page.goto(`/console/apps/${packageName}`);
    await waitForHydration(page, "section.tools[data-hydrated]");
    await toolCard(page, IDS[0]).getByRole("button", { name: "Edit", exact: true }).click();
    await expect(editor(page).getByLabel("Tool ID", { exact: true })).toHaveValue(IDS[0]);
    await expect(editor(page).getByLabel("Read-only", { exact: true }).locator("option:checked")).toHaveText("Yes");
    await expect(editor(page).getByLabel("Open world", { exact: true }).locator("option:checked")).toHaveText("No");
  }
});
