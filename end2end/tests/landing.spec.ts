import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations } from "../fixtures/a11y";

test("the landing page says what Toolwright is and links to log in and sign up", async ({ page }) => {
  const response = await page.goto("/");
  expect(response?.status()).toBe(200);
  await expect(page).toHaveTitle("Toolwright");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("AI tools");
  await expect(page.getByRole("link", { name: "Log in", exact: true })).toHaveAttribute("href", "/login");
  await expect(page.getByRole("link", { name: "Sign up", exact: true })).toHaveAttribute("href", "/signup");
  await expectNoSeriousA11yViolations(page);
});

test("the server-rendered phrase preview shows the parsed example", async ({ page }) => {
  await page.goto("/");
  const chips = page.getByRole("list", { name: "Parsed phrases", exact: true }).getByRole("listitem");
  await expect(chips).toHaveText(["add a reminder", "Create a todo", "remind me to"]);
});

test("the phrase preview parses what is typed into it", async ({ page }) => {
  await page.goto("/");
  const input = page.getByLabel("Phrases to parse", { exact: true });
  await input.fill("Show my todos, show MY todos , , list my reminders");
  await page.getByRole("button", { name: "Parse", exact: true }).click();
  const chips = page.getByRole("list", { name: "Parsed phrases", exact: true }).getByRole("listitem");
  await expect(chips).toHaveText(["Show my todos", "list my reminders"]);
  await expect(page.locator("#demo-count")).toHaveText("2 phrases");
});

test("an unknown address is a 404 page", async ({ page }) => {
  const response = await page.goto("/no/such/page");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to the start page", exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});

test("the landing page is usable at 375 px wide", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 720 });
  await page.goto("/");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await expect(page.getByRole("link", { name: "Sign up", exact: true })).toBeInViewport();
});
