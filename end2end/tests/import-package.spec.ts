import { test, expect } from "@playwright/test";
import { expectNoSeriousA11yViolations, pageNotice, waitForHydration } from "../fixtures/a11y";
import { signUp } from "../fixtures/accounts";
import { uniquePackage } from "../fixtures/apps";
import { seedApp } from "../fixtures/seed";

// An app's package name is immutable: an import never changes it, and the
// mentra export names the app's own package (SPEC.md section 6). Importing
// needs JavaScript (the import page says so without it).

const FOREIGN = "com.someone.else";

test("a file made for another package imports its tools and leaves the package name alone @js-only", async ({ page }) => {
  await signUp(page);
  const { packageName } = await seedApp(page, {
    packageName: uniquePackage("com.example.empty"),
    name: "Empty App",
    publicUrl: "https://empty.example.com",
    tools: [],
  });

  await page.goto(`/console/apps/${packageName}/import`);
  await waitForHydration(page, "form[data-hydrated]");
  const config = {
    packageName: FOREIGN,
    name: "X",
    version: "1.0.0",
    tools: [{ id: "ping", description: "Check that the app answers at all, for monitoring" }],
  };
  await page.getByLabel("Config JSON", { exact: true }).fill(JSON.stringify(config, null, 2));
  await page.getByRole("button", { name: "Preview import", exact: true }).click();

  const preview = page.getByRole("region", { name: "Import preview", exact: true });
  await expect(preview, "the preview says whose file it is").toContainText(`This file was made for ${FOREIGN}`);
  await expect(preview.getByText(FOREIGN).first(), `${FOREIGN} is visible in the preview`).toBeVisible();
  await expect(preview.getByText(packageName).first(), `the app's own package ${packageName} is visible in the preview`).toBeVisible();
  await expect(preview, "the preview says the tools go into this app").toContainText(/tools? (go|goes|will go) into/i);
  await expect(preview.getByRole("listitem").filter({ hasText: "ping" })).toBeVisible();
  await expectNoSeriousA11yViolations(page);

  await page.getByRole("button", { name: "Apply import", exact: true }).click();
  await expect(pageNotice(page)).toContainText("Imported. The app has 1 tool now.");
  await expect(page, "the app keeps its address").toHaveURL(new RegExp(`/console/apps/${packageName.replace(/\./g, "\\.")}([?#].*)?$`));

  await page.goto(`/console/apps/${packageName}/export?format=mentra`);
  const exported = page.getByRole("textbox", { name: "Preview", exact: true });
  await expect(exported).toContainText('"id": "ping"');
  await expect(exported, "the mentra export names the app's own package").toContainText(`"packageName": "${packageName}"`);
  await expect(exported, `the mentra export does not name ${FOREIGN}`).not.toContainText(FOREIGN);
});
