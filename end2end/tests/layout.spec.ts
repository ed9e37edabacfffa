import { test, expect, type Page } from "@playwright/test";
import { waitForHydration } from "../fixtures/a11y";
import { signUp, uniqueEmail } from "../fixtures/accounts";
import { uniquePackage } from "../fixtures/apps";
import { expectNoSidewaysScroll } from "../fixtures/layout";
import { createOrg, currentOrgPath, invite } from "../fixtures/orgs";
import { LONG_TOOLS, longApp, seedApp, type SeedApp, type SeedTool } from "../fixtures/seed";
import { toolCard } from "../fixtures/tools";
import { addProvider, runEvalsAndWait, startStandin } from "../fixtures/model-standin";

// No page scrolls sideways, at a desktop's width and a phone's, whatever the
// length of what the developer entered (SPEC.md section 6). Runs hydrated and
// without JavaScript: the server's HTML must fit by itself.

const FORMATS = ["mentra", "tpa", "mcp", "openai", "anthropic", "gemini", "tambo"];

const hydrated = () => test.info().project.use.javaScriptEnabled !== false;

/** A developer whose email is as long as real ones get. */
const longEmail = (prefix = "maximiliane.oppenheimer-schwarzenberg") => uniqueEmail(prefix);

/** Waits for the island marked `marker` to wake (hydrated project only). */
async function settle(page: Page, marker?: string) {
  if (marker && hydrated()) await waitForHydration(page, marker);
}

/** Opens `path`, waits for its island if any, and checks it fits. */
async function visitAndCheck(page: Page, path: string, marker?: string) {
  const response = await page.goto(path);
  expect(response?.status(), `${path} answers`).toBeLessThan(400);
  await settle(page, marker);
  await expectNoSidewaysScroll(page, path);
}

/** A Mentra app_config.json that changes the seeded app: one tool gone, the others reworded, one new. */
function changedConfig(app: SeedApp): string {
  const tools: SeedTool[] = [
    ...app.tools.slice(1).map((tool) => ({ ...tool, description: `${tool.description} Answers in the technician's own language.` })),
    {
      id: "reassign_work_order_to_another_certified_technician",
      description:
        "Hand a work order over to another technician of the same region who holds the certification it needs, and tell both of them and the customer of the change, with the new time of arrival.",
      phrases: "give this job to someone else, reassign the work order, swap the technician",
      parameters: [
        { name: "work_order", description: "The work order's number as printed on the job sheet.", required: true },
        { name: "technician", description: "The new technician's staff number, or their full name as the dispatch system has it." },
      ],
    },
  ];
  return JSON.stringify(
    {
      name: app.name,
      description: app.description,
      version: "2.15.0",
      publicUrl: app.publicUrl,
      settings: [],
      tools: tools.map((tool) => ({
        id: tool.id,
        description: tool.description,
        activationPhrases: (tool.phrases ?? "").split(",").map((p) => p.trim()).filter(Boolean),
        parameters: Object.fromEntries(
          (tool.parameters ?? []).map((p) => [
            p.name,
            {
              type: p.type ?? "string",
              description: p.description,
              ...(p.allowedValues ? { enum: p.allowedValues.split(",").map((v) => v.trim()) } : {}),
              ...(p.required ? { required: true } : {}),
            },
          ]),
        ),
      })),
    },
    null,
    2,
  );
}

