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

/**
 * Turns on WebMCP (`document.modelContext`) in Chromium 156, where it sits behind a flag. Used by
 * the browser test project and the WebMCP e2e project; the plain e2e runs without it, as most
 * users' browsers do.
 */
export const webMcpArgs: string[] = ["--enable-features=WebMCP"];

/** Launch options for Playwright's chromium, without `executablePath` when there is none. */
export const chromiumLaunchOptions = {
  args: chromiumArgs,
  ...(chromiumExecutable === undefined ? {} : { executablePath: chromiumExecutable }),
};

/** The same launch options with WebMCP turned on. */
export const chromiumWebMcpLaunchOptions = {
  ...chromiumLaunchOptions,
  args: [...chromiumArgs, ...webMcpArgs],
};
