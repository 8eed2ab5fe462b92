import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLIENT_HEADERS, fixtureHandler, rpc } from "./fixture.ts";

const URL_ = "http://127.0.0.1:3000/mcp";
const DOCUMENTED_STATUSES = new Set([200, 202, 400, 404, 413]);

const methods = fc.constantFrom(
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "logging/setLevel",
  "notifications/cancelled",
  "notifications/initialized",
  "resources/list",
  "",
);

const valid = fc.constantFrom<unknown>(
  rpc(1, "ping"),
  rpc("a", "tools/list", { cursor: "x" }),
  rpc(2, "tools/call", { name: "echo", arguments: { message: "m" } }),
  rpc(3, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }),
  rpc(4, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "x" },
  }),
  rpc(5, "logging/setLevel", { level: "info" }),
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
  { jsonrpc: "2.0", id: 6, result: { action: "accept" } },
);

// A valid message with one field replaced, removed, or added.
const mutated = fc
  .tuple(
    valid,
    fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error", "name", "arguments"),
    fc.jsonValue(),
    fc.boolean(),
  )
  .map(([message, key, value, remove]) => {
    const copy = structuredClone(message) as Record<string, unknown>;
    const target =
      (key === "name" || key === "arguments") && typeof copy.params === "object" && copy.params
        ? (copy.params as Record<string, unknown>)
        : copy;
    if (remove) delete target[key];
    else target[key] = value;
    return JSON.stringify(copy);
  });

const shaped = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
      id: fc.jsonValue(),
      method: methods,
      params: fc.jsonValue(),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

const bodies = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string(),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => bytes),
  mutated,
  shaped,
);

function isJsonRpcAnswer(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return false;
  if ("result" in message) return typeof message.id === "string" || typeof message.id === "number";
  const error = message.error as Record<string, unknown> | undefined;
  return (
    typeof error === "object" &&
    error !== null &&
    Number.isInteger(error.code) &&
    typeof error.message === "string" &&
    (message.id === null || typeof message.id === "string" || typeof message.id === "number")
  );
}

describe("fuzzing the handler", () => {
  it("answers every random or mutated message with a JSON-RPC message or a documented status", async () => {
    const { handler } = fixtureHandler();
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await handler.fetch(
          new Request(URL_, { method: "POST", headers: CLIENT_HEADERS, body }),
        );
        expect(DOCUMENTED_STATUSES.has(response.status)).toBe(true);
        const text = await response.text();
        if (response.status === 202) {
          expect(text).toBe("");
          return;
        }
        const type = response.headers.get("content-type");
        const payloads =
          type === "text/event-stream"
            ? text
                .split("\n")
                .filter((l) => l.startsWith("data: "))
                .map((l) => l.slice(6))
            : [text];
        for (const payload of payloads) expect(isJsonRpcAnswer(JSON.parse(payload))).toBe(true);
      }),
      { numRuns: 3000 },
    );
    const after = await handler.fetch(
      new Request(URL_, {
        method: "POST",
        headers: CLIENT_HEADERS,
        body: JSON.stringify(
          rpc(99, "tools/call", { name: "echo", arguments: { message: "still here" } }),
        ),
      }),
    );
    expect(await after.json()).toMatchObject({
      id: 99,
      result: { content: [{ text: "echo: still here" }] },
    });
  }, 120_000);

  it("answers random headers and methods without a 500", async () => {
    const { handler } = fixtureHandler({ sessions: "memory" });
    const headerName = fc.constantFrom(
      "content-type",
      "accept",
      "mcp-protocol-version",
      "mcp-session-id",
      "origin",
      "host",
      "content-length",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("POST", "GET", "DELETE", "OPTIONS", "PUT"),
        fc.dictionary(headerName, fc.string({ unit: "grapheme-ascii", maxLength: 30 })),
        async (method, headers) => {
          let request: Request;
          try {
            request = new Request(URL_, {
              method,
              headers: { ...CLIENT_HEADERS, ...headers },
              body:
                method === "GET" || method === "OPTIONS" ? null : JSON.stringify(rpc(1, "ping")),
            });
          } catch {
            return; // the Request constructor itself refused these headers
          }
          const response = await handler.fetch(request);
          expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: 500 },
    );
  });
});
