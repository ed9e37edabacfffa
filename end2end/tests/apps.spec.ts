import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createApp, fillNewApp, uniquePackage } from "../fixtures/apps";

// Runs hydrated and with JavaScript disabled: creating and saving are plain
// form posts without it.

test("create an app, find it in the list, open it", async ({ page }) => {
  await signUp(page);
  await expect(page.getByText("Nothing here yet.")).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("link", { name: "New app", exact: true }).click();
  await expect(page.getByLabel("Version", { exact: true })).toHaveValue("1.0.0");
  await expectNoSeriousA11yViolations(page);

  const packageName = uniquePackage();
  await createApp(page, {
    packageName,
    name: "Todo App",
    description: "Manage your to-do items",
    serverUrl: "  https://todo.example.com/ ",
  });
  await expect(pageNotice(page)).toContainText("App created");
  const details = page.getByRole("form", { name: "App details", exact: true });
  await expect(details.getByLabel("Package name", { exact: true })).toHaveValue(packageName);
  await expect(details.getByLabel("Package name", { exact: true })).toHaveAttribute("readonly", "");
  await expect(details.getByLabel("Server URL", { exact: true })).toHaveValue("https://todo.example.com");
  await expect(page.getByRole("heading", { name: "AI Tools", exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("link", { name: "Apps", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Apps", exact: true })).toBeVisible();
  const entry = page.getByRole("link", { name: "Todo App", exact: true });
  await expect(entry).toBeVisible();
  await expect(page.getByText(packageName)).toBeVisible();
  await expect(page.getByText("0 tools")).toBeVisible();
  await entry.click();
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName}$`));
});

test("edit an app, save, and find the change after a reload", async ({ page }) => {
  await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });

  const details = page.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Name", { exact: true }).fill("Todo Deluxe");
  await details.getByLabel("Description", { exact: true }).fill("Lists, reminders and more");
  await details.getByLabel("Version", { exact: true }).fill("1.1.0");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved.");

  await page.reload();
  await expect(details.getByLabel("Name", { exact: true })).toHaveValue("Todo Deluxe");
  await expect(details.getByLabel("Description", { exact: true })).toHaveValue("Lists, reminders and more");
  await expect(details.getByLabel("Version", { exact: true })).toHaveValue("1.1.0");

  // A second save from the same form works (the form follows the new revision).
  await details.getByLabel("Version", { exact: true }).fill("1.2.0");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved.");
  await page.reload();
  await expect(details.getByLabel("Version", { exact: true })).toHaveValue("1.2.0");
});

test("an invalid package name is explained next to the field and keeps what was typed", async ({ page }) => {
  await signUp(page);
  await fillNewApp(page, { packageName: "Not A Package", name: "Todo App", serverUrl: "ftp://todo.example.com" });
  const packageField = page.getByLabel("Package name", { exact: true });
  await expect(packageField).toHaveAttribute("aria-invalid", "true");
  await expect(packageField).toHaveAccessibleDescription(/lower-case letters/);
  await expect(page.getByLabel("Server URL", { exact: true })).toHaveAccessibleDescription(/http:\/\/ or https:\/\//);
  await expect(packageField).toHaveValue("Not A Package");
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Todo App");
  await expectNoSeriousA11yViolations(page);
});

test("a taken package name is refused next to the field", async ({ page, browser }) => {
  const packageName = uniquePackage();
  const other = await browser.newPage();
  await signUp(other);
  await createApp(other, { packageName, name: "First", serverUrl: "https://one.example.com" });
  await other.close();

  await signUp(page);
  await fillNewApp(page, { packageName, name: "Second", serverUrl: "https://two.example.com" });
  await expect(page.getByLabel("Package name", { exact: true })).toHaveAccessibleDescription(/already taken/);
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Second");
});

test("another developer cannot open the app's address", async ({ page, browser }) => {
  await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Private App", serverUrl: "https://private.example.com" });

  const context = await browser.newContext();
  const intruder = await context.newPage();
  await signUp(intruder);
  const response = await intruder.goto(`/console/apps/${packageName}`);
  expect(response?.status()).toBe(404);
  await expect(intruder.getByText("Private App")).toHaveCount(0);
  const unknown = await intruder.goto(`/console/apps/${packageName}x`);
  expect(unknown?.status()).toBe(404);
  await context.close();
});

test("deleting an app needs its package name typed", async ({ page }) => {
  await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Doomed App", serverUrl: "https://doomed.example.com" });

  const form = page.getByRole("form", { name: "Delete app", exact: true });
  await form.getByLabel(`Type ${packageName} to confirm`, { exact: true }).fill("nope");
  await form.getByRole("button", { name: "Delete app", exact: true }).click();
  await expect(form.getByLabel(`Type ${packageName} to confirm`, { exact: true })).toHaveAccessibleDescription(/exactly/);

  await form.getByLabel(`Type ${packageName} to confirm`, { exact: true }).fill(packageName);
  await form.getByRole("button", { name: "Delete app", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/apps\?deleted=/);
  await expect(pageNotice(page)).toContainText(`Deleted the app ${packageName}`);
  await expect(page.getByRole("link", { name: "Doomed App", exact: true })).toHaveCount(0);
});
