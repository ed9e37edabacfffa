import { test, expect, type Page } from "@playwright/test";
import { expectNoSeriousA11yViolations, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { uniquePackage } from "../fixtures/apps";
import { startMentraApp, type MentraApp } from "../fixtures/mentra-app";
import { holdChunks } from "../fixtures/islands";
import { toolCard } from "../fixtures/tools";

// Against a real app server built with @mentra/sdk (see fixtures/mentra-app-server.cjs).
test.describe("try a tool @js-only", () => {
  let app: MentraApp;
  test.beforeEach(async () => {
    app = await startMentraApp();
  });
  test.afterEach(() => app.stop());

  async function appWithTools(page: Page): Promise<string> {
    await signUp(page);
    const packageName = uniquePackage();
    const created = await page.request.post("/api/apps/create", {
      form: { package_name: packageName, name: "Todo App", description: "", version: "1.0.0", public_url: app.url },
      headers: { accept: "application/json" },
    });
    expect(created.ok(), await created.text()).toBeTruthy();
    const param = (name: string, param_type: string, required: boolean, allowed_values = "") => ({
      name, param_type, description: `The ${name}`, required, allowed_values,
    });
    const tools = [
      {
        tool_id: "add_todo",
        description: "Add a new to-do item",
        parameters: [
          param("todo_item", "string", true),
          param("priority", "string", false, "low, high"),
          param("count", "number", false),
          param("urgent", "boolean", false),
          param("due_date", "string", false),
        ],
      },
      { tool_id: "hand_over", description: "Let the app answer", parameters: [] },
      { tool_id: "explode", description: "Always fails", parameters: [] },
    ];
    let revision = 1;
    for (const tool of tools) {
      const draft = { activation_phrases: "", title: "", max_calls: "", hints: {}, ...tool };
      const saved = await page.request.post("/api/tools/save", { data: { package_name: packageName, revision, original_id: null, draft } });
      expect(saved.ok(), await saved.text()).toBeTruthy();
      revision = (await saved.json()).revision;
    }
    return packageName;
  }

  test("the app receives exactly what was entered and its reply is shown", async ({ page, context, baseURL }) => {
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
    const packageName = await appWithTools(page);
    await page.goto(`/console/apps/${packageName}`);
    await toolCard(page, "add_todo").getByRole("link", { name: "Try", exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`/console/apps/${packageName}/tools/add_todo/try$`));
    await waitForHydration(page, "form[data-hydrated]");
    const email = await page.getByLabel("User ID", { exact: true }).inputValue();
    expect(email).toMatch(/@example\.com$/);

    await page.getByLabel("todo_item", { exact: true }).fill("buy milk");
    await page.getByLabel("priority", { exact: true }).selectOption("high");
    await page.getByLabel("count", { exact: true }).fill("3");
    await page.getByLabel("urgent", { exact: true }).check();
    await page.getByLabel("User ID", { exact: true }).fill("user-42");

    const preview = page.getByRole("textbox", { name: "ToolCall JSON", exact: true });
    await expect(preview).toContainText('"toolId": "add_todo"');
    await expect(preview).toContainText('"count": 3');
    await expect(preview).toContainText('"urgent": true');
    await expect(preview).toContainText('"activeSession": null');
    await expect(preview).not.toContainText("due_date");
    await expectNoSeriousA11yViolations(page);

    await page.getByRole("button", { name: "Copy as curl", exact: true }).click();
    await expect(page.getByText("Copied", { exact: true })).toBeVisible();
    const curl = await page.evaluate(() => navigator.clipboard.readText());
    expect(curl).toContain(`curl -X POST '${app.url}/tool'`);
    expect(curl).toContain('"todo_item":"buy milk"');

    await page.getByRole("button", { name: "Send to app", exact: true }).click();
    const answer = page.getByRole("region", { name: "The app's answer", exact: true });
    await expect(answer).toContainText("The assistant would say:");
    await expect(answer).toContainText("Added buy milk to your list");
    await expect(answer).toContainText("HTTP 200");

    expect(app.received).toHaveLength(1);
    const call = app.received[0];
    expect(call.toolId).toBe("add_todo");
    expect(call.toolParameters).toEqual({ todo_item: "buy milk", priority: "high", count: 3, urgent: true });
    expect(call.userId).toBe("user-42");
    expect(new Date(call.timestamp).toString()).not.toBe("Invalid Date");
    await expectNoSeriousA11yViolations(page);
  });

  test("a required parameter left empty is refused before sending", async ({ page }) => {
    const packageName = await appWithTools(page);
    await page.goto(`/console/apps/${packageName}/tools/add_todo/try`);
    await waitForHydration(page, "form[data-hydrated]");
    // The preview is live from the start, with what fits so far.
    const preview = page.getByRole("textbox", { name: "ToolCall JSON", exact: true });
    await expect(preview).toContainText(`"toolId": "add_todo"`);
    await expect(page.getByText("Not ready to send")).toBeVisible();
    await page.getByRole("button", { name: "Send to app", exact: true }).click();
    await expect(page.getByLabel("todo_item", { exact: true })).toHaveAccessibleDescription(/Required: enter a value/);
    expect(app.received).toHaveLength(0);
    await page.getByLabel("todo_item", { exact: true }).fill("buy milk");
    await expect(preview).toContainText(`"todo_item": "buy milk"`);
    await expect(page.getByText("Not ready to send")).toBeHidden();
  });

  test("values entered before the form wakes are kept and sent", async ({ page }) => {
    const packageName = await appWithTools(page);
    const release = await holdChunks(page);
    await page.goto(`/console/apps/${packageName}/tools/add_todo/try`);
    await page.getByLabel("todo_item", { exact: true }).fill("buy milk");
    await page.getByLabel("priority", { exact: true }).selectOption("high");
    await page.getByLabel("count", { exact: true }).fill("3");
    await page.getByLabel("urgent", { exact: true }).check();
    await page.getByLabel("User ID", { exact: true }).fill("user-7");
    release();
    await waitForHydration(page, "form[data-hydrated]");
    await expect(page.getByLabel("todo_item", { exact: true })).toHaveValue("buy milk");
    await expect(page.getByLabel("priority", { exact: true })).toHaveValue("high");
    await expect(page.getByLabel("count", { exact: true })).toHaveValue("3");
    await expect(page.getByLabel("urgent", { exact: true })).toBeChecked();
    await expect(page.getByLabel("User ID", { exact: true })).toHaveValue("user-7");
    await page.getByRole("button", { name: "Send to app", exact: true }).click();
    await expect(page.getByRole("region", { name: "The app's answer", exact: true })).toContainText("Added buy milk to your list");
    expect(app.received).toHaveLength(1);
    expect(app.received[0].toolParameters).toEqual({ todo_item: "buy milk", priority: "high", count: 3, urgent: true });
    expect(app.received[0].userId).toBe("user-7");
  });

  test("an app that answers the user itself, and one that throws", async ({ page }) => {
    const packageName = await appWithTools(page);
    await page.goto(`/console/apps/${packageName}/tools/hand_over/try`);
    await waitForHydration(page, "form[data-hydrated]");
    await page.getByRole("button", { name: "Send to app", exact: true }).click();
    await expect(page.getByRole("region", { name: "The app's answer", exact: true })).toContainText(
      "The app answers the user itself (GIVE_APP_CONTROL_OF_TOOL_RESPONSE): the assistant stays silent.",
    );

    await page.goto(`/console/apps/${packageName}/tools/explode/try`);
    await waitForHydration(page, "form[data-hydrated]");
    await page.getByRole("button", { name: "Send to app", exact: true }).click();
    await expect(page.getByRole("alert").filter({ hasText: "The app reported an error" })).toHaveText(
      "The app reported an error: The oven is on fire",
    );
    await expect(page.getByRole("region", { name: "The app's answer", exact: true })).toContainText("HTTP 500");
  });
});
