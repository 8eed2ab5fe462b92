// Global setup of the browser project (vitest.config.ts): serves a page on a second local port (an ephemeral one,
// so parallel runs never collide) that registers one raw WebMCP tool and exposes it to the
// origin named in `?host=`. The WebMCP browser test embeds it as a cross-origin iframe.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    webMcpFrameOrigin: string;
  }
}

const FRAME = `<!doctype html>
<title>WebMCP frame</title>
<script>
  const host = new URL(location.href).searchParams.get("host");
  document.modelContext
    .registerTool(
      {
        name: "route",
        title: "Route",
        description: "Plans a route between two places",
        inputSchema: {
          type: "object",
          properties: { from: { type: "string" }, to: { type: "string" } },
          required: ["from", "to"],
        },
        annotations: { readOnlyHint: true },
        execute: async ({ from, to }) => ({ route: [from, to], plannedBy: location.origin }),
      },
      { exposedTo: [host] },
    )
    .then(
      () => parent.postMessage("webmcp-frame-ready", host),
      (error) => parent.postMessage("webmcp-frame-failed: " + error, host),
    );
</script>`;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(FRAME);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("webMcpFrameOrigin", `http://127.0.0.1:${port}`);
  // Chromium keeps its connections to the frame alive; close() alone would wait for them and
  // keep vitest from exiting after the run.
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}
