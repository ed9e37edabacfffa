import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createOrg } from "../fixtures/orgs";

const noJs = () => test.info().project.use.javaScriptEnabled === false;
const KEY = "sk-live-abcdefghijklmnop9876";

test("an admin adds a model provider, sees only its key's end, and removes it", async ({ page }) => {
  await signUp(page);
  const orgPath = await createOrg(page, `Evals ${Date.now().toString(36)}`);
  const providers = page.getByRole("region", { name: "Model providers", exact: true });
  await expect(providers.getByText("No model providers yet.")).toBeVisible();

  // A refused form keeps what was typed, except the key.
  await providers.getByLabel("Provider name", { exact: true }).fill("OpenAI");
  await providers.getByLabel("Base URL", { exact: true }).fill("api.openai.com");
  await providers.getByLabel("Model", { exact: true }).fill("gpt-4.1-mini");
  await providers.getByLabel("API key", { exact: true }).fill(KEY);
  await providers.getByRole("button", { name: "Add provider", exact: true }).click();
  const again = page.getByRole("region", { name: "Model providers", exact: true });
  await expect(again.getByText("Enter the endpoint's base URL")).toBeVisible();
  await expect(again.getByLabel("Provider name", { exact: true })).toHaveValue("OpenAI");
  await expect(again.getByLabel("Model", { exact: true })).toHaveValue("gpt-4.1-mini");
  await expect(again.getByLabel("API key", { exact: true })).toHaveValue("");

  await again.getByLabel("Base URL", { exact: true }).fill("https://api.openai.com/v1");
  await again.getByLabel("API key", { exact: true }).fill(KEY);
  await again.getByRole("button", { name: "Add provider", exact: true }).click();
  await expect(pageNotice(page)).toContainText("Added the model provider OpenAI");
  const row = page.getByRole("region", { name: "Model providers", exact: true }).getByRole("row").filter({ hasText: "OpenAI" });
  await expect(row).toContainText("gpt-4.1-mini");
  await expect(row).toContainText("…9876");
  expect(await page.content()).not.toContain("abcdefghijklmnop");
  await expectNoSeriousA11yViolations(page);

  // Removing asks first: a dialog with JavaScript, a question without.
  if (noJs()) {
    await row.getByRole("button", { name: "Remove OpenAI", exact: true }).click();
    await page.getByRole("button", { name: "Yes, remove OpenAI", exact: true }).click();
  } else {
    page.once("dialog", (dialog) => dialog.accept());
    await row.getByRole("button", { name: "Remove OpenAI", exact: true }).click();
  }
  await expect(pageNotice(page)).toContainText("Removed the model provider OpenAI");
  await expect(page.getByRole("region", { name: "Model providers", exact: true }).getByText("No model providers yet.")).toBeVisible();
  expect(new URL(page.url()).pathname).toBe(orgPath);
});
