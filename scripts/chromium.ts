// The browser for Vitest browser mode and Playwright: CHROMIUM_PATH, else Debian's
// /usr/bin/chromium, else (undefined) Playwright's own download if there is one.
//
// `node --import tsx scripts/chromium.ts ensure` (the first step of `npm test`) makes sure one
// of them starts: it prints the browser and its version, or installs Debian's `chromium` when
// it runs as root with apt-get, or exits 1 with one line saying what to install.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const DEBIAN_CHROMIUM = "/usr/bin/chromium";

function findChromium(): string | undefined {
  return process.env.CHROMIUM_PATH ?? (existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : undefined);
}

export const chromiumExecutable: string | undefined = findChromium();

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

/** The browser the tests would launch and its `--version` line, or why there is none. */
async function probe(): Promise<{ path: string; version: string } | { missing: string }> {
  let path = findChromium();
  if (path === undefined) {
    // Playwright's own download (`npx playwright install chromium`), if someone made one.
    const { chromium } = await import("playwright-core");
    path = chromium.executablePath();
  }
  if (!existsSync(path)) return { missing: path };
  const run = spawnSync(path, ["--version", ...chromiumArgs], {
    encoding: "utf8",
    timeout: 30_000,
  });
  const version = run.stdout?.trim().split("\n").pop() ?? "";
  if (run.status !== 0 || !/\d/.test(version)) return { missing: `${path} (does not start)` };
  return { path, version };
}

function canInstall(): boolean {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return false;
  return spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status === 0;
}

async function ensure(): Promise<number> {
  let found = await probe();
  if ("missing" in found && process.env.CHROMIUM_PATH === undefined && canInstall()) {
    console.log("chromium: not found; installing Debian's chromium (apt-get install chromium)");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    execFileSync("apt-get", ["install", "-y", "-qq", "chromium"], { stdio: "inherit", env });
    found = await probe();
  }
  if ("missing" in found) {
    console.log(
      `npm test needs Chromium, and ${found.missing} is not usable: install Debian's chromium (sudo apt-get install chromium) or set CHROMIUM_PATH to a Chromium or Chrome binary.`,
    );
    return 1;
  }
  console.log(`chromium: ${found.path} (${found.version})`);
  return 0;
}

if (process.argv[1]?.endsWith("chromium.ts") && process.argv[2] === "ensure") {
  ensure().then((code) => {
    process.exitCode = code;
  });
}
