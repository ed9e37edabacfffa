import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { seedApp } from "../fixtures/seed";

// `/docs/exports` is an HTML page of the console (SPEC.md section 6): the
// guide the export page and the checks link to, rendered from its Markdown.

test("the exports guide is a page of the console, with its tables rendered", async ({ page }) => {
  const response = await page.goto("/docs/exports");
  expect(response?.status()).toBe(200);
  expect(response?.headers()["content-type"], "the guide is served as HTML").toMatch(/^text\/html/);
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expect(page.getByRole("banner").getByRole("link", { name: "Toolwright", exact: true })).toBeVisible();
  // The guide's Markdown tables are tables, not pipes and dashes.
  await expect(page.locator("table").first()).toBeVisible();
  await expect(page.locator("table").first().getByRole("columnheader").first()).toBeVisible();
  await expect(page.locator("body")).not.toContainText("| --- |");
  await expectNoSeriousA11yViolations(page);
});

test("a signed-in developer reaches the guide from the export page", async ({ page }) => {
  await signUp(page);
  const { packageName } = await seedApp(page, { name: "Docs App", publicUrl: "https://docs.example.com", tools: [] });
  await page.goto(`/console/apps/${packageName}/export`);
  await page.getByRole("link", { name: "What each format does with each field", exact: true }).click();
  await expect(page).toHaveURL(/\/docs\/exports$/);
  await expect(page.getByRole("banner")).toContainText("Log out");
  await expect(page.locator("table").first()).toBeVisible();
});
