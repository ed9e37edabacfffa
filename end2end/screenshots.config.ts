import { defineConfig } from "@playwright/test";
import base from "./playwright.config";

// The README's screenshots (`make screenshots`): the same server as the
// tests, one browser, a fixed window, written to docs/screenshots/.
export default defineConfig({
  ...base,
  testDir: "./screenshots",
  workers: 1,
  projects: [{ name: "screenshots", use: { javaScriptEnabled: true, viewport: { width: 1100, height: 900 } } }],
});
