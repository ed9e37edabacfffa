import { test, expect, type Browser, type Page } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createApp, openAppInAnotherTab, uniquePackage } from "../fixtures/apps";
import { addTool, editor, toolCard } from "../fixtures/tools";
import { seedApp } from "../fixtures/seed";

const STALE = "This app was changed elsewhere. Reload to see the latest version.";

/** Renames the app in a tab of its own (JavaScript as in this project), then closes it. */
async function renameInAnotherTab(browser: Browser, email: string, packageName: string, name: string) {
  const { context, page } = await openAppInAnotherTab(browser, email, packageName, {
    javaScriptEnabled: test.info().project.use.javaScriptEnabled,
  });
  const details = page.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Name", { exact: true }).fill(name);
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved.");
  await context.close();
}

test("two tabs edit one tool: the second save is refused and keeps its input @js-only", async ({ page, browser }) => {
  const email = await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });
  await addTool(page, { id: "add_todo", description: "Add a new to-do item" });

  const { context: other, page: second } = await openAppInAnotherTab(browser, email, packageName);
  await waitForHydration(second, "section.tools[data-hydrated]");

  // Both editors open on the tool before either saves (each page awake first:
  // a click on an editor still asleep is lost).
  await toolCard(page, "add_todo").getByRole("button", { name: "Edit", exact: true }).click();
  await expect(editor(page).getByLabel("Tool ID", { exact: true })).toHaveValue("add_todo");
  await toolCard(second, "add_todo").getByRole("button", { name: "Edit", exact: true }).click();
  await expect(editor(second).getByLabel("Tool ID", { exact: true })).toHaveValue("add_todo");

  await editor(page).getByLabel("Description", { exact: true }).first().fill("Saved by the first tab");
  await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved tool add_todo.");

  await editor(second).getByLabel("Description", { exact: true }).first().fill("Typed in the second tab");
  await editor(second).getByRole("button", { name: "Save tool", exact: true }).click();
  await expect(editor(second).getByRole("alert")).toHaveText(STALE);
  await expect(editor(second).getByLabel("Description", { exact: true }).first()).toHaveValue("Typed in the second tab");

  // Reload fetches the latest state and keeps the typed input; saving then applies it.
  await editor(second).getByRole("button", { name: "Reload", exact: true }).click();
  await expect(editor(second).getByRole("alert")).toHaveCount(0);
  await expect(editor(second).getByLabel("Description", { exact: true }).first()).toHaveValue("Typed in the second tab");
  await editor(second).getByRole("button", { name: "Save tool", exact: true }).click();
  await expect(toolCard(second, "add_todo")).toContainText("Typed in the second tab");
  await other.close();
});

test("a tool changed in another tab shows its new summary on its card here @js-only", async ({ page, browser }) => {
  const email = await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });
  await addTool(page, { id: "add_todo", description: "Add a new to-do item" });
  await addTool(page, { id: "get_todos", description: "List the to-do items" });

  const { context: other, page: second } = await openAppInAnotherTab(browser, email, packageName);
  await waitForHydration(second, "section.tools[data-hydrated]");
  await toolCard(second, "get_todos").getByRole("button", { name: "Edit", exact: true }).click();
  await editor(second).getByLabel("Description", { exact: true }).first().fill("Changed in the second tab");
  await editor(second).getByRole("button", { name: "Save tool", exact: true }).click();
  await expect(pageNotice(second)).toHaveText("Saved tool get_todos.");
  await other.close();

  // Opening another tool here finds the app newer than this page's list and
  // fetches the list: the card not being edited shows the new summary.
  await toolCard(page, "add_todo").getByRole("button", { name: "Edit", exact: true }).click();
  await expect(editor(page)).toBeVisible();
  await expect(toolCard(page, "get_todos")).toContainText("Changed in the second tab");
  await expect(toolCard(page, "get_todos")).not.toContainText("List the to-do items");
});

test("the app details form refuses a stale save and keeps the input @js-only", async ({ page, browser }) => {
  const email = await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });

  const { context: other, page: second } = await openAppInAnotherTab(browser, email, packageName, {
    javaScriptEnabled: test.info().project.use.javaScriptEnabled,
  });

  const first = page.getByRole("form", { name: "App details", exact: true });
  await first.getByLabel("Name", { exact: true }).fill("Renamed first");
  await first.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved.");

  const details = second.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Name", { exact: true }).fill("Renamed second");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(details.getByRole("alert")).toHaveText(STALE);
  await expect(details.getByLabel("Name", { exact: true })).toHaveValue("Renamed second");
  await details.getByRole("link", { name: "Reload", exact: true }).click();
  await expect(second.getByRole("form", { name: "App details", exact: true }).getByLabel("Name", { exact: true })).toHaveValue("Renamed first");
  await other.close();
});

