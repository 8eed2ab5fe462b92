// What the browser project's global setup (scripts/webmcp-frame-server.ts) provides to tests.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** Origin of the second local server whose page registers a WebMCP tool for this page. */
    webMcpFrameOrigin: string;
  }
}
