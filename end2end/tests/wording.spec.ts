import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice } from "../fixtures/a11y";
import { signUp, uniqueEmail } from "../fixtures/accounts";
import { createOrg, currentOrgPath, invite } from "../fixtures/orgs";

// What the console calls things (SPEC.md section 6): a developer's own
// organization is "Personal", the switcher says what it is, and joining
// says what was joined. Runs with and without JavaScript.

const hydrated = () => test.info().project.use.javaScriptEnabled !== false;

test("a new developer's organization is called Personal, and its sole admin cannot remove or demote themselves", async ({ page }) => {
  const email = await signUp(page);

  const banner = page.getByRole("banner");
  await expect(banner.getByText("Organization", { exact: true }), "the switcher has a visible label").toBeVisible();
  const switcher = page.getByLabel("Organization", { exact: true });
  await expect(switcher.locator("option:checked"), "the current organization is Personal").toHaveText("Personal");

  await page.goto(await currentOrgPath(page));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Personal");
  const members = page.getByRole("region", { name: "Members", exact: true });
  const me = members.getByRole("row").filter({ hasText: email });
  await expect(me).toHaveCount(1);
  await expect(me.getByRole("button", { name: /Remove/ }), "the sole admin has no Remove on their own row").toHaveCount(0);
  await expect(me.getByRole("combobox"), "the sole admin has no role select on their own row").toHaveCount(0);
  await expectNoSeriousA11yViolations(page);
});

test("joining an organization says which one was joined", async ({ page, browser }) => {
  await signUp(page);
  const orgName = `Wording ${Date.now().toString(36)}`;
  const orgPath = await createOrg(page, orgName);
  const memberEmail = uniqueEmail("member");
  const link = await invite(page, orgPath, memberEmail);

  const context = await browser.newContext({ javaScriptEnabled: hydrated() });
  const second = await context.newPage();
  await signUp(second, memberEmail);
  await second.goto(link);
  await second.getByRole("button", { name: "Join", exact: true }).click();
  await expect(second).toHaveURL(/\/console\/apps/);
  await expect(pageNotice(second)).toHaveText(`You joined ${orgName}.`);
  await context.close();
});
