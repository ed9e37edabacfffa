import { test, expect, type Locator, type Page } from "@playwright/test";
import { pageNotice, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { startMentraApp, type MentraApp } from "../fixtures/mentra-app";
import { LONG_TOOLS, longApp, seedApp } from "../fixtures/seed";
import { editor, toolCard, toolsSection } from "../fixtures/tools";

// An action that opens or produces something moves the focus to it and
// brings it into view; closing gives the focus back (SPEC.md section 6).
// The editor and "Send to app" are islands: hydrated only.

/** The position of `element` and of each of its ancestors that is sticky or fixed (none expected). */
async function stickyOrFixed(element: Locator): Promise<string[]> {
  return element.evaluate((el) => {
    const found: string[] = [];
    for (let e: Element | null = el; e && e !== document.documentElement; e = e.parentElement) {
      const position = getComputedStyle(e).position;
      if (position === "sticky" || position === "fixed") {
        found.push(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ""}.${String(e.className).trim().replace(/\s+/g, ".")} is position: ${position}`);
      }
    }
    return found;
  });
}

/** An app of four tools with long descriptions and parameters: its page is several screens long. */
async function openLongApp(page: Page): Promise<string> {
  await signUp(page);
  const { packageName } = await seedApp(page, longApp());
  await page.goto(`/console/apps/${packageName}`);
  await waitForHydration(page, "section.tools[data-hydrated]");
  return packageName;
}

test.describe("focus follows what was opened @js-only", () => {
  test("Add tool focuses Tool ID in view, and Cancel gives the focus back to Add tool", async ({ page }) => {
    await openLongApp(page);
    const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
    const viewport = page.viewportSize()!;
    expect(pageHeight, "the app page is longer than the window (else this test proves little)").toBeGreaterThan(viewport.height);

    const add = toolsSection(page).getByRole("button", { name: "Add tool", exact: true });
    await add.click();
    const toolId = editor(page).getByLabel("Tool ID", { exact: true });
    await expect(toolId, "after “Add tool” the focus is on the new tool's Tool ID").toBeFocused();
    await expect(toolId, "… and Tool ID is scrolled into view").toBeInViewport();

    await editor(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(editor(page)).toHaveCount(0);
    await expect(add, "after “Cancel” the focus is back on “Add tool”").toBeFocused();
  });

  test("Edit then Cancel gives the focus back to that card's Edit", async ({ page }) => {
    await openLongApp(page);
    const id = LONG_TOOLS[2].id;
    await toolCard(page, id).getByRole("button", { name: "Edit", exact: true }).click();
    const toolId = editor(page).getByLabel("Tool ID", { exact: true });
    await expect(toolId).toHaveValue(id);
    await editor(page).getByRole("button", { name: "Cancel", exact: true }).click();
    await expect(editor(page)).toHaveCount(0);
    await expect(
      toolCard(page, id).getByRole("button", { name: "Edit", exact: true }),
      `after “Cancel” the focus is back on the “Edit” of ${id}`,
    ).toBeFocused();
  });

  test("saving a tool focuses its Edit and says so in a notice that covers nothing", async ({ page }) => {
    await openLongApp(page);
    const id = LONG_TOOLS[1].id;
    await toolCard(page, id).getByRole("button", { name: "Edit", exact: true }).click();
    await expect(editor(page).getByLabel("Tool ID", { exact: true })).toHaveValue(id);
    await editor(page)
      .getByLabel("Description", { exact: true })
      .first()
      .fill("Find the field technicians who are free and certified for the job, nearest first.");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText(`Saved tool ${id}.`);
    await expect(
      toolCard(page, id).getByRole("button", { name: "Edit", exact: true }),
      `after “Save tool” the focus is on the “Edit” of ${id}`,
    ).toBeFocused();
    expect(await stickyOrFixed(pageNotice(page)), "the notice stays in the page's flow, over nothing").toEqual([]);

    // A new tool too: the focus lands on its own "Edit".
    await toolsSection(page).getByRole("button", { name: "Add tool", exact: true }).click();
    await editor(page).getByLabel("Tool ID", { exact: true }).fill("ping");
    await editor(page).getByLabel("Description", { exact: true }).first().fill("Check that the app answers at all, for monitoring");
    await editor(page).getByRole("button", { name: "Save tool", exact: true }).click();
    await expect(pageNotice(page)).toHaveText("Saved tool ping.");
    await expect(toolCard(page, "ping").getByRole("button", { name: "Edit", exact: true })).toBeFocused();
    expect(await stickyOrFixed(pageNotice(page)), "the notice stays in the page's flow, over nothing").toEqual([]);
  });
});

test.describe("Try: the answer takes the focus @js-only", () => {
  let app: MentraApp;
  test.beforeEach(async () => {
    app = await startMentraApp();
  });
  test.afterEach(() => app.stop());

  test("after Send to app the focus is on the heading The app's answer, in view", async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 600 });
    await signUp(page);
    // The fixture's app answers "Added <todo_item> to your list" for any tool but two.
    const { packageName } = await seedApp(page, {
      name: "Todo App",
      publicUrl: app.url,
      tools: [
        {
          id: "add_todo",
          description: "Add a new to-do item",
          parameters: [
            { name: "todo_item", description: "The to-do item text", required: true },
            { name: "list", description: "Which list it goes on", allowedValues: "home, work, shopping" },
            { name: "due_date", description: "Due date in ISO format (YYYY-MM-DD)" },
            { name: "notes", description: "Anything else to remember" },
            { name: "priority", type: "number", description: "1 (highest) to 5" },
            { name: "urgent", type: "boolean", description: "Whether it is urgent" },
          ],
        },
      ],
    });
    await page.goto(`/console/apps/${packageName}/tools/add_todo/try`);
    await waitForHydration(page, "form[data-hydrated]");
    await page.getByLabel("todo_item", { exact: true }).fill("buy milk");
    await page.getByRole("button", { name: "Send to app", exact: true }).click();

    const heading = page.getByRole("heading", { name: "The app's answer", exact: true });
    await expect(page.getByRole("region", { name: "The app's answer", exact: true })).toContainText("Added buy milk to your list");
    await expect(heading, "after “Send to app” the focus is on the heading of the answer").toBeFocused();
    await expect(heading, "… and the answer is scrolled into view").toBeInViewport();
    expect(app.received).toHaveLength(1);
  });
});
