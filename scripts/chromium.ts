// The browser for Vitest browser mode and Playwright: CHROMIUM_PATH, else Debian's
// /usr/bin/chromium, else (undefined) Playwright's own download if there is one.
import { existsSync } from "node:fs";

export const chromiumExecutable: string | undefined =
  process.env.CHROMIUM_PATH ?? (existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined);

export const chromiumArgs: string[] = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launch options for Playwright's chromium, without `executablePath` when there is none. */
export const chromiumLaunchOptions = {
  args: chromiumArgs,
  ...(chromiumExecutable === undefined ? {} : { executablePath: chromiumExecutable }),
};
