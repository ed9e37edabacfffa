import { test, expect, type Page } from "@playwright/test";
import { PASSWORD, logIn, logOut, signUp } from "../fixtures/accounts";
import { fillNewApp, uniquePackage } from "../fixtures/apps";

// Every form keeps what was typed after a refusal, with and without
// JavaScript, except secrets, which a refused form leaves empty (SPEC.md
// section 6). Runs in both projects: without JavaScript each refusal is a
// form post that comes back from the server.

/** How many times `name` occurs in the page's address. */
function occurrences(page: Page, name: string): number {
  return page.url().split(name).length - 1;
}

test("a refused sign-up keeps the email and empties the password", async ({ page }) => {
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill("not-an-email");
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Create account", exact: true }).click();

  const email = page.getByLabel("Email", { exact: true });
  await expect(email, "the refusal is told next to Email").toHaveAttribute("aria-invalid", "true");
  await expect(page, "still on the sign-up page").toHaveURL(/\/signup/);
  await expect(page.getByRole("button", { name: "Create account", exact: true })).toBeVisible();
  await expect(email, "Email keeps what was typed").toHaveValue("not-an-email");
  await expect(page.getByLabel("Password", { exact: true }), "a refused form leaves the password empty").toHaveValue("");
});

test("a refused log-in keeps the email, empties the password, and the address does not pile up errors", async ({ page }) => {
  const email = await signUp(page);
  await logOut(page);

  await logIn(page, email, "not the right password at all");
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password");
  await expect(page.getByLabel("Email", { exact: true }), "Email keeps what was typed").toHaveValue(email);
  await expect(page.getByLabel("Password", { exact: true }), "a refused form leaves the password empty").toHaveValue("");

  // Again, from the page the refusal left.
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill("still not the right password");
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password");
  await expect(page.getByLabel("Email", { exact: true })).toHaveValue(email);
  await expect(page).toHaveURL(/\/login/);
  expect(occurrences(page, "__err"), `__err appears at most once in ${page.url()}`).toBeLessThanOrEqual(1);
  expect(occurrences(page, "__path"), `__path appears at most once in ${page.url()}`).toBeLessThanOrEqual(1);
});

test("a refused new app keeps all five fields", async ({ page }) => {
  await signUp(page);
  const typed = {
    packageName: "Bad Name",
    name: "Todo App",
    description: "Manage your to-do items, with reminders and shared lists",
    version: "2.3.4",
    serverUrl: "https://todo.example.com",
  };
  await fillNewApp(page, typed);
  const packageField = page.getByLabel("Package name", { exact: true });
  await expect(packageField, "the invalid package name is told next to its field").toHaveAttribute("aria-invalid", "true");
  await expect(packageField).toHaveValue(typed.packageName);
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue(typed.name);
  await expect(page.getByLabel("Description", { exact: true })).toHaveValue(typed.description);
  await expect(page.getByLabel("Version", { exact: true })).toHaveValue(typed.version);
  await expect(page.getByLabel("Server URL", { exact: true })).toHaveValue(typed.serverUrl);

  // Fixed, the same form creates the app.
  const packageName = uniquePackage();
  await packageField.fill(packageName);
  await page.getByRole("button", { name: "Create app", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName.replace(/\./g, "\\.")}`));
  await expect(page.getByRole("form", { name: "App details", exact: true }).getByLabel("Version", { exact: true })).toHaveValue(
    typed.version,
  );
});
