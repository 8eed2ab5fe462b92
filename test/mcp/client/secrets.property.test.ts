// Scrubbing as a property (issue 23, item 8 and its fuzz family): whatever credentials a client
// sends (random, 8 to 200 characters) and wherever a hostile server echoes them (log keys and
// values, progress, questions, tool names and descriptions, results, versions, JSON-RPC and
// HTTP error texts, redirect targets, network errors), placed after a random prefix so that
// each lands across every cut point (40, 60, 140, 200, 500 characters), no error, log line,
// progress message, question, listed tool, result or OpenTelemetry span (its name, attributes,
// status, events and links, payloads recorded) shows 8 characters in a row of one. The model
// adapters are held to the same with their key.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InteractionResponse, isToolError, type ToolLog } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import { anthropic } from "../../../src/models/anthropic.ts";
import { isModelError } from "../../../src/models/model-error.ts";
import { openAICompatible } from "../../../src/models/openai-compatible.ts";
import { otelObserver } from "../../../src/otel/index.ts";
import { createFakeMcp } from "../../support/fake-mcp-fetch.ts";
import { collect } from "../../support/model-collect.ts";
import { otelCapture } from "../../support/otel-capture.ts";

const NAME_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.";
// Base64 and URL characters too: `+` is a space to `searchParams`, `/` and `=` end tokens.
const ANY = `${NAME_SAFE}~+/=`;
// Uniform characters (no bias toward "aaaa…"), so a secret never looks like ordinary text.
const secretOf = (alphabet: string) =>
  fc
    .noBias(fc.array(fc.nat(alphabet.length - 1), { minLength: 8, maxLength: 200 }))
    .map((indexes) => indexes.map((i) => alphabet[i]).join(""));

// Up to 520 characters before the echoed secrets: every cut point falls inside one of them.
const padArb = fc.nat(520);

// Every 8-character piece of a secret.
function pieces(secret: string): string[] {
  return Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8));
}

// Every string in a value, object keys included.
function stringsOf(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === "string") return [value];
  if (typeof value !== "object" || value === null || seen.has(value)) return [];
  seen.add(value);
  const own = value instanceof Error ? [value.message, String(value.stack ?? "")] : [];
  const cause = value instanceof Error ? stringsOf(value.cause, seen) : [];
  const entries = Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item, seen)]);
  return [...own, ...cause, ...entries];
}

function expectNoPiece(shown: unknown, secrets: readonly string[]): void {
  const texts = stringsOf(shown);
  for (const secret of secrets) {
    for (const piece of pieces(secret)) {
      const leak = texts.find((text) => text.includes(piece));
      expect(leak, `a piece of ${secret} (${piece}) shows`).toBeUndefined();
    }
  }
}

// What the server echoes: the credentials it got, exactly as it got them, after `pad`
// characters, in the order `order` picks.
function echoOf(request: Request, pad: number, order: readonly number[]): string {
  const query = new URL(request.url).search.replace(/^\?token=/, "");
  const got = [request.headers.get("x-api-key"), request.headers.get("authorization"), query];
  return `${"#".repeat(pad)}${order.map((i) => got[i]).join(" ")}`;
}

const sse = (...messages: unknown[]) =>
  new Response(messages.map((m) => `data: ${JSON.stringify(m)}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
const rpc = (id: unknown, body: Record<string, unknown>) =>
  Response.json({ jsonrpc: "2.0", id, ...body });

// How a call's answer echoes the credentials.
const CALLS: Record<string, (id: unknown, token: unknown, echo: string) => Response> = {
  log: (id, _token, echo) =>
    sse(
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: {
          level: "warning",
          logger: echo,
          data: { [echo]: echo, list: [echo, { [`k ${echo}`]: [echo] }] },
        },
      },
      { jsonrpc: "2.0", id, result: { content: [] } },
    ),
  // A log line of about 1.5 MB: 1,000 keys and values, each an echo.
  big_log: (id, _token, echo) =>
    sse(
      {
        jsonrpc: "2.0",
        method: "notifications/message",
        params: {
          level: "info",
          data: Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`${i} ${echo}`, echo])),
        },
      },
      { jsonrpc: "2.0", id, result: { content: [] } },
    ),
  progress: (id, token, echo) =>
    sse(
      {
        jsonrpc: "2.0",
        method: "notifications/progress",
        params: { progressToken: token, progress: 1, message: echo },
      },
      { jsonrpc: "2.0", id, result: { content: [] } },
    ),
  question: (id, _token, echo) =>
    sse(
      {
        jsonrpc: "2.0",
        id: "q1",
        method: "elicitation/create",
        params: {
          message: echo,
          requestedSchema: {
            type: "object",
            properties: { text: { type: "string", title: echo, description: echo } },
            required: ["text"],
          },
        },
      },
      { jsonrpc: "2.0", id, result: { content: [] } },
    ),
  result: (id, _token, echo) =>
    rpc(id, {
      result: {
        content: [
          { type: "text", text: echo },
          {
            type: "resource_link",
            uri: `https://x.test/?q=${encodeURIComponent(echo)}`,
            title: echo,
          },
        ],
        structuredContent: { [echo]: [echo] },
      },
    }),
  rpc_error: (id, _token, echo) =>
    rpc(id, { error: { code: -32000, message: echo, data: { [echo]: echo } } }),
  http_500: (_id, _token, echo) => new Response(echo, { status: 500 }),
  http_401: (_id, _token, echo) => new Response(echo, { status: 401 }),
  bad_json: (_id, _token, echo) =>
    new Response(`{${echo}`, { headers: { "content-type": "application/json" } }),
  redirect: (_id, _token, echo) =>
    new Response(null, {
      status: 307,
      headers: {
        location: `https://evil.test/${encodeURIComponent(echo)}?t=${encodeURIComponent(echo)}`,
      },
    }),
  invalid_message: (_id, _token, echo) => sse({ jsonrpc: "2.0", id: 1, method: 7, error: echo }),
  network: () => {
    throw new Error("answered by the fetch wrapper");
  },
};

