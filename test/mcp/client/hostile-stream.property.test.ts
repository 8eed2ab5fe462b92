// A remote call's SSE answer from a hostile MCP server: split at any byte (inside UTF-8
// characters too), with any line ending, around noise the client must skip, and with the
// server's own requests, which get the documented reply. Then named regressions found by the
// properties of hostile-server.property.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolInteractionRequest, ToolLog } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import {
  CALL_ERRORS,
  expectGoodResult,
  expectShutdownOnce,
  expectTyped,
  SUBMIT_ERRORS,
  settle,
  useVirtualTime,
  watchUnhandledRejections,
} from "../../support/hostile-invariants.ts";
import { noticeArb } from "../../support/hostile-mcp-arbitraries.ts";
import { createHostileMcp } from "../../support/hostile-mcp-fetch.ts";
import type { HostilePlan, Misbehaviour, SseItem } from "../../support/hostile-plan.ts";
import { sseItemArb, wellFormedRequestArb } from "../../support/hostile-sse-arbitraries.ts";

const URL_ = "https://hostile.example.test/mcp";
const TIMEOUT_MS = 200;
const TOOLS = [
  { name: "plain", inputSchema: { type: "object" } },
  {
    name: "shaped",
    inputSchema: { type: "object" },
    outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  },
];
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

const expectNoUnhandledRejection = watchUnhandledRejections();
useVirtualTime();

function planFor(calls: Misbehaviour[], extra: Partial<HostilePlan> = {}): HostilePlan {
  return {
    initialize: { type: "valid" },
    list: { type: "valid" },
    tools: TOOLS,
    calls,
    notices: [{ type: "valid" }],
    delete: { type: "valid" },
    ...extra,
  };
}

// Noise the client skips or only reports: comments, priming events, progress and log
// notifications (for this call or another), responses to other ids, lines of unknown fields.
const noiseArb: fc.Arbitrary<SseItem> = fc.oneof(
  fc.constant<SseItem>({ type: "comment" }),
  fc.constant<SseItem>({ type: "priming" }),
  fc.record({
    type: fc.constant("progress" as const),
    own: fc.boolean(),
    progress: fc.oneof(fc.integer({ min: -3, max: 9 }), fc.double(), fc.constant<unknown>("1")),
  }),
  fc.record({
    type: fc.constant("log" as const),
    level: fc.constantFrom<unknown>(...LEVELS, "verbose", 3),
    data: fc.oneof(fc.string({ maxLength: 6 }), fc.constant("é€😀")),
  }),
  fc.record({
    type: fc.constant("response" as const),
    id: fc.constantFrom("other" as const, "own_as_string" as const, "float" as const),
  }),
  fc.record({
    type: fc.constant("garbage" as const),
    text: fc.constantFrom(
      "event: x\n",
      "retry: soon\n",
      "id: 7\n",
      "field without colon\n",
      "\n\n",
    ),
  }),
);

// JSON turns NaN and ±Infinity into null (not a number) and -0 into 0.
function wireNumber(value: unknown): number | undefined {
  const wire: unknown = JSON.parse(JSON.stringify(value) ?? "null");
  return typeof wire === "number" ? wire : undefined;
}

describe("a call's SSE answer from a hostile server", () => {
  it("delivers the response intact however the stream is cut, with noise before and after", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          tool: fc.constantFrom("plain", "shaped"),
          before: fc.array(noiseArb, { maxLength: 6 }),
          after: fc.array(sseItemArb, { maxLength: 3 }),
          ending: fc.constantFrom("close" as const, "hang" as const, "error" as const),
          lineEnding: fc.constantFrom("\n" as const, "\r\n" as const, "\r" as const),
          cuts: fc.oneof(
            fc.array(fc.nat(), { maxLength: 24 }),
            // A cut every k bytes lands inside every multi-byte character for small k.
            fc.record({ every: fc.integer({ min: 1, max: 5 }) }),
          ),
        }),
        async ({ tool, before, after, ending, lineEnding, cuts }) => {
          const items: SseItem[] = [...before, { type: "response", id: "own" }, ...after];
          const fake = createHostileMcp(
            planFor([{ type: "sse", items, ending, cuts, lineEnding }]),
          );
          const toolset = await connectMcp({
            protocol: "2025-11-25",
            url: URL_,
            fetch: fake.fetch,
            requestTimeoutMs: TIMEOUT_MS,
          });
          const progress: number[] = [];
          const logs: ToolLog[] = [];
          const outcome = await settle(
            "call",
            toolset.call(
              tool,
              { case: 0 },
              { onProgress: (p) => progress.push(p.progress), onLog: (log) => logs.push(log) },
            ),
          );
          if (!outcome.ok) throw outcome.error;
          expectGoodResult(outcome.value, tool);
          const sent = before.flatMap((item) =>
            item.type === "progress" && item.own ? [wireNumber(item.progress)] : [],
          );
          // Progress is forwarded as sent, even when it goes backwards.
          expect(progress).toEqual(sent.filter((value) => value !== undefined));
          const logged = before.flatMap((item) =>
            item.type === "log" && LEVELS.includes(item.level as string) ? [item.data] : [],
          );
          expect(logs.map((log) => log.data)).toEqual(logged);
          await expectShutdownOnce(toolset, () => 0);
          await expectNoUnhandledRejection();
        },
      ),
      { numRuns: 150 },
    );
  }, 60_000);
});

