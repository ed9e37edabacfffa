import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { seedApp } from "../fixtures/seed";

const noJs = () => test.info().project.use.javaScriptEnabled === false;

test("cases come from activation phrases and from the form, and are deleted after asking", async ({ page }) => {
  await signUp(page);
  const { packageName } = await seedApp(page, {
    name: "Todo",
    publicUrl: "https://todo.example.com",
    tools: [
      { id: "add_todo", description: "Add a to-do item", phrases: "add a to-do, remember this" },
      { id: "get_todos", description: "List the to-do items", phrases: "list my reminders" },
    ],
  });
  await page.goto(`/console/apps/${packageName}`);
  await page.getByRole("link", { name: "Evals", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Evals of Todo");
  const cases = page.getByRole("region", { name: "Cases", exact: true });
  await expect(cases.getByText("No cases yet.")).toBeVisible();

  await cases.getByRole("button", { name: "Add cases from activation phrases", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Added 3 cases from the activation phrases.");
  const table = page.getByRole("region", { name: "Cases", exact: true }).getByRole("table");
  await expect(table.getByRole("row").filter({ hasText: "list my reminders" })).toContainText("get_todos");

  // A refused case keeps what was typed.
  const form = page.getByRole("form", { name: "Add case", exact: true });
  await form.getByLabel("Utterance", { exact: true }).fill("hello there");
  await form.getByLabel("Expected arguments", { exact: true }).fill("[1]");
  await form.getByRole("button", { name: "Add case", exact: true }).click();
  const again = page.getByRole("form", { name: "Add case", exact: true });
  await expect(again.getByText("Write the arguments as a JSON object")).toBeVisible();
  await expect(again.getByLabel("Utterance", { exact: true })).toHaveValue("hello there");
  await again.getByLabel("Expected arguments", { exact: true }).fill("");
  await again.getByRole("button", { name: "Add case", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Added the case.");
  const hello = page.getByRole("region", { name: "Cases", exact: true }).getByRole("row").filter({ hasText: "hello there" });
  await expect(hello).toContainText("No tool");
  await expectNoSeriousA11yViolations(page);

  // Edited: the form takes the case, and saves it in place.
  await hello.getByRole("link", { name: "Edit the case “hello there”", exact: true }).click();
  const editing = page.getByRole("form", { name: "Edit case", exact: true });
  await expect(editing.getByLabel("Utterance", { exact: true })).toHaveValue("hello there");
  if (!noJs()) await expect(editing.getByLabel("Utterance", { exact: true })).toBeFocused();
  await editing.getByLabel("Utterance", { exact: true }).fill("hello again");
  await editing.getByLabel("Expected tool", { exact: true }).selectOption("get_todos");
  await editing.getByRole("button", { name: "Save case", exact: true }).click();
  await expect(pageNotice(page)).toHaveText("Saved the case.");
  const helloAgain = page.getByRole("region", { name: "Cases", exact: true }).getByRole("row").filter({ hasText: "hello again" });
  await expect(helloAgain).toContainText("get_todos");
  await expect(page.getByRole("form", { name: "Add case", exact: true })).toBeVisible();

  if (noJs()) {
    await helloAgain.getByRole("button", { name: "Delete the case “hello again”", exact: true }).click();
    await page.getByRole("button", { name: "Yes, delete the case", exact: true }).click();
  } else {
    page.once("dialog", (dialog) => dialog.accept());
    await helloAgain.getByRole("button", { name: "Delete the case “hello again”", exact: true }).click();
  }
  await expect(pageNotice(page)).toHaveText("Deleted the case.");
  await expect(page.getByRole("region", { name: "Cases", exact: true }).getByRole("row")).toHaveCount(4);
});
