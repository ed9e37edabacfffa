import { test, expect } from "@playwright/test";
import * as path from "node:path";
import { waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { createTodoApp } from "../fixtures/apps";

const out = path.resolve(__dirname, "../../docs/screenshots");

test("the app page with its checks, and the export page", async ({ page }) => {
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  await waitForHydration(page, "section.tools[data-hydrated]");
  const tools = page.locator("section.tools");
  const checks = page.getByRole("region", { name: "Checks", exact: true });
  await expect(checks.getByRole("listitem").first()).toBeVisible();
  // The AI Tools section and the Checks below it, in one picture.
  const top = (await tools.boundingBox())!;
  const bottom = (await checks.boundingBox())!;
  await page.screenshot({
    path: path.join(out, "app-page.png"),
    fullPage: true,
    clip: { x: 0, y: top.y - 16, width: page.viewportSize()!.width, height: bottom.y + bottom.height - top.y + 32 },
  });

  await page.goto(`/console/apps/${packageName}/export?format=mcp`);
  await waitForHydration(page, "form[data-hydrated]");
  await page.screenshot({ path: path.join(out, "export-page.png"), fullPage: true });
});

test("the app page on a phone, 375 px wide", async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await signUp(page);
  const packageName = await createTodoApp(page);
  await page.goto(`/console/apps/${packageName}`);
  await waitForHydration(page, "section.tools[data-hydrated]");
  // From the header to the end of the AI Tools: what a phone shows first.
  const tools = (await page.locator("section.tools").boundingBox())!;
  await page.screenshot({
    path: path.join(out, "app-page-375.png"),
    fullPage: true,
    clip: { x: 0, y: 0, width: 375, height: tools.y + tools.height + 16 },
  });
});