test("after the tools were reloaded, the details form does not undo another tab's rename @js-only", async ({ page, browser }) => {
  const email = await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });
  await addTool(page, { id: "add_todo", description: "Add a new to-do item" });

  await renameInAnotherTab(browser, email, packageName, "Renamed elsewhere");

  // Opening the editor here finds the app newer and brings the tools up to
  // date; the details form still shows the name it was loaded with.
  await toolCard(page, "add_todo").getByRole("button", { name: "Edit", exact: true }).click();
  await editor(page).getByRole("button", { name: "Cancel", exact: true }).click();
  const details = page.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Description", { exact: true }).fill("Changed here");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(details.getByRole("alert")).toHaveText(STALE);
  await expect(details.getByLabel("Description", { exact: true })).toHaveValue("Changed here");
  await details.getByRole("link", { name: "Reload", exact: true }).click();
  await expect(page.getByRole("form", { name: "App details", exact: true }).getByLabel("Name", { exact: true })).toHaveValue(
    "Renamed elsewhere",
  );
});

test("the details form sent back with an error still refuses to undo another tab's rename", async ({ page, browser }) => {
  const email = await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });

  await renameInAnotherTab(browser, email, packageName, "Renamed elsewhere");

  // Without JavaScript the form comes back from the server with the error:
  // it must still be the form loaded before the rename.
  const details = page.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Version", { exact: true }).fill("not a version");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(page.getByRole("form", { name: "App details", exact: true }).getByLabel("Version", { exact: true })).toHaveAttribute(
    "aria-invalid",
    "true",
  );
  await page.getByRole("form", { name: "App details", exact: true }).getByLabel("Version", { exact: true }).fill("1.0.1");
  await page.getByRole("form", { name: "App details", exact: true }).getByRole("button", { name: "Save app", exact: true }).click();
  const refused = page.getByRole("form", { name: "App details", exact: true });
  await expect(refused.getByRole("alert")).toHaveText(STALE);
  // Refused, it still holds what was typed, and offers to reload.
  await expect(refused.getByLabel("Version", { exact: true })).toHaveValue("1.0.1");
  await expect(refused.getByRole("link", { name: "Reload", exact: true })).toBeVisible();
});

test("the details form saves on top of a tool added in another tab", async ({ page, browser }) => {
  const email = await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });

  // The tool editor needs JavaScript; this page may run without it.
  const { context: other, page: second } = await openAppInAnotherTab(browser, email, packageName, {
    javaScriptEnabled: true,
  });
  await addTool(second, { id: "add_todo", description: "Add a new to-do item" });
  await other.close();

  const details = page.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Name", { exact: true }).fill("Renamed here");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved.");
  await page.reload();
  await expect(page.getByRole("form", { name: "App details", exact: true }).getByLabel("Name", { exact: true })).toHaveValue(
    "Renamed here",
  );
  await expect(toolCard(page, "add_todo")).toBeVisible();
});

