import { expect, test } from "@playwright/test";

test("the placeholder demo page loads", async ({ page }) => {
  await page.goto("/");
  await expect(page.locator("h1")).toHaveText("toolwire demo — coming soon");
  await expect(page.locator("#status")).toHaveText("toolwire demo — coming soon");
  await page.screenshot({ path: "test-results/demo.png", fullPage: true });
});
