// Helpers both demo specs drive the page with.
import { expect, type Page } from "@playwright/test";

/** Collects console errors and uncaught exceptions; the page must produce none. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return errors;
}

/** Types a prompt into the dock and sends it, once sending is possible. */
export async function send(page: Page, text: string): Promise<void> {
  await expect(page.getByTestId("send")).toBeEnabled();
  await page.getByTestId("prompt").fill(text);
  await page.getByTestId("send").click();
}
