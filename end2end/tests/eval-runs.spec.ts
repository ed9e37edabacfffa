import { test, expect, type Page } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createOrg } from "../fixtures/orgs";
import { seedApp } from "../fixtures/seed";
import { addProvider, startStandin, type Standin } from "../fixtures/model-standin";

// Runs of an app's eval cases against the stand-in model server (a Chat
// Completions endpoint that picks the tool sharing the most words with the
// utterance): the score, the cases trial by trial, the confusion, a failed
// run, a cancelled one, and the score moving on the chart when a
// description changes.

const noJs = () => test.info().project.use.javaScriptEnabled === false;
const KEY = "sk-standin-e2e-key-5150";

let standin: Standin;
test.beforeEach(async () => {
  standin = await startStandin();
});
test.afterEach(() => standin.stop());

const TOOLS = [
  {
    id: "add_todo",
    description: "Add an item to the user's to-do list",
    phrases: "add milk to my list",
    parameters: [{ name: "todo_item", description: "The item", required: true }],
  },
  { id: "get_todos", description: "List the to-do items and reminders", phrases: "list my reminders" },
];

/** A developer with an organization, the provider "Standin" (`model`, `key`) and an app with cases from its phrases. */
async function ready(page: Page, model: string, key = KEY) {
  await signUp(page);
  const orgPath = await createOrg(page, `Evals ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
  await addProvider(page, orgPath, "Standin", standin.baseUrl, model, key);
  const seeded = await seedApp(page, { name: "Todo", publicUrl: "https://todo.example.com", tools: TOOLS });
  await page.goto(`/console/apps/${seeded.packageName}/evals`);
  await page.getByRole("button", { name: "Add cases from activation phrases", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Added 2 cases from the activation phrases.");
  return seeded;
}

async function startRun(page: Page, trials: string) {
  const run = page.getByRole("region", { name: "Run", exact: true });
  await run.getByLabel("Provider", { exact: true }).selectOption("Standin");
  await run.getByLabel("Trials", { exact: true }).fill(trials);
  await run.getByRole("button", { name: "Run evals", exact: true }).click();
}

/** Waits for the shown run to end: the script reloads the page, or without JavaScript "Refresh" is followed. */
async function untilRunEnds(page: Page) {
  const bar = page.getByRole("progressbar", { name: "Run progress" });
  if (noJs()) {
    // "Refresh", until the page shows the run ended.
    await expect(async () => {
      if ((await bar.count()) > 0) await page.getByRole("link", { name: "Refresh", exact: true }).click();
      await expect(bar).toHaveCount(0, { timeout: 300 });
    }).toPass({ timeout: 20_000 });
  }
  await expect(bar).toHaveCount(0, { timeout: 20_000 });
  return page.getByRole("region", { name: "Results", exact: true });
}

test("a run scores the cases, and a description that hurts shows as a drop on the chart", async ({ page }) => {
  const seeded = await ready(page, "standin");
  const results = page.getByRole("region", { name: "Results", exact: true });
  await expect(results.getByText("No runs yet.", { exact: false })).toBeVisible();

  await startRun(page, "2");
  await untilRunEnds(page);
  await expect(results.getByText("Score: 100% (4 of 4 calls)", { exact: true })).toBeVisible();
  const cases = results.getByRole("table", { name: "Cases, trial by trial" });
  await expect(cases.getByRole("row").filter({ hasText: "list my reminders" })).toContainText("get_todos, get_todos");
  await expect(cases.getByRole("row").filter({ hasText: "list my reminders" })).toContainText("2 of 2");
  const confusion = results.getByRole("table", { name: /^Confusion/ });
  await expect(confusion.getByRole("row").filter({ hasText: "add_todo" }).first()).toBeVisible();
  await expect(results.getByRole("table", { name: "Runs" }).getByRole("row")).toHaveCount(2);
  await expect(results.getByRole("img", { name: "Score by revision, oldest run first" })).toBeVisible();
  expect(await page.content()).not.toContain(KEY);
  await expectNoSeriousA11yViolations(page);

  // A description that no longer matches what users say: the model (the
  // stand-in) now sends "list my reminders" to add_todo.
  const changed = await page.request.post("/api/tools/save", {
    data: {
      package_name: seeded.packageName,
      revision: seeded.revision,
      original_id: "get_todos",
      draft: { tool_id: "get_todos", description: "Shows saved things", activation_phrases: "list my reminders", title: "", max_calls: "", hints: {}, parameters: [] },
    },
  });
  expect(changed.ok(), await changed.text()).toBeTruthy();
  await page.goto(`/console/apps/${seeded.packageName}/evals`);
  await startRun(page, "2");
  await untilRunEnds(page);
  await expect(results.getByText("Score: 50% (2 of 4 calls)", { exact: true })).toBeVisible();
  const wrong = results.getByRole("table", { name: "Cases, trial by trial" }).getByRole("row").filter({ hasText: "list my reminders" });
  await expect(wrong).toContainText("add_todo, add_todo");
  await expect(wrong).toContainText("0 of 2");
  const perTool = results.getByRole("table", { name: /^Per tool/ });
  await expect(perTool.getByRole("row").filter({ hasText: "add_todo" })).toContainText("2");
  const chart = results.getByRole("img", { name: "Score by revision, oldest run first" });
  await expect(chart.locator("circle")).toHaveCount(2);
  await expect(results.locator("#score-chart-points")).toHaveText(
    `revision ${seeded.revision}: 100%, revision ${seeded.revision + 1}: 50%`,
  );
  await expect(results.getByRole("table", { name: "Runs" }).getByRole("row")).toHaveCount(3);

  // The earlier run's results are one link away.
  await results.getByRole("table", { name: "Runs" }).getByRole("row").last().getByRole("link").click();
  await expect(page.getByRole("region", { name: "Results", exact: true }).getByText("Score: 100% (4 of 4 calls)", { exact: true })).toBeVisible();
  await expectNoSeriousA11yViolations(page);
});

test("a provider that refuses the key fails the run in words", async ({ page }) => {
  await ready(page, "standin", "bad-key-for-the-standin");
  await startRun(page, "1");
  const results = await untilRunEnds(page);
  await expect(results.getByText("The run failed: The provider answered 401: Incorrect API key provided: (the API key).", { exact: true })).toBeVisible();
  await expect(results.getByRole("table", { name: "Runs" }).getByRole("row").nth(1)).toContainText("Failed");
  expect(await page.content()).not.toContain("bad-key-for-the-standin");
  await expectNoSeriousA11yViolations(page);
});

test("a run under way shows its progress and can be cancelled", async ({ page }) => {
  // 20 calls of 3 s each, 4 at a time: 15 s unless cancelled.
  await ready(page, "standin-slow-3000");
  await startRun(page, "10");
  const bar = page.getByRole("progressbar", { name: "Run progress" });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute("max", "20");
  if (!noJs()) {
    // What "Run evals" produced has the focus: the region following the run.
    await expect(page.getByRole("region", { name: "Run", exact: true })).toBeFocused();
    // The console script follows the run without a reload.
    await expect.poll(async () => Number(await bar.getAttribute("value")), { timeout: 8_000 }).toBeGreaterThan(0);
  }
  await expectNoSeriousA11yViolations(page);
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Cancelled the run. The calls it made are kept.");
  await expect(page.getByRole("progressbar")).toHaveCount(0);
  const runs = page.getByRole("region", { name: "Results", exact: true }).getByRole("table", { name: "Runs" });
  await expect(runs.getByRole("row").nth(1)).toContainText("Cancelled");
});

test("without providers the run region says where they come from, and a refused run keeps the form", async ({ page }) => {
  await signUp(page);
  const orgPath = await createOrg(page, `Evals ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`);
  const seeded = await seedApp(page, { name: "Todo", publicUrl: "https://todo.example.com", tools: TOOLS });
  await page.goto(`/console/apps/${seeded.packageName}/evals`);
  await expect(page.getByRole("region", { name: "Run", exact: true })).toContainText("No model providers yet");
  await addProvider(page, orgPath, "Standin", standin.baseUrl, "standin", KEY);
  await page.goto(`/console/apps/${seeded.packageName}/evals`);
  // No cases yet: refused in words, with the trials typed kept.
  await startRun(page, "4");
  const run = page.getByRole("region", { name: "Run", exact: true });
  await expect(run.getByText("Add a case first", { exact: false })).toBeVisible();
  await expect(run.getByLabel("Trials", { exact: true })).toHaveValue("4");
  await run.getByLabel("Trials", { exact: true }).fill("11");
  await run.getByRole("button", { name: "Run evals", exact: true }).click();
  await expect(page.getByRole("region", { name: "Run", exact: true }).getByText("Enter a number of trials from 1 to 10")).toBeVisible();
  await expect(page.getByRole("region", { name: "Run", exact: true }).getByLabel("Trials", { exact: true })).toHaveValue("11");
});
