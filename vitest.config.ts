import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { playwright } from "@vitest/browser-playwright";
import { defineConfig } from "vitest/config";
import { chromiumWebMcpLaunchOptions } from "./scripts/chromium.ts";

const portable = "test/runtimes/portable.test.ts";

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          setupFiles: ["test/support/fast-check-seed.ts"],
          include: ["test/**/*.test.ts"],
          exclude: ["test/workerd/**", "test/browser/**", "test/portable/deno.test.ts"],
        },
      },
      {
        test: {
          name: "browser",
          include: [portable, "test/browser/**/*.test.ts"],
          globalSetup: ["scripts/webmcp-frame-server.ts"],
          browser: {
            enabled: true,
            headless: true,
            screenshotFailures: false,
            // WebMCP on, for test/browser/webmcp.test.ts; nothing else reads document.modelContext.
            provider: playwright({
              launchOptions: chromiumWebMcpLaunchOptions,
            }),
            instances: [{ browser: "chromium" }],
          },
        },
      },
      {
        // Tests run inside workerd. The test worker's name, main module, compatibility date and
        // flags live in test/workerd/wrangler.jsonc (no nodejs_compat there).
        plugins: [cloudflareTest({ wrangler: { configPath: "./test/workerd/wrangler.jsonc" } })],
        test: {
          name: "workerd",
          include: [portable, "test/workerd/**/*.test.ts"],
        },
      },
    ],
  },
});