// How the connection itself goes: well, or with the credentials echoed where it fails.
const CONNECTS = [
  "ok",
  "names",
  "duplicate",
  "version",
  "list_error",
  "http_500",
  "redirect",
] as const;

const scenarioArb = fc.record({
  key: secretOf(NAME_SAFE),
  bearer: secretOf(ANY),
  query: secretOf(ANY),
  pad: padArb,
  order: fc.shuffledSubarray([0, 1, 2], { minLength: 1 }),
  // Mostly a connection that works, so the calls run.
  connect: fc.oneof(
    { arbitrary: fc.constant("ok" as const), weight: 4 },
    { arbitrary: fc.constantFrom(...CONNECTS), weight: 3 },
  ),
  calls: fc.shuffledSubarray(Object.keys(CALLS), { minLength: 1, maxLength: 4 }),
});

describe("no credential leaves the MCP client", () => {
  it("in any error, log line, progress message or question, whatever the server echoes", async () => {
    let runs = 0;
    let reached = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ key, bearer, query, pad, order, connect, calls }) => {
        const url = `https://mcp.example.test/mcp?token=${query}`;
        const headers = { "x-api-key": key, authorization: `Bearer ${bearer}` };
        const echoed = echoOf(new Request(url, { headers }), pad, order);
        const fake = createFakeMcp({
          tools: [
            ...Object.keys(CALLS).map((name) => ({ name, inputSchema: { type: "object" } })),
            ...(connect === "names"
              ? [
                  { name: echoed, inputSchema: {} },
                  { name: key, inputSchema: "not a schema" },
                  { name: key, description: "x", inputSchema: { type: "object" } },
                  {
                    name: "described",
                    description: echoed,
                    inputSchema: { properties: { [echoed]: {} } },
                  },
                ]
              : []),
            ...(connect === "duplicate"
              ? [
                  { name: key, inputSchema: { type: "object" } },
                  { name: key, inputSchema: { type: "object" } },
                ]
              : []),
          ],
          override: (message, request) => {
            const echo = echoOf(request, pad, order);
            const params = (message.params ?? {}) as {
              name?: string;
              _meta?: { progressToken?: unknown };
            };
            if (message.method === "initialize") {
              if (connect === "version") {
                return rpc(message.id, {
                  result: {
                    protocolVersion: echo,
                    capabilities: { tools: {} },
                    serverInfo: { name: "x", version: "1" },
                  },
                });
              }
              if (connect === "http_500") return CALLS.http_500?.(message.id, 0, echo);
              if (connect === "redirect") return CALLS.redirect?.(message.id, 0, echo);
            }
            if (message.method === "tools/list" && connect === "list_error") {
              return CALLS.rpc_error?.(message.id, 0, echo);
            }
            if (message.method !== "tools/call" || !params.name) return undefined;
            return CALLS[params.name]?.(message.id, params._meta?.progressToken, echo);
          },
        });
        const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
          const request = new Request(input, init);
          if (typeof init?.body === "string" && init.body.includes('"name":"network"')) {
            throw new TypeError(
              `error sending request for url (${request.url}): ${echoOf(request, pad, order)}`,
            );
          }
          return fake.fetch(input, init);
        }) as typeof fetch;

        const shown: unknown[] = [];
        const logs: ToolLog[] = [];
        // Spans with every payload recorded: the most an instrumented client can show.
        const otel = otelCapture();
        const connected = await connectMcp({
          url,
          headers,
          fetch: fetchImpl,
          formInteractions: true,
          onLog: (log) => logs.push(log),
          observer: otelObserver({ ...otel, recordPayloads: true }),
        }).then(
          (toolset) => ({ toolset }),
          (error: unknown) => ({ error }),
        );
        shown.push(logs);
        if ("error" in connected) {
          expect(isToolError(connected.error), String(connected.error)).toBe(true);
          expect(connect).not.toBe("ok");
          shown.push(connected.error, (connected.error as { toJSON(): unknown }).toJSON());
        } else {
          const { toolset } = connected;
          shown.push(await toolset.listTools());
          for (const name of calls) {
            const outcome = await toolset
              .call(
                name,
                {},
                {
                  onLog: (log) => shown.push(log),
                  onProgress: (progress) => shown.push(progress),
                  onInteraction: async (request) => {
                    shown.push(request);
                    return InteractionResponse.decline(request.id);
                  },
                },
              )
              .then(
                (result) => {
                  shown.push(result);
                  return undefined;
                },
                (error: unknown) => error,
              );
            if (outcome !== undefined) {
              expect(isToolError(outcome), `${name}: ${String(outcome)}`).toBe(true);
              shown.push(outcome, (outcome as { toJSON(): unknown }).toJSON());
            }
          }
          await toolset.shutdown();
        }
        const spans = otel.spans();
        expect(spans.length).toBeGreaterThan(0);
        shown.push(
          spans.map((span) => ({
            name: span.name,
            attributes: span.attributes,
            status: span.status,
            events: span.events,
            links: span.links,
          })),
        );
        await otel.shutdown();
        expectNoPiece(shown, [key, bearer, query]);
        runs += 1;
        if (stringsOf(shown).some((text) => text.includes("[redacted]"))) reached += 1;
      }),
      { numRuns: 60 },
    );
    // Most runs showed a scrubbed echo, so a leak would have shown.
    expect(reached).toBeGreaterThan(runs / 2);
  }, 120_000);
});

