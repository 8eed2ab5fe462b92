import { defineConfig, devices } from "@playwright/test";
import { chromiumLaunchOptions, chromiumWebMcpLaunchOptions } from "./scripts/chromium.ts";

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results/playwright",
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"], ["json", { outputFile: "test-results/playwright.json" }]],
  use: { baseURL: "http://127.0.0.1:4173", trace: "off" },
  projects: [
    {
      name: "chromium",
      testIgnore: /webmcp\.spec\.ts/,
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: chromiumLaunchOptions,
      },
    },
    {
      // The demo with WebMCP on (e2e/webmcp.spec.ts).
      name: "chromium-webmcp",
      testMatch: /webmcp\.spec\.ts/,
      use: {
        ...devices["Desktop Chrome"],
        launchOptions: chromiumWebMcpLaunchOptions,
      },
    },
  ],
  webServer: [
    {
      // The demo, and examples/web-ui built beside it (e2e/web-ui-build.ts).
      command:
        "node_modules/.bin/vite build --logLevel warn && node_modules/.bin/tsx e2e/web-ui-build.ts && node_modules/.bin/vite preview",
      url: "http://127.0.0.1:4173",
      reuseExistingServer: !process.env.CI,
      timeout: 60_000,
    },
    {
      // An MCP server the demo page connects to (e2e/demo-mcp-server.ts).
      command: "node_modules/.bin/tsx e2e/demo-mcp-server.ts",
      port: 4174,
      reuseExistingServer: !process.env.CI,
      timeout: 30_000,
    },
    {
      // A local authorization server (4175), an MCP server that needs its tokens (4176) and a
      // redirect-mode sign-in page (4177, listening last) (e2e/oauth-servers.ts).
      command: "node_modules/.bin/tsx e2e/oauth-servers.ts",
      port: 4177,
      reuseExistingServer: !process.env.CI,
      timeout: 30_000,
    },
  ],
});
