import { test, expect, type Page } from "@playwright/test";
import { expectNoSeriousA11yViolations, waitForHydration, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createApp, uniquePackage } from "../fixtures/apps";
import { openUntouched } from "../fixtures/islands";
import { addTool, editor, fillParameter, parameter, toolCard, toolsSection } from "../fixtures/tools";

/** The editor's parameters are, in order, the ones named `names`. */
async function expectParameterNames(page: Page, names: string[]) {
  await expect(editor(page).getByRole("group", { name: /^Parameter \d+$/ })).toHaveCount(names.length);
  for (const [i, name] of names.entries()) {
    await expect(parameter(page, i + 1).getByLabel("Name", { exact: true })).toHaveValue(name);
  }
}

// The tool editor is an island: these run hydrated only.
test.describe("the AI Tools editor @js-only", () => {
  test.beforeEach(async ({ page }) => {
    await signUp(page);
    await createApp(page, { packageName: uniquePackage(), name: "Todo App", serverUrl: "https://todo.example.com" });
    // The editor opens only once the tools island has hydrated.
    await waitForHydration(page, "section.tools[data-hydrated]");
  });

  test("build the seed's Todo App, reload, and edit it", async ({ page }) => {
    // A long scenario (two tools, two reloads, two axe scans): on a slow
    // machine it took just over the default 30 s, with no step stuck.
    test.slow();
    await expect(toolsSection(page).getByText("No tools yet.")).toBeVisible();
    await addTool(page, {
      id: "add_todo",
      description: "Add a new to-do item",
      phrases: "add a reminder, create a todo, remind me to",
      parameters: [
        { name: "todo_item", description: "The to-do item text", required: true },
        { name: "due_date", description: "Due date in ISO format (YYYY-MM-DD)" },
      ],
    });
    await expect(pageNotice(page)).toHaveText("Saved tool add_todo.");
    await addTool(page, {
      id: "get_todos",
      description: "Get all to-do items",
      phrases: "show my todos, list my reminders",
      parameters: [{ name: "include_completed", type: "boolean", description: "Whether to include completed items" }],
    });

    await page.reload();
    await waitForHydration(page, "section.tools[data-hydrated]");
    const addCard = toolCard(page, "add_todo");
    await expect(addCard).toContainText("Add a new to-do item");
    await expect(addCard).toContainText("2 parameters");
    await expect(addCard).toContainText("add a reminder, create a todo +1 more");
    await expect(toolCard(page, "get_todos")).toContainText("1 parameter");
    await expect(toolsSection(page).getByRole("listitem")).toHaveCount(2);
    await expectNoSeriousA11yViolations(page);

    await addCard.getByRole("button", { name: "Edit", exact: true }).click();
    const form = editor(page);
    await expect(form.getByLabel("Tool ID", { exact: true })).toHaveValue("add_todo");
    await expect(form.getByLabel("Activation phrases", { exact: true })).toHaveValue("add a reminder, create a todo, remind me to");
    await expect(parameter(page, 1).getByLabel("Name", { exact: true })).toHaveValue("todo_item");
    await expect(parameter(page, 1).getByLabel("Required", { exact: true })).toBeChecked();
    await expect(parameter(page, 2).getByLabel("Required", { exact: true })).not.toBeChecked();
    await expectNoSeriousA11yViolations(page);

    await form.getByLabel("Title", { exact: true }).fill("Add a to-do");
    await form.getByLabel("Max calls", { exact: true }).fill("3");
    await form.getByLabel("Idempotent", { exact: true }).selectOption("Yes");
    await form.getByLabel("Open world", { exact: true }).selectOption("No");
    await form.getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("Saved tool add_todo.");

    await page.reload();
    await waitForHydration(page, "section.tools[data-hydrated]");
    await toolCard(page, "add_todo").getByRole("button", { name: "Edit", exact: true }).click();
    await expect(editor(page).getByLabel("Title", { exact: true })).toHaveValue("Add a to-do");
    await expect(editor(page).getByLabel("Max calls", { exact: true })).toHaveValue("3");
    await expect(editor(page).getByLabel("Idempotent", { exact: true })).toHaveValue("yes");
    await expect(editor(page).getByLabel("Open world", { exact: true })).toHaveValue("no");
    await expect(editor(page).getByLabel("Read-only", { exact: true })).toHaveValue("");
  });

  test("messy phrases are saved as their normalised list", async ({ page }) => {
    await addTool(page, { id: "messy", description: "Messy phrases", phrases: " a, ,b , A" });
    await expect(toolCard(page, "messy")).toContainText("a, b");
    await toolCard(page, "messy").getByRole("button", { name: "Edit", exact: true }).click();
    await expect(editor(page).getByLabel("Activation phrases", { exact: true })).toHaveValue("a, b");
  });

  test("invalid and duplicate tool ids are refused next to the field", async ({ page }) => {
    await addTool(page, { id: "add_todo", description: "Add a new to-do item" });

    await toolsSection(page).getByRole("button", { name: "Add tool", exact: true }).click();
    const form = editor(page);
    const id = form.getByLabel("Tool ID", { exact: true });
    await id.fill("add todo");
    await expect(id).toHaveAttribute("aria-invalid", "true");
    await expect(id).toHaveAccessibleDescription(/letters, digits, _ or -/);

    await id.fill("add_todo");
    await form.getByLabel("Description", { exact: true }).first().fill("Again");
    await expect(id).toHaveAccessibleDescription(/already has this ID/);
    await form.getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(editor(page)).toBeVisible();
    await expect(id).toBeFocused();
    await expect(toolsSection(page).getByRole("listitem")).toHaveCount(1);

    await id.fill("add_todo_2");
    await expect(id).toHaveAttribute("aria-invalid", "false");
    await form.getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(toolCard(page, "add_todo_2")).toBeVisible();
  });

  test("a save with missing fields shows every message and keeps the input", async ({ page }) => {
    await toolsSection(page).getByRole("button", { name: "Add tool", exact: true }).click();
    const form = editor(page);
    await form.getByRole("button", { name: "Add parameter", exact: true }).click();
    await parameter(page, 1).getByLabel("Name", { exact: true }).fill("bad-name");
    await form.getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(form.getByLabel("Tool ID", { exact: true })).toHaveAccessibleDescription(/Enter a tool ID/);
    await expect(form.getByLabel("Description", { exact: true }).first()).toHaveAccessibleDescription(/1 to 1024 characters/);
    await expect(parameter(page, 1).getByLabel("Name", { exact: true })).toHaveAccessibleDescription(/no hyphens/);
    await expect(parameter(page, 1).getByLabel("Description", { exact: true })).toHaveAccessibleDescription(/1 to 500/);
    await expect(parameter(page, 1).getByLabel("Name", { exact: true })).toHaveValue("bad-name");
    await expect(form.getByLabel("Tool ID", { exact: true })).toBeFocused();
    await expectNoSeriousA11yViolations(page);
  });

  test("allowed values are only for string parameters", async ({ page }) => {
    await toolsSection(page).getByRole("button", { name: "Add tool", exact: true }).click();
    const form = editor(page);
    await form.getByLabel("Tool ID", { exact: true }).fill("set_priority");
    await form.getByLabel("Description", { exact: true }).first().fill("Set a priority");
    await form.getByRole("button", { name: "Add parameter", exact: true }).click();
    await fillParameter(page, 1, { name: "level", description: "The level", allowedValues: "low, high, low" });
    const allowed = parameter(page, 1).getByLabel("Allowed values", { exact: true });
    await expect(allowed).toBeEnabled();

    await parameter(page, 1).getByLabel("Type", { exact: true }).selectOption("number");
    await expect(allowed).toBeDisabled();
    await expect(allowed).toHaveValue("");

    await parameter(page, 1).getByLabel("Type", { exact: true }).selectOption("string");
    await expect(allowed).toBeEnabled();
    await allowed.fill("low, high, low");
    await form.getByRole("button", { name: "Save tool", exact: true }).click();
    await toolCard(page, "set_priority").getByRole("button", { name: "Edit", exact: true }).click();
    await expect(parameter(page, 1).getByLabel("Allowed values", { exact: true })).toHaveValue("low, high");
  });

  test("parameters can be reordered and removed", async ({ page }) => {
    await toolsSection(page).getByRole("button", { name: "Add tool", exact: true }).click();
    const form = editor(page);
    await form.getByLabel("Tool ID", { exact: true }).fill("ordered");
    await form.getByLabel("Description", { exact: true }).first().fill("Three parameters");
    for (const [i, name] of ["first", "second", "third"].entries()) {
      await form.getByRole("button", { name: "Add parameter", exact: true }).click();
      await fillParameter(page, i + 1, { name, description: `The ${name}` });
    }
    await expect(parameter(page, 1).getByRole("button", { name: "Move up", exact: true })).toBeDisabled();
    await expect(parameter(page, 3).getByRole("button", { name: "Move down", exact: true })).toBeDisabled();

    await parameter(page, 3).getByRole("button", { name: "Move up", exact: true }).click();
    await expect(parameter(page, 2).getByLabel("Name", { exact: true })).toHaveValue("third");
    await expect(parameter(page, 3).getByLabel("Name", { exact: true })).toHaveValue("second");
    await expect(parameter(page, 2).getByRole("button", { name: "Move up", exact: true })).toBeFocused();

    await parameter(page, 1).getByRole("button", { name: "Remove parameter", exact: true }).click();
    await expect(form.getByRole("group", { name: /^Parameter \d+$/ })).toHaveCount(2);
    await expect(parameter(page, 1).getByLabel("Name", { exact: true })).toHaveValue("third");

    await form.getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(toolCard(page, "ordered")).toBeVisible();
    await page.reload();
    await waitForHydration(page, "section.tools[data-hydrated]");
    await toolCard(page, "ordered").getByRole("button", { name: "Edit", exact: true }).click();
    await expect(parameter(page, 1).getByLabel("Name", { exact: true })).toHaveValue("third");
    await expect(parameter(page, 2).getByLabel("Name", { exact: true })).toHaveValue("second");
    await expect(editor(page).getByRole("group", { name: /^Parameter \d+$/ })).toHaveCount(2);
  });

  test("a parameter moves down, and the new order is saved", async ({ page }) => {
    await addTool(page, {
      id: "sorted",
      description: "Three parameters to sort",
      parameters: ["first", "second", "third"].map((name) => ({ name, description: `The ${name}` })),
    });
    await toolCard(page, "sorted").getByRole("button", { name: "Edit", exact: true }).click();
    await expectParameterNames(page, ["first", "second", "third"]);
    const moveDown = (n: number) => parameter(page, n).getByRole("button", { name: "Move down", exact: true });
    // Only the last parameter cannot go down.
    await expect(moveDown(1)).toBeEnabled();
    await expect(moveDown(2)).toBeEnabled();
    await expect(moveDown(3)).toBeDisabled();

    await moveDown(1).click();
    await expectParameterNames(page, ["second", "first", "third"]);
    // The focus follows the moved parameter's button.
    await expect(moveDown(2)).toBeFocused();

    await moveDown(2).click();
    await expectParameterNames(page, ["second", "third", "first"]);
    // Last now, it cannot go further down: the focus moves to its "Move up".
    await expect(moveDown(3)).toBeDisabled();
    await expect(parameter(page, 3).getByRole("button", { name: "Move up", exact: true })).toBeFocused();

    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(editor(page)).toHaveCount(0);
    await expect(pageNotice(page)).toHaveText("Saved tool sorted.");
    await page.reload();
    await waitForHydration(page, "section.tools[data-hydrated]");
    await toolCard(page, "sorted").getByRole("button", { name: "Edit", exact: true }).click();
    await expectParameterNames(page, ["second", "third", "first"]);
  });

  test("deleting a tool asks first", async ({ page }) => {
    await addTool(page, { id: "keep_me", description: "Stays" });
    await addTool(page, { id: "doomed", description: "Goes" });

    await toolCard(page, "doomed").getByRole("button", { name: "Edit", exact: true }).click();
    page.once("dialog", (dialog) => dialog.dismiss());
    await editor(page).getByRole("button", { name: "Delete tool", exact: true }).click();
    await expect(editor(page)).toBeVisible();

    page.once("dialog", (dialog) => {
      expect(dialog.message()).toContain("doomed");
      return dialog.accept();
    });
    await editor(page).getByRole("button", { name: "Delete tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("Deleted tool doomed.");
    await expect(toolCard(page, "doomed")).toHaveCount(0);
    await page.reload();
    await expect(toolCard(page, "doomed")).toHaveCount(0);
    await expect(toolCard(page, "keep_me")).toBeVisible();
  });

  test("tools can be reordered", async ({ page }) => {
    await addTool(page, { id: "alpha", description: "First" });
    await addTool(page, { id: "beta", description: "Second" });
    const tools = toolsSection(page);
    // The first card cannot go up, the last cannot go down.
    await expect(tools.getByRole("button", { name: "Move alpha up", exact: true })).toBeDisabled();
    await expect(tools.getByRole("button", { name: "Move alpha down", exact: true })).toBeEnabled();
    await expect(tools.getByRole("button", { name: "Move beta down", exact: true })).toBeDisabled();
    await tools.getByRole("button", { name: "Move beta up", exact: true }).click();
    await expect(tools.getByRole("heading", { level: 3 })).toHaveText(["beta", "alpha"]);
    // The ends follow the new order.
    await expect(tools.getByRole("button", { name: "Move beta up", exact: true })).toBeDisabled();
    await expect(tools.getByRole("button", { name: "Move beta down", exact: true })).toBeEnabled();
    await expect(tools.getByRole("button", { name: "Move alpha up", exact: true })).toBeEnabled();
    await expect(tools.getByRole("button", { name: "Move alpha down", exact: true })).toBeDisabled();
    await page.reload();
    await expect(toolsSection(page).getByRole("heading", { level: 3 })).toHaveText(["beta", "alpha"]);
  });

  test("a card shows its text as written, and its actions beside its id, down to 375 px", async ({ page }) => {
    // Markup and entities, each shown as typed only if escaped.
    const description = "Shows <b>bold</b> &amp; &lt;i&gt; & <script>alert(1)</script> as text";
    await addTool(page, { id: "markup", description, phrases: "say <hi>, a &amp; b" });
    // Drawn by the browser after the save, then by the server after a reload.
    for (const drawn of ["after the save", "after a reload"]) {
      if (drawn === "after a reload") await page.reload();
      const card = toolCard(page, "markup");
      await expect(card.getByText(description, { exact: true }), drawn).toBeVisible();
      await expect(card.getByText("No parameters · say <hi>, a &amp; b", { exact: true }), drawn).toBeVisible();
      await expect(card.locator("b, script, hi"), drawn).toHaveCount(0);
    }

    // The id and the actions share the first line; the text is below them.
    const card = toolCard(page, "markup");
    const id = (await card.getByRole("heading", { name: "markup", exact: true }).boundingBox())!;
    const edit = (await card.getByRole("button", { name: "Edit", exact: true }).boundingBox())!;
    const text = (await card.getByText(description, { exact: true }).boundingBox())!;
    expect(id.y).toBeLessThan(edit.y + edit.height);
    expect(edit.y).toBeLessThan(id.y + id.height);
    expect(text.y).toBeGreaterThanOrEqual(edit.y + edit.height);

    // At 375 px the actions may take a line of their own, but all fits
    // (the whole page: a long path in the API keys' help once widened it).
    await page.setViewportSize({ width: 375, height: 720 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    for (const name of ["Move markup up", "Move markup down", "Try", "Edit"]) {
      const action = card.getByRole(name === "Try" ? "link" : "button", { name, exact: true });
      await action.scrollIntoViewIfNeeded();
      await expect(action).toBeInViewport({ ratio: 1 });
    }
    await expectNoSeriousA11yViolations(page);
  });

  test("typing in Tool ID keeps the focus", async ({ page }) => {
    await addTool(page, { id: "a", description: "Focus" });
    await toolCard(page, "a").getByRole("button", { name: "Edit", exact: true }).click();
    const id = editor(page).getByLabel("Tool ID", { exact: true });
    await id.click();
    await id.press("End");
    await page.keyboard.type("dd_todo_item");
    await expect(id).toBeFocused();
    await expect(id).toHaveValue("add_todo_item");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(toolCard(page, "add_todo_item")).toBeVisible();
  });

  test("cancel discards the changes", async ({ page }) => {
    await addTool(page, { id: "stable", description: "Unchanged" });
    await toolCard(page, "stable").getByRole("button", { name: "Edit", exact: true }).click();
    await editor(page).getByLabel("Tool ID", { exact: true }).fill("changed");
    await editor(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(toolCard(page, "stable")).toBeVisible();
    await toolCard(page, "stable").getByRole("button", { name: "Edit", exact: true }).click();
    await expect(editor(page).getByLabel("Tool ID", { exact: true })).toHaveValue("stable");
  });

  test("the editor can be used with the keyboard alone", async ({ page }) => {
    await toolsSection(page).getByRole("button", { name: "Add tool", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(editor(page)).toBeVisible();
    await editor(page).getByLabel("Tool ID", { exact: true }).focus();
    await page.keyboard.type("keyboard_tool");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Made without a mouse");
    await editor(page).getByRole("button", { name: "Add parameter", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(parameter(page, 1).getByLabel("Name", { exact: true })).toBeFocused();
    await page.keyboard.type("query");
    await parameter(page, 1).getByLabel("Description", { exact: true }).focus();
    await page.keyboard.type("What to look for");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).focus();
    await page.keyboard.press("Enter");
    await expect(toolCard(page, "keyboard_tool")).toBeVisible();
    await expect(toolCard(page, "keyboard_tool").getByRole("button", { name: "Edit", exact: true })).toBeFocused();
  });

  test("when the app's editor cannot wake, its details still save, as a form post", async ({ page }) => {
    await page.route(/\/pkg\/.+\.wasm$/, (route) => route.abort());
    await openUntouched(page, page.url());
    const details = page.getByRole("form", { name: "App details", exact: true });
    await details.getByLabel("Name", { exact: true }).fill("Todo Offline");
    await details.getByRole("button", { name: "Save app", exact: true }).click();
    await expect(page).toHaveURL(/\?saved=1$/);
    await expect(pageNotice(page)).toHaveText("Saved.");
    await expect(details.getByLabel("Name", { exact: true })).toHaveValue("Todo Offline");
  });
});

test("without JavaScript the tools are listed and the page says editing needs it", async ({ page, browser }) => {
  test.skip(test.info().project.name !== "no-js", "about the page without JavaScript");
  // Build the tools with a hydrated browser, then look without JavaScript.
  const context = await browser.newContext({ javaScriptEnabled: true });
  const builder = await context.newPage();
  await signUp(builder);
  const packageName = uniquePackage();
  await createApp(builder, { packageName, name: "Todo App", serverUrl: "https://todo.example.com" });
  await addTool(builder, { id: "add_todo", description: "Add a new to-do item", phrases: "add a reminder" });
  const cookies = await context.cookies();
  await context.close();

  await page.context().addCookies(cookies);
  await page.goto(`/console/apps/${packageName}`);
  await expect(toolCard(page, "add_todo")).toContainText("Add a new to-do item");
  await expect(page.getByText("Adding and editing tools needs JavaScript")).toBeVisible();
  // Its buttons would do nothing here: they are not shown.
  await expect(toolsSection(page).getByRole("button", { name: "Add tool", exact: true })).toBeHidden();
  await expect(toolCard(page, "add_todo").getByRole("button", { name: "Edit", exact: true })).toBeHidden();
});
