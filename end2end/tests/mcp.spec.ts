import { test, expect, type Page } from "@playwright/test";
import { execFile } from "node:child_process";
import * as path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expectNoSeriousA11yViolations, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { uniquePackage } from "../fixtures/apps";
import { startMentraApp, type MentraApp } from "../fixtures/mentra-app";

function connect(page: Page) {
  return page.getByRole("region", { name: "Connect an assistant", exact: true });
}

/** An app whose server is `url`, with the tool add_todo. */
async function appAt(page: Page, url: string): Promise<string> {
  const packageName = uniquePackage();
  const created = await page.request.post("/api/apps/create", {
    form: { package_name: packageName, name: "Todo App", description: "", version: "1.0.0", public_url: url },
    headers: { accept: "application/json" },
  });
  expect(created.ok(), await created.text()).toBeTruthy();
  const draft = {
    tool_id: "add_todo",
    description: "Add a new item to the to-do list",
    activation_phrases: "add a reminder",
    title: "Add a to-do",
    max_calls: "",
    hints: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
    parameters: [{ name: "todo_item", param_type: "string", description: "The item", required: true, allowed_values: "" }],
  };
  const saved = await page.request.post("/api/tools/save", {
    data: { package_name: packageName, revision: 1, original_id: null, draft },
  });
  expect(saved.ok(), await saved.text()).toBeTruthy();
  return packageName;
}

test.describe("a live MCP server per app @js-only", () => {
  let app: MentraApp;
  test.beforeAll(async () => {
    app = await startMentraApp();
  });
  test.afterAll(() => app.stop());

  test("the official SDK connects with a key made here, lists the export and calls a tool", async ({ page, baseURL }) => {
    const email = await signUp(page);
    const packageName = await appAt(page, app.url);
    await page.goto(`/console/apps/${packageName}`);
    await waitForHydration(page, "section.tools[data-hydrated]");

    const region = connect(page);
    const endpoint = `${baseURL}/mcp/${packageName}`;
    await expect(region.getByLabel("MCP endpoint", { exact: true })).toHaveValue(endpoint);
    await region.getByText("Claude Code", { exact: true }).click();
    await expect(region).toContainText(`claude mcp add --transport http ${packageName.split(".").pop()} ${endpoint}`);
    await region.getByRole("button", { name: "Test connection", exact: true }).click();
    await expect(region.getByRole("status")).toContainText("tools/list gives 1 tool: add_todo");
    await expectNoSeriousA11yViolations(page);

    const keys = page.getByRole("region", { name: "API keys", exact: true });
    await keys.getByLabel("Key name", { exact: true }).fill("Claude");
    await keys.getByRole("button", { name: "Create key", exact: true }).click();
    const key = await keys.getByLabel("New API key", { exact: true }).inputValue();

    const client = new Client({ name: "toolwright-e2e", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    });
    await client.connect(transport);
    try {
      const listed = await client.listTools();
      const exported = JSON.parse(
        await (await page.request.get(`/console/apps/${packageName}/export/download?format=mcp`)).text(),
      );
      expect(listed.tools).toEqual(exported.tools);

      const answer = await client.callTool({ name: "add_todo", arguments: { todo_item: "milk" } });
      expect(answer.isError).toBe(false);
      expect(answer.content).toEqual([{ type: "text", text: "Added milk to your list" }]);
      const received = app.received.find((call) => call.toolParameters.todo_item === "milk");
      expect(received).toMatchObject({ toolId: "add_todo", userId: email, toolParameters: { todo_item: "milk" } });

      const wrong = await client.callTool({ name: "add_todo", arguments: { todo_item: 3 } });
      expect(wrong.isError).toBe(true);
      expect(JSON.stringify(wrong.content)).toContain("todo_item");
    } finally {
      await client.close();
    }

    // The MCP Inspector's command line, another official client.
    const inspector = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.resolve(__dirname, "../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"), "--cli", endpoint,
          "--transport", "http", "--header", `Authorization: Bearer ${key}`, ...args],
        { timeout: 20_000 },
      );
      return JSON.parse(stdout);
    };
    const inspected = await inspector("--method", "tools/list");
    expect(inspected.tools.map((tool: { name: string }) => tool.name)).toEqual(["add_todo"]);
    const called = await inspector("--method", "tools/call", "--tool-name", "add_todo", "--tool-arg", "todo_item=eggs");
    expect(called.content).toEqual([{ type: "text", text: "Added eggs to your list" }]);

    // The calls are in the Activity list, newest first.
    await page.reload();
    const rows = page.getByRole("region", { name: "Activity", exact: true }).getByRole("row");
    await expect(rows).toHaveCount(4); // the header and three calls
    await expect(rows.nth(1)).toContainText("eggs");
    await expect(rows.nth(2)).toContainText("add_todo");
    await expect(rows.nth(2)).toContainText("Error");
    await expect(rows.nth(3)).toContainText("Added milk to your list");
    // Made with the key of the developer who created it.
    await expect(rows.nth(3)).toContainText(email);
    await expectNoSeriousA11yViolations(page);
  });
});

test("the endpoint and its set-up are server HTML, there without JavaScript too", async ({ page }) => {
  await signUp(page);
  const packageName = await appAt(page, "https://todo.example.com");
  await page.goto(`/console/apps/${packageName}`);
  const region = connect(page);
  await expect(region.getByLabel("MCP endpoint", { exact: true })).toHaveValue(new RegExp(`/mcp/${packageName.replace(/\./g, "\\.")}$`));
  await expect(region).toContainText("mcpServers");
  await expect(page.getByRole("region", { name: "Activity", exact: true })).toContainText("No calls yet");
});