// Whether the client can read the request: a string or finite number id, object or no params.
function usable(item: Extract<SseItem, { type: "request" }>): boolean {
  const { id, params } = item;
  const objectParams = typeof params === "object" && params !== null && !Array.isArray(params);
  return (typeof id === "string" || Number.isFinite(id)) && (params === undefined || objectParams);
}

// What a call that asked the caller ends with, by the caller's answer.
const ANSWERED = {
  decline: ["ok", "transport"],
  cancel: ["cancelled", "transport"],
  submit: ["ok", "transport", "invalid_interaction", "invalid_configuration"],
  wrong_id: ["invalid_interaction"],
  throw: ["invalid_interaction"],
} satisfies Record<string, string[]>;

const serverRequestItemArb = fc.oneof(
  { arbitrary: wellFormedRequestArb, weight: 4 },
  { arbitrary: sseItemArb.filter((item) => item.type === "request"), weight: 1 },
);

// The reply the client must send for a request when no caller is asked.
function expectedReply(item: Extract<SseItem, { type: "request" }>): unknown {
  if (item.method === "ping") return { result: {} };
  if (item.method === "elicitation/create") return { result: { action: "decline" } };
  return { error: { code: -32601 } };
}

describe("the server's requests on a call's stream", () => {
  it("get the documented reply when interactions are off, then the call completes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(serverRequestItemArb, { minLength: 1, maxLength: 4 }),
        async (requests) => {
          const items: SseItem[] = [...requests, { type: "response", id: "own" }];
          const fake = createHostileMcp(
            planFor([{ type: "sse", items, ending: "close", cuts: [] }]),
          );
          const toolset = await connectMcp({
            protocol: "2025-11-25",
            url: URL_,
            fetch: fake.fetch,
          });
          const outcome = await settle("call", toolset.call("plain", { case: 0 }));
          const wellFormed = requests.every(usable);
          if (!wellFormed) {
            // A request with an unusable id or params is a malformed stream.
            expectTyped(outcome.ok ? undefined : outcome.error, ["protocol"], "call");
          } else {
            if (!outcome.ok) throw outcome.error;
            expectGoodResult(outcome.value, "plain");
            // Replies go out as the requests arrive, without holding up the call.
            for (let turn = 0; turn < 100 && fake.replies.length < requests.length; turn++) {
              await new Promise((resolve) => setImmediate(resolve));
            }
            expect(fake.replies).toMatchObject(
              requests.map((item) => ({ id: item.id, ...(expectedReply(item) as object) })),
            );
          }
          await expectShutdownOnce(toolset, () => 0);
          await expectNoUnhandledRejection();
        },
      ),
      { numRuns: 80 },
    );
  }, 60_000);

  it("become interactions (or typed failures) when enabled, whatever the caller answers", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          requests: fc.array(serverRequestItemArb, { minLength: 1, maxLength: 3 }),
          answer: fc.constantFrom("decline", "cancel", "submit", "wrong_id", "throw"),
          notices: fc.array(noticeArb, { maxLength: 2 }),
        }),
        async ({ requests, answer, notices }) => {
          const items: SseItem[] = [...requests, { type: "response", id: "own" }];
          const fake = createHostileMcp(
            planFor([{ type: "sse", items, ending: "close", cuts: [] }], {
              notices: [{ type: "valid" }, ...notices],
            }),
          );
          const toolset = await connectMcp({
            protocol: "2025-11-25",
            url: URL_,
            fetch: fake.fetch,
            requestTimeoutMs: TIMEOUT_MS,
            formInteractions: true,
            samplingInteractions: true,
          });
          const asked: ToolInteractionRequest[] = [];
          const outcome = await settle(
            "call",
            toolset.call(
              "plain",
              { case: 0 },
              {
                onInteraction: async (request) => {
                  asked.push(request);
                  if (answer === "throw") throw new TypeError("the caller broke");
                  if (answer === "wrong_id") return { type: "decline", id: `${request.id}-x` };
                  if (answer !== "submit") return { type: answer, id: request.id };
                  const content =
                    request.kind.type === "sampling"
                      ? { role: "assistant", content: { type: "text", text: "hi" }, model: "m" }
                      : { name: "Ada" };
                  return { type: "submit", id: request.id, content };
                },
              },
            ),
          );
          if (!outcome.ok) expectTyped(outcome.error, SUBMIT_ERRORS, "call");
          if (outcome.ok) expectGoodResult(outcome.value, "plain");
          if (asked.length > 0) {
            // The first question decides; a reply the server refuses is `transport`.
            const type = outcome.ok ? "ok" : (outcome.error as { type: string }).type;
            // An unreadable request later on the stream fails the call as `protocol`.
            const malformed = requests.every(usable) ? [] : ["protocol"];
            expect(type).toBeOneOf([...ANSWERED[answer], ...malformed]);
          }
          // One question at a time: a second one is declined while the first is pending.
          expect(asked.length).toBeLessThanOrEqual(requests.length);
          const next = await settle("next call", toolset.call("shaped", { case: -1 }));
          if (!next.ok) throw next.error;
          expectGoodResult(next.value, "shaped");
          await expectShutdownOnce(toolset, () => 0);
          await expectNoUnhandledRejection();
        },
      ),
      { numRuns: 100 },
    );
  }, 60_000);
});

