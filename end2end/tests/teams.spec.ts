import { test, expect, type Page } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice, waitForHydration } from "../fixtures/a11y";
import { PASSWORD, signUp, uniqueEmail } from "../fixtures/accounts";
import { createApp, uniquePackage } from "../fixtures/apps";
import { addTool, editor, toolCard } from "../fixtures/tools";
import { createOrg, invite } from "../fixtures/orgs";

const noJs = () => test.info().project.use.javaScriptEnabled === false;

/** Chooses `role` in a member's row: at once with JavaScript, with "Change role" without. */
async function chooseRole(page: Page, email: string, role: "admin" | "member") {
  const members = page.getByRole("region", { name: "Members", exact: true });
  await members.getByLabel(`Role of ${email}`, { exact: true }).selectOption(role);
  if (noJs()) {
    await members
      .getByRole("row")
      .filter({ hasText: email })
      .getByRole("button", { name: "Change role", exact: true })
      .click();
  }
}

test("an admin invites, the new developer signs up through the link, edits, and the admin sees it @js-only", async ({
  page,
  browser,
}) => {
  // Two developers, two browsers, an axe check on each page: a long journey.
  test.slow();
  const admin = await signUp(page);
  const orgName = `Acme ${Date.now().toString(36)}`;
  const orgPath = await createOrg(page, orgName);
  await expectNoSeriousA11yViolations(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Team Todo", serverUrl: "https://todo.example.com" });
  await addTool(page, { id: "add_todo", description: "Add a new to-do item" });

  const memberEmail = uniqueEmail("member");
  const link = await invite(page, orgPath, memberEmail, "member");
  await expectNoSeriousA11yViolations(page);

  // The second developer, in a browser of their own, opens the link logged out.
  const other = await browser.newContext();
  const second = await other.newPage();
  await second.goto(link);
  await expect(second.getByRole("heading", { level: 1 })).toHaveText(`Join ${orgName}`);
  await expect(second.getByText("member", { exact: true })).toBeVisible();
  await expect(second.getByRole("button", { name: "Join", exact: true })).toHaveCount(0);
  await expectNoSeriousA11yViolations(second);
  await second.getByRole("link", { name: "Sign up", exact: true }).click();
  await second.getByLabel("Email", { exact: true }).fill(memberEmail);
  await second.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await second.getByRole("button", { name: "Create account", exact: true }).click();
  await expect(second).toHaveURL(new URL(link).pathname);
  await expectNoSeriousA11yViolations(second);
  await second.getByRole("button", { name: "Join", exact: true }).click();
  await expect(second).toHaveURL(/\/console\/apps\?joined=/);
  await expect(second.getByLabel("Organization", { exact: true })).toHaveValue(orgPath.split("/").pop()!);

  // The member edits the tool.
  await second.getByRole("link", { name: "Team Todo", exact: true }).click();
  await waitForHydration(second, "section.tools[data-hydrated]");
  await toolCard(second, "add_todo").getByRole("button", { name: "Edit", exact: true }).click();
  await editor(second).getByLabel("Description", { exact: true }).first().fill("Edited by the member");
  await editor(second).getByRole("button", { name: "Save tool", exact: true }).click();
  await expect(pageNotice(second)).toHaveText("Saved tool add_todo.");

  // A member sees the members, without their controls, and no invitations.
  await second.goto(orgPath);
  const members = second.getByRole("region", { name: "Members", exact: true });
  await expect(members.getByRole("row").filter({ hasText: admin })).toBeVisible();
  await expect(members.getByRole("combobox")).toHaveCount(0);
  await expect(members.getByRole("button", { name: `Remove ${admin}`, exact: true })).toHaveCount(0);
  await expect(second.getByRole("region", { name: "Invitations", exact: true })).toHaveCount(0);
  await expectNoSeriousA11yViolations(second);

  // The admin sees the change and its author in the history.
  await page.goto(`/console/apps/${packageName}/history`);
  const latest = page.getByRole("listitem").filter({ hasText: "Edited tool add_todo" }).first();
  await expect(latest).toContainText(memberEmail);

  // Removed (after confirming), the member no longer finds the app.
  await page.goto(orgPath);
  page.once("dialog", (dialog) => dialog.accept());
  await page
    .getByRole("region", { name: "Members", exact: true })
    .getByRole("button", { name: `Remove ${memberEmail}`, exact: true })
    .click();
  await expect(pageNotice(page)).toContainText(`Removed ${memberEmail}`);
  const gone = await second.goto(`/console/apps/${packageName}`);
  expect(gone?.status()).toBe(404);
  await expect(second.getByRole("heading", { level: 1 })).toHaveText("Not found");
  // What they did stays in the history.
  await page.goto(`/console/apps/${packageName}/history`);
  await expect(page.getByRole("listitem").filter({ hasText: "Edited tool add_todo" }).first()).toContainText(memberEmail);
  await other.close();
});

test("roles change at once, the sole admin stays admin, and links say when they no longer work", async ({
  page,
  browser,
}) => {
  const admin = await signUp(page);
  const orgPath = await createOrg(page, `Roles ${Date.now().toString(36)}`);

  // The sole admin is offered neither a role change nor a removal, which
  // could only be refused; the row says why.
  const members = page.getByRole("region", { name: "Members", exact: true });
  await expect(members.getByLabel(`Role of ${admin}`, { exact: true })).toHaveCount(0);
  await expect(members.getByRole("button", { name: /^Remove/ })).toHaveCount(0);
  await expect(members.getByRole("row").filter({ hasText: admin })).toContainText("the only one");

  // A second developer joins as member and is made admin.
  const bob = uniqueEmail("bob");
  const link = await invite(page, orgPath, bob, "member");
  const other = await browser.newContext({ javaScriptEnabled: !noJs() });
  const second = await other.newPage();
  await signUp(second, bob);
  await second.goto(link);
  await second.getByRole("button", { name: "Join", exact: true }).click();
  await expect(second).toHaveURL(/\/console\/apps\?joined=/);
  await page.goto(orgPath);
  await chooseRole(page, bob, "admin");
  await expect(pageNotice(page)).toHaveText(`Changed the role of ${bob}.`);
  await expect(
    page.getByRole("region", { name: "Members", exact: true }).getByLabel(`Role of ${bob}`, { exact: true }),
  ).toHaveValue("admin");

  // The used link says so.
  await second.goto(link);
  await expect(second.getByText("This invitation link has already been used.", { exact: true })).toBeVisible();

  // A cancelled invitation's link says so; a resent one replaces the old link.
  const carol = uniqueEmail("carol");
  const first = await invite(page, orgPath, carol, "member");
  const invitations = page.getByRole("region", { name: "Invitations", exact: true });
  await invitations.getByRole("button", { name: `Resend ${carol}`, exact: true }).click();
  const fresh = await invitations.getByLabel("Invitation link", { exact: true }).inputValue();
  expect(fresh).not.toBe(first);
  await second.goto(first);
  await expect(second.getByText("This invitation link was cancelled.", { exact: true })).toBeVisible();
  await invitations.getByRole("button", { name: `Cancel ${carol}`, exact: true }).click();
  await expect(pageNotice(page)).toHaveText(`Cancelled the invitation of ${carol}.`);
  await second.goto(fresh);
  await expect(second.getByText("This invitation link was cancelled.", { exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(second);
  await other.close();
});

test("the header switches organizations, and new apps go to the current one", async ({ page }) => {
  const email = await signUp(page);
  const personal = uniquePackage("com.personal");
  await createApp(page, { packageName: personal, name: "Personal App", serverUrl: "https://p.example.com" });
  const orgPath = await createOrg(page, `Switch ${Date.now().toString(36)}`);
  const slug = orgPath.split("/").pop()!;
  const team = uniquePackage("com.team");
  await createApp(page, { packageName: team, name: "Team App", serverUrl: "https://t.example.com" });

  await page.goto("/console/apps");
  await expect(page.getByRole("link", { name: "Team App", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Personal App", exact: true })).toHaveCount(0);

  const switcher = page.getByLabel("Organization", { exact: true });
  await expect(switcher).toHaveValue(slug);
  await switcher.selectOption({ label: "Personal" });
  if (noJs()) await page.getByRole("button", { name: "Switch", exact: true }).click();
  await expect(page.getByRole("link", { name: "Personal App", exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Team App", exact: true })).toHaveCount(0);
  await expect(page.getByLabel("Organization", { exact: true })).not.toHaveValue(slug);

  // An admin of both moves the team's app to the personal organization.
  await page.goto(`/console/apps/${team}`);
  const moving = page.getByRole("region", { name: "Move to another organization", exact: true });
  await moving.getByLabel("Move to organization", { exact: true }).selectOption({ label: "Personal" });
  // Moving asks first: in a dialog with JavaScript (declined once: nothing
  // moves), on the page without.
  if (!noJs()) {
    page.once("dialog", (dialog) => dialog.dismiss());
    await moving.getByRole("button", { name: "Move app", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("");
    await expect(page).toHaveURL(new RegExp(`/console/apps/${team.replace(/\./g, "\\.")}$`));
    page.once("dialog", (dialog) => dialog.accept());
  }
  await moving.getByRole("button", { name: "Move app", exact: true }).click();
  if (noJs()) {
    await moving.getByRole("button", { name: "Yes, move it to Personal", exact: true }).click();
  }
  await expect(pageNotice(page)).toHaveText("Moved the app to Personal.");
  await page.goto("/console/apps");
  await expect(page.getByRole("link", { name: "Team App", exact: true })).toBeVisible();

  // "Organization settings" opens the current one's page.
  await page.getByRole("link", { name: "Organization settings", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Personal");
  await expectNoSeriousA11yViolations(page);
});