for (const width of [1280, 375]) {
  test.describe(`at ${width} px wide`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("an app's pages with long names, descriptions and allowed values", async ({ page }) => {
      test.slow();
      await signUp(page, longEmail());
      const { packageName } = await seedApp(page, longApp());
      const base = `/console/apps/${packageName}`;

      await visitAndCheck(page, base, "section.tools[data-hydrated]");
      if (width === 375) {
        const header = page.getByRole("banner");
        const box = await header.boundingBox();
        expect(box, "the page has a banner (header)").not.toBeNull();
        expect(
          box!.height,
          `at 375 px the header takes at most two rows (under 120 px high); it is ${Math.round(box!.height)} px`,
        ).toBeLessThan(120);

        // Every button of a tool card lies inside its card.
        const outside: string[] = [];
        for (const tool of LONG_TOOLS) {
          const card = toolCard(page, tool.id);
          const cardBox = await card.boundingBox();
          expect(cardBox, `the card of ${tool.id} is shown`).not.toBeNull();
          const controls = card.locator("button, a.button");
          for (let i = 0; i < (await controls.count()); i++) {
            const control = controls.nth(i);
            if (!(await control.isVisible())) continue;
            const b = (await control.boundingBox())!;
            const c = cardBox!;
            const inside = b.x >= c.x - 1 && b.y >= c.y - 1 && b.x + b.width <= c.x + c.width + 1 && b.y + b.height <= c.y + c.height + 1;
            if (!inside) {
              const name = ((await control.getAttribute("aria-label")) ?? (await control.innerText())).trim();
              outside.push(
                `${tool.id}: “${name}” at x ${Math.round(b.x)}–${Math.round(b.x + b.width)}, y ${Math.round(b.y)}–${Math.round(b.y + b.height)}; ` +
                  `card x ${Math.round(c.x)}–${Math.round(c.x + c.width)}, y ${Math.round(c.y)}–${Math.round(c.y + c.height)}`,
              );
            }
          }
        }
        expect(outside, `buttons outside their tool card at 375 px:\n${outside.join("\n")}`).toEqual([]);
      }

      for (const format of FORMATS) {
        await visitAndCheck(page, `${base}/export?format=${format}`, "form[data-hydrated]");
      }
      // The longest rendering: phrases appended to every description, and strict mode.
      await visitAndCheck(page, `${base}/export?format=openai&include_phrases=on&strict=on`, "form[data-hydrated]");
      await expect(page.getByRole("textbox", { name: "Preview", exact: true })).toContainText('"strict": true');

      // A revision open: its diff and JSON have the longest lines of all.
      await visitAndCheck(page, `${base}/history?revision=2`);
      await expect(page.getByRole("textbox", { name: "Revision JSON", exact: true })).toBeVisible();
      // Hints of every tool: a row per tool.
      await visitAndCheck(page, `${base}/hints`);
      // Evals: a case for each of the long tools' phrases.
      await visitAndCheck(page, `${base}/evals`);
      await page.getByRole("button", { name: "Add cases from activation phrases", exact: true }).click();
      await visitAndCheck(page, `${base}/evals`);
      // A run's results: the cases trial by trial, the confusion of the long
      // tool ids, the runs and the chart, with a provider's long name and model.
      const standin = await startStandin();
      try {
        const provider = "A model provider whose name is about as long as a name gets";
        await addProvider(page, await currentOrgPath(page), provider, standin.baseUrl,
          "vendor/an-extremely-long-model-name-for-routing-evals-2026-12-01-preview", "sk-layout-key");
        await runEvalsAndWait(page, `${base}/evals`, provider, "2");
        await visitAndCheck(page, `${base}/evals`);
        await expect(page.getByRole("region", { name: "Results", exact: true }).getByText(/^Score: \d+%/)).toBeVisible();
      } finally {
        standin.stop();
      }

      // The parameter with thirty allowed values is a select as wide as its longest.
      await visitAndCheck(page, `${base}/tools/${LONG_TOOLS[0].id}/try`, "form[data-hydrated]");
      await expect(page.getByLabel("region", { exact: true })).toBeVisible();
    });

    test("the import preview of a long config @js-only", async ({ page }) => {
      await signUp(page, longEmail());
      const app = longApp();
      const { packageName } = await seedApp(page, app);
      await visitAndCheck(page, `/console/apps/${packageName}/import`, "form[data-hydrated]");
      await page.getByLabel("Config JSON", { exact: true }).fill(changedConfig(app));
      await page.getByRole("button", { name: "Preview import", exact: true }).click();
      await expect(page.getByRole("region", { name: "Import preview", exact: true })).toContainText(
        "reassign_work_order_to_another_certified_technician",
      );
      await expectNoSidewaysScroll(page, `the import preview of ${packageName}`);
    });

    test("the console's lists, forms, organization and invitation pages", async ({ page, browser }) => {
      test.slow();
      await signUp(page, longEmail());
      await seedApp(page, longApp());
      await visitAndCheck(page, "/console/apps");
      await visitAndCheck(page, "/console/apps/new");
      await visitAndCheck(page, await currentOrgPath(page));
      await visitAndCheck(page, "/console/orgs/new");

      const orgName = `Northwind Traders Field Service Operations, Europe, Middle East and Africa ${Date.now().toString(36)}`;
      const orgPath = await createOrg(page, orgName);
      await expectNoSidewaysScroll(page, `${orgPath} (just created)`);
      const invitee = longEmail("konstantinos.papadopoulou-vandenberghe");
      const link = await invite(page, orgPath, invitee);
      // The page now shows the invitation link, once, and the pending invitation.
      await expectNoSidewaysScroll(page, `${orgPath} with an invitation`);

      const context = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled: hydrated() });
      const other = await context.newPage();
      await signUp(other, invitee);
      await other.goto(link);
      await expect(other.getByRole("button", { name: "Join", exact: true })).toBeVisible();
      await expectNoSidewaysScroll(other, "the invitation page");
      await context.close();
    });

    test("the pages for visitors, and the exports guide", async ({ page }) => {
      for (const path of ["/", "/login", "/signup", "/docs/exports"]) {
        await visitAndCheck(page, path);
      }
    });
  });
}

// The seed's package name is long too; keep it valid as the contract grows.
test("the long seed is a valid app", () => {
  expect(uniquePackage("com.northwind-field-service.operations")).toMatch(/^[a-z0-9][a-z0-9.-]{1,126}[a-z0-9]$/);
  for (const tool of LONG_TOOLS) {
    expect(tool.id).toMatch(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
    expect(tool.description.length, tool.id).toBeGreaterThan(200);
    expect(tool.description.length, tool.id).toBeLessThanOrEqual(1024);
  }
});
