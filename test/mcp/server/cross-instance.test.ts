// A question asked by one Worker is answered on another: two separate Miniflare (workerd)
// instances run the same module with the same `MCP_STATE_SECRET` binding and share nothing
// else; the first answers `input_required`, the retry completes on the second. A third instance
// with another secret refuses the state.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, COMPATIBILITY_DATE } from "../../support/miniflare.ts";
import { envelope, type Wire } from "./modern.ts";

const SECRET = "cross-instance-secret-of-32-or-more-chars";
const instances: Miniflare[] = [];
const endpoints: string[] = [];

beforeAll(async () => {
  const modules = await bundleWorker(new URL("./mrtr-worker.ts", import.meta.url));
  for (const secret of [SECRET, SECRET, "another-secret-of-at-least-32-characters"]) {
    const mf = new Miniflare({
      modules,
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: [],
      bindings: { MCP_STATE_SECRET: secret },
      host: "127.0.0.1",
      port: 0,
    });
    instances.push(mf);
    endpoints.push(new URL("/mcp", await mf.ready).href);
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(instances.map((mf) => mf.dispose()));
});

async function greet(endpoint: string, id: number, extra: Record<string, unknown> = {}) {
  const response = await fetch(endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "greet",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "greet", arguments: {}, ...extra, _meta: envelope({ elicitation: {} }) },
    }),
  });
  return (await response.json()) as Wire;
}

describe("a question across Worker instances (workerd)", () => {
  it("is asked by one instance and completed by another that shares only the secret", async () => {
    const [asking = "", answering = "", stranger = ""] = endpoints;
    const first = (await greet(asking, 1)).result;
    expect(first).toMatchObject({ resultType: "input_required", inputRequests: { q0: {} } });
    const retry = {
      inputResponses: { q0: { action: "accept", content: { name: "Ada" } } },
      requestState: first.requestState,
    };
    const done = await greet(answering, 2, retry);
    expect(done.result).toMatchObject({
      resultType: "complete",
      content: [{ type: "text", text: "Hello Ada from Cloudflare-Workers" }],
    });
    expect(await greet(stranger, 3, retry)).toMatchObject({ id: 3, error: { code: -32602 } });
  });
});