describe("hostile-server regressions and examples", () => {
  it("ignores a session id on an answer other than initialize's (it would break the session)", async () => {
    // Counterexample: a stateless server whose tools/call answer carries `Mcp-Session-Id: ""`;
    // the client adopted it, sent it with every later request, and a server that checks it
    // refused them all as an expired session.
    const fake = createHostileMcp(planFor([{ type: "session_id", value: "" }]));
    const toolset = await connectMcp({ protocol: "2025-11-25", url: URL_, fetch: fake.fetch });
    const first = await settle("call", toolset.call("plain", { case: 0 }));
    if (!first.ok) throw first.error;
    const next = await settle("next call", toolset.call("shaped", { case: -1 }));
    if (!next.ok) throw next.error;
    expectGoodResult(next.value, "shaped");
    await toolset.shutdown();
    expect(fake.strangers).toEqual([]);
    expect(fake.log).not.toContain("DELETE");
  });

  it("keeps the session id issued with initialize when a later answer names another", async () => {
    const fake = createHostileMcp(
      planFor([{ type: "session_id", value: "s-forged" }], { sessionId: "s-1" }),
    );
    const toolset = await connectMcp({ protocol: "2025-11-25", url: URL_, fetch: fake.fetch });
    await toolset.call("plain", { case: 0 });
    expectGoodResult(await toolset.call("shaped", { case: -1 }), "shaped");
    await toolset.shutdown();
    expect(fake.strangers).toEqual([]);
    expect(fake.log.filter((entry) => entry === "DELETE")).toHaveLength(1);
  });

  it("fails a call typed, and only that call, when its answer is a wrong-id batch", async () => {
    const fake = createHostileMcp(
      planFor([{ type: "ids", ids: ["other", "own_as_string", "float"], batch: true }]),
    );
    const toolset = await connectMcp({ protocol: "2025-11-25", url: URL_, fetch: fake.fetch });
    const outcome = await settle("call", toolset.call("plain", { case: 0 }));
    expectTyped(outcome.ok ? undefined : outcome.error, CALL_ERRORS, "call");
    expectGoodResult(await toolset.call("plain", { case: -1 }), "plain");
    await toolset.shutdown();
  });
});