describe("no key leaves a model adapter", () => {
  // How a provider answer echoes the request's key and query.
  const ANSWERS = [
    "status_400",
    "status_429",
    "json_200",
    "redirect",
    "network",
    "sse_error",
  ] as const;

  it("in any error or retry event, whatever the provider echoes", async () => {
    let runs = 0;
    let reached = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          key: secretOf(ANY),
          query: secretOf(ANY),
          pad: padArb,
          answer: fc.constantFrom(...ANSWERS),
          adapter: fc.constantFrom("anthropic", "openai-compatible"),
        }),
        async ({ key, query, pad, answer, adapter }) => {
          const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
            const request = new Request(input, init);
            const got = [
              request.headers.get("x-api-key") ?? request.headers.get("authorization"),
              new URL(request.url).search,
            ];
            const echo = `${"#".repeat(pad)}${got.join(" ")}`;
            const error = { error: { type: echo, code: echo, message: echo } };
            switch (answer) {
              case "status_400":
                return Response.json(error, { status: 400 });
              case "status_429":
                return new Response(echo, { status: 429 });
              case "json_200":
                return Response.json(error);
              case "redirect":
                return new Response(null, {
                  status: 308,
                  headers: {
                    location: `https://evil.test/${encodeURIComponent(echo)}?k=${encodeURIComponent(echo)}`,
                  },
                });
              case "network":
                throw new TypeError(`error sending request for url (${request.url}) ${echo}`);
              case "sse_error":
                return new Response(
                  `event: error\ndata: ${JSON.stringify({ type: "error", ...error })}\n\n`,
                  {
                    headers: { "content-type": "text/event-stream" },
                  },
                );
            }
          }) as typeof fetch;
          const model =
            adapter === "anthropic"
              ? anthropic({
                  baseURL: `https://api.example.test?v=${query}`,
                  apiKey: key,
                  model: "m",
                  fetch: fetchImpl,
                  retry: false,
                })
              : openAICompatible({
                  baseURL: `https://api.example.test/v1?v=${query}`,
                  apiKey: key,
                  model: "m",
                  fetch: fetchImpl,
                  retry: false,
                });
          const { events, error } = await collect(
            model.stream({
              messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
              tools: [],
            }),
          );
          expect(isModelError(error), String(error)).toBe(true);
          expectNoPiece([events, error, (error as { toJSON(): unknown }).toJSON()], [key, query]);
          runs += 1;
          if (stringsOf([error]).some((text) => text.includes("[redacted]"))) reached += 1;
        },
      ),
      { numRuns: 150 },
    );
    expect(reached).toBeGreaterThan(runs / 2);
  }, 60_000);
});
