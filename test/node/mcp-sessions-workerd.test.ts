// 2025 sessions on Workers get one home (design.md S23), in Miniflare: a 2025 client whose
// requests alternate between two Worker isolates calls a tool that asks a question; the
// question goes out on one isolate, the answer comes in through the other, and it reaches the
// running tool because both isolates send the session's requests to its Durable Object. With
// in-memory sessions alone the same client loses its session at the second isolate.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InteractionResponse, isToolError } from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { bundleWorker, COMPATIBILITY_DATE, workerFetch } from "../support/miniflare.ts";

let mf: Miniflare | undefined;

beforeAll(async () => {
  const modules = await bundleWorker(new URL("../workerd/mcp-sessions-worker.ts", import.meta.url));
  // Each Worker its own isolate; the compatibility date is per Worker.
  const worker = { modules, compatibilityDate: COMPATIBILITY_DATE };
  const homes = { MCP_SESSIONS: { className: "McpSession", scriptName: "home" } };
  mf = new Miniflare({
    workers: [
      { name: "home", ...worker, durableObjects: { MCP_SESSIONS: "McpSession" } },
      { name: "front-a", ...worker, durableObjects: homes },
      { name: "front-b", ...worker, durableObjects: homes },
      { name: "plain-a", ...worker, durableObjects: homes, bindings: { PLAIN: "1" } },
      { name: "plain-b", ...worker, durableObjects: homes, bindings: { PLAIN: "1" } },
    ],
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

/** A `fetch` that sends each request to the next of `workers` in turn, and logs which. */
async function alternating(workers: string[], log: string[]): Promise<typeof fetch> {
  const fetchers = await Promise.all(workers.map((name) => workerFetch(mf as Miniflare, name)));
  let next = 0;
  return (async (input: Request | string | URL, init?: RequestInit) => {
    const index = next++ % fetchers.length;
    const request = new Request(input, init);
    const body = request.method === "GET" ? null : await request.text();
    log.push(`${workers[index]} ${request.method} ${body}`);
    const answer = await (fetchers[index] as (typeof fetchers)[number])(request.url, {
      method: request.method,
      headers: [...request.headers],
      body,
    });
    // Miniflare answers with its own Response class; hand the client a global one.
    return new Response(answer.body, { status: answer.status, headers: [...answer.headers] });
  }) as typeof fetch;
}

describe("a 2025 session on Workers with durableSessions", () => {
  it("answers a tool's question through another isolate than the one that asked it", async () => {
    const log: string[] = [];
    const toolset = await connectMcp({
      url: "http://worker/mcp",
      protocol: "2025-11-25",
      formInteractions: true,
      fetch: await alternating(["front-a", "front-b"], log),
    });
    const asked: string[] = [];
    const result = await toolset.call(
      "greet",
      {},
      {
        onInteraction: async (request) => {
          asked.push(log.at(-1) ?? "");
          return InteractionResponse.submit(request.id, "Ada");
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "Hello Ada" }]);
    // The call went out through one isolate and the answer came in through the other.
    const call = log.find((line) => line.includes('"tools/call"')) ?? "";
    const answer = log.find((line) => line.includes('"Ada"')) ?? "";
    expect(call.split(" ")[0]).not.toBe(answer.split(" ")[0]);
    expect(asked).toHaveLength(1);
    await toolset.shutdown();
  });

  it("loses the session at the second isolate with in-memory sessions alone", async () => {
    const failure = await connectMcp({
      url: "http://worker/mcp",
      protocol: "2025-11-25",
      fetch: await alternating(["plain-a", "plain-b"], []),
    })
      .then((toolset) => toolset.listTools())
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isToolError(failure) && failure.message).toMatch(/404|session/i);
  });

  it("refuses a namespace that is not one, and in-memory sessions beside it", async () => {
    const options = { name: "greeter", version: "1.0.0" };
    const tools = Toolset.local([]);
    expect(() => createMcpHandler(tools, { ...options, durableSessions: {} as never })).toThrow(
      /`durableSessions` must be a Durable Object namespace binding/,
    );
    const namespace = { idFromName: () => ({}), get: () => ({ fetch }) };
    expect(() =>
      createMcpHandler(tools, { ...options, durableSessions: namespace, sessions: "memory" }),
    ).toThrow(/give the object's handler `sessions: "memory"`/);
  });
});