test("the history lists every change and restoring the first revision brings it back", async ({ page }) => {
  await signUp(page);
  const packageName = uniquePackage();
  await createApp(page, { packageName, name: "Original name", serverUrl: "https://todo.example.com" });
  const details = page.getByRole("form", { name: "App details", exact: true });
  await details.getByLabel("Name", { exact: true }).fill("Edited name");
  await details.getByRole("button", { name: "Save app", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved.");

  await page.getByRole("link", { name: "History", exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName}/history`));
  const revisions = page.getByRole("list").filter({ has: page.getByRole("heading", { name: /^Revision \d+(\s*current)?$/ }) });
  await expect(revisions.getByRole("listitem")).toHaveCount(2);
  await expect(revisions.getByRole("listitem").nth(0)).toContainText("Edited the app's details");
  await expect(revisions.getByRole("listitem").nth(1)).toContainText("Created the app");
  await expectNoSeriousA11yViolations(page);

  const first = revisions.getByRole("listitem").filter({ has: page.getByRole("heading", { name: /^Revision 1(\s*current)?$/ }) });
  await first.getByRole("link", { name: "View", exact: true }).click();
  await expect(page.getByRole("textbox", { name: "Revision JSON", exact: true })).toContainText('"name": "Original name"');
  await expect(page.getByLabel("Changes since this revision", { exact: true })).toContainText('-   "name": "Original name"');
  await expect(page.getByLabel("Changes since this revision", { exact: true })).toContainText('+   "name": "Edited name"');
  await expectNoSeriousA11yViolations(page);

  // Restore asks first: in a dialog with JavaScript, on the page without.
  page.once("dialog", (dialog) => dialog.accept());
  await first.getByRole("button", { name: "Restore", exact: true }).click();
  if (test.info().project.use.javaScriptEnabled === false) {
    await page.getByRole("button", { name: "Yes, restore revision 1", exact: true }).click();
  }
  await expect(pageNotice(page)).toContainText("Restored revision 1");
  await expect(revisions.getByRole("listitem")).toHaveCount(3);
  await expect(revisions.getByRole("listitem").nth(0)).toContainText("Restored revision 1");

  await page.getByRole("link", { name: "Back to the app", exact: true }).click();
  await expect(page.getByRole("form", { name: "App details", exact: true }).getByLabel("Name", { exact: true })).toHaveValue("Original name");
});

/** An app of three revisions: created, then two tools (one with allowed values). No "Added" or "Removed" in it. */
async function tripPlanner(page: Page): Promise<string> {
  await signUp(page);
  const { packageName, revision } = await seedApp(page, {
    name: "Trip Planner",
    description: "Plans trips by train",
    publicUrl: "https://trips.example.com",
    tools: [
      {
        id: "plan_trip",
        description: "Plan a trip between two stations",
        phrases: "plan a trip, how do I get to",
        parameters: [
          { name: "destination", description: "Where to go", required: true },
          { name: "travel_class", description: "Which class", allowedValues: "first, second" },
          { name: "travellers", type: "number", description: "How many people travel" },
        ],
      },
      { id: "cancel_trip", description: "Cancel a planned trip" },
    ],
  });
  expect(revision).toBe(3);
  return packageName;
}

test("only older revisions offer Restore, the diff has a legend, and the JSON speaks the export's keys", async ({ page }) => {
  const packageName = await tripPlanner(page);
  await page.goto(`/console/apps/${packageName}/history`);
  const items = page.getByRole("region", { name: "Revisions", exact: true }).getByRole("listitem");
  await expect(items).toHaveCount(3);
  await expect(items.nth(0).getByRole("button", { name: "Restore", exact: true }), "the current revision has no Restore").toHaveCount(0);
  for (const n of [1, 2]) {
    await expect(items.nth(n).getByRole("button", { name: "Restore", exact: true }), `an older revision (item ${n + 1}) has Restore`).toHaveCount(1);
  }

  // Revision 1 compared with now: a legend says which side is which.
  await page.goto(`/console/apps/${packageName}/history?revision=1`);
  const diff = page.getByLabel("Changes since this revision", { exact: true });
  await expect(diff).toBeVisible();
  const view = page.getByRole("region").filter({ has: diff });
  await expect(view.getByText(/Removed/).first(), "the diff's legend names the removed side").toBeVisible();
  await expect(view.getByText(/Added/).first(), "the diff's legend names the added side").toBeVisible();

  // The revision's JSON is in the export's words, not the database's.
  await page.goto(`/console/apps/${packageName}/history?revision=2`);
  const json = page.getByRole("textbox", { name: "Revision JSON", exact: true });
  await expect(json).toContainText('"publicUrl"');
  await expect(json).toContainText('"enum"');
  for (const internal of ["public_url", "param_type", "enum_values"]) {
    await expect(json, `the revision JSON does not show the internal key ${internal}`).not.toContainText(internal);
  }
  await expectNoSeriousA11yViolations(page);
});

test("Restore asks first: dismissed, nothing is restored; accepted, it is @js-only", async ({ page }) => {
  const packageName = await tripPlanner(page);
  await page.goto(`/console/apps/${packageName}/history`);
  const items = page.getByRole("region", { name: "Revisions", exact: true }).getByRole("listitem");
  await expect(items).toHaveCount(3);
  const first = items.filter({ has: page.getByRole("heading", { name: /^Revision 1(\s*current)?$/ }) });

  let asked = "";
  page.once("dialog", (dialog) => {
    asked = dialog.message();
    void dialog.dismiss();
  });
  await first.getByRole("button", { name: "Restore", exact: true }).click();
  await expect.poll(() => asked, { message: "Restore asks to confirm in a dialog" }).not.toBe("");
  await page.waitForLoadState("load");
  await expect(pageNotice(page)).not.toContainText("Restored revision");
  await page.goto(`/console/apps/${packageName}/history`);
  await expect(items, "dismissed, nothing was restored").toHaveCount(3);

  page.once("dialog", (dialog) => void dialog.accept());
  await first.getByRole("button", { name: "Restore", exact: true }).click();
  await expect(pageNotice(page)).toContainText("Restored revision 1");
  await expect(items).toHaveCount(4);
});
