import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations } from "../fixtures/a11y";
import { PASSWORD, logIn, logOut, signUp, uniqueEmail } from "../fixtures/accounts";

// Every test here runs hydrated and with JavaScript disabled (see playwright.config.ts).

test("sign up, log out and log in again", async ({ page }) => {
  const email = await signUp(page);
  await expect(page.getByRole("heading", { name: "Apps", exact: true })).toBeVisible();
  await expect(page.getByRole("banner")).toContainText(email);

  await logOut(page);
  await expect(page.getByRole("link", { name: "Log in", exact: true })).toBeVisible();
  await expect(page.getByRole("button", { name: "Log out", exact: true })).toHaveCount(0);

  await logIn(page, email);
  await expect(page).toHaveURL(/\/console\/apps$/);
  await expect(page.getByRole("banner")).toContainText(email);
});

test("the landing page offers the console to a signed-in developer", async ({ page }) => {
  await signUp(page);
  await page.goto("/");
  await expect(page.getByRole("link", { name: "Console", exact: true })).toHaveAttribute("href", "/console/apps");
  await expect(page.getByRole("link", { name: "Sign up", exact: true })).toHaveCount(0);
});

test("a wrong password says Invalid email or password", async ({ page }) => {
  const email = await signUp(page);
  await logOut(page);
  await logIn(page, email, "not the right password");
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password");
  await expect(page).toHaveURL(/\/login/);
});

test("an unknown email gets the very same message", async ({ page }) => {
  await logIn(page, uniqueEmail("nobody"), PASSWORD);
  await expect(page.getByRole("alert")).toHaveText("Invalid email or password");
});

test("a visitor is sent from the console to log in, and back after it", async ({ page, browser }) => {
  await page.goto("/console/apps");
  await expect(page).toHaveURL(/\/login\?next=%2Fconsole%2Fapps$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Log in");

  // An account made elsewhere, then used from the redirected page.
  const other = await browser.newPage();
  const email = await signUp(other);
  await other.close();

  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Log in", exact: true }).click();
  await expect(page).toHaveURL(/\/console\/apps$/);
});

test("a short password and a malformed email are explained next to their fields", async ({ page }) => {
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill("not-an-email");
  await page.getByLabel("Password", { exact: true }).fill("short");
  await page.getByRole("button", { name: "Create account", exact: true }).click();

  const email = page.getByLabel("Email", { exact: true });
  const password = page.getByLabel("Password", { exact: true });
  await expect(email).toHaveAttribute("aria-invalid", "true");
  await expect(email).toHaveAccessibleDescription(/valid email address/);
  await expect(password).toHaveAttribute("aria-invalid", "true");
  await expect(password).toHaveAccessibleDescription(/12 to 128 characters/);
  await expectNoSeriousA11yViolations(page);
});

test("an email that is already registered, in any case, is refused", async ({ page }) => {
  const email = await signUp(page);
  await logOut(page);
  await page.goto("/signup");
  await page.getByLabel("Email", { exact: true }).fill(email.toUpperCase());
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Create account", exact: true }).click();
  await expect(page.getByLabel("Email", { exact: true })).toHaveAccessibleDescription(/already registered/);
});

test("the log-in and sign-up pages pass axe", async ({ page }) => {
  await page.goto("/login");
  await expectNoSeriousA11yViolations(page);
  await page.goto("/signup");
  await expectNoSeriousA11yViolations(page);
});

test("the log-in form works from the keyboard alone", async ({ page }) => {
  const email = await signUp(page);
  await logOut(page);
  await page.goto("/login");
  await page.getByLabel("Email", { exact: true }).focus();
  await page.keyboard.type(email);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Password", { exact: true })).toBeFocused();
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/console\/apps$/);
});
