// connectMcp and the toolsets it returns against a hostile MCP server (a `fetch` function that
// answers every request with generated misbehaviour): every operation settles, every failure is a
// typed ToolError of a documented kind, nothing rejects unhandled, shutdown settles once with one
// shared outcome, and a failed call never breaks the next well-behaved one.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isToolError, type ToolResult, type Toolset } from "../../../src/index.ts";
import { connectMcp } from "../../../src/mcp/index.ts";
import {
  CALL_ERRORS,
  CONNECT_ERRORS,
  expectGoodResult,
  expectShutdownOnce,
  expectTyped,
  type Outcome,
  SHUTDOWN_ERRORS,
  SUBMIT_ERRORS,
  settle,
  useVirtualTime,
  watchUnhandledRejections,
} from "../../support/hostile-invariants.ts";
import {
  misbehaviourArb,
  noticeArb,
  sessionIdArb,
  toolEntryArb,
} from "../../support/hostile-mcp-arbitraries.ts";
import { createHostileMcp } from "../../support/hostile-mcp-fetch.ts";
import type { HostilePlan, Misbehaviour, SseItem } from "../../support/hostile-plan.ts";

const URL_ = "https://hostile.example.test/mcp";
// Small, so silent servers cost little, yet far above what an in-memory answer needs.
const TIMEOUT_MS = 200;
// Below the hostile answers' sizes (1-2 MB, or endless), so each of them crosses the cap.
const MAX_BYTES = 256 * 1024;

const PLAIN = { name: "plain", inputSchema: { type: "object" } };
const SHAPED = {
  name: "shaped",
  inputSchema: { type: "object" },
  outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
};

const VALID = { type: "valid" } as const;

const expectNoUnhandledRejection = watchUnhandledRejections();
useVirtualTime();

describe("connectMcp against a hostile server", () => {
  it("settles typed on every initialize, tools/list and DELETE misbehaviour", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          sessionId: fc.option(fc.oneof(fc.constant("s-1"), sessionIdArb), { nil: undefined }),
          initialize: fc.oneof({ arbitrary: fc.constant(VALID), weight: 1 }, misbehaviourArb),
          list: fc.oneof({ arbitrary: fc.constant(VALID), weight: 1 }, misbehaviourArb),
          tools: fc.array(toolEntryArb, { maxLength: 4 }),
          notices: fc.array(
            fc.oneof(
              { arbitrary: fc.constant(VALID), weight: 3 },
              { arbitrary: noticeArb, weight: 1 },
            ),
            { minLength: 1, maxLength: 2 },
          ),
          delete: noticeArb,
          namespace: fc.option(fc.constantFrom("ns", "n-1"), { nil: undefined }),
        }),
        async ({ namespace, ...rest }) => {
          const plan: HostilePlan = { ...rest, calls: [] };
          const fake = createHostileMcp(plan);
          const deletes = () => fake.log.filter((entry) => entry === "DELETE").length;
          const options = {
            url: URL_,
            fetch: fake.fetch,
            requestTimeoutMs: TIMEOUT_MS,
            maxMessageBytes: MAX_BYTES,
          };
          const connected = await settle(
            "connect",
            connectMcp(namespace === undefined ? options : { ...options, namespace }),
          );
          if (!connected.ok) {
            const { error } = connected;
            if (isToolError(error) && error.type === "build_cleanup") {
              expectTyped(error.primary, CONNECT_ERRORS, "connect (primary)");
              expectTyped(error.cleanup, SHUTDOWN_ERRORS, "connect (cleanup)");
            } else {
              expectTyped(error, CONNECT_ERRORS, "connect");
              const first =
                plan.initialize.type !== "valid"
                  ? plan.initialize
                  : plan.notices[0]?.type === "valid"
                    ? plan.list
                    : undefined;
              if (first?.type === "huge" && !isToolError(error, "timeout")) {
                expectOverCap(error, first);
              }
            }
            // The half-open session is closed exactly once when the server named one.
            expect(deletes()).toBeLessThanOrEqual(1);
            if (plan.initialize.type === "valid" && plan.sessionId !== undefined) {
              expect(deletes()).toBe(1);
            }
          } else {
            const tools = await connected.value.listTools();
            for (const info of tools) expect(info.name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
            expect(new Set(tools.map((info) => info.name)).size).toBe(tools.length);
            await expectShutdownOnce(connected.value, deletes);
          }
          if (allValid(plan)) expect(connected.ok).toBe(true);
          await expectNoUnhandledRejection();
        },
      ),
      { numRuns: 120 },
    );
  }, 60_000);
});

function allValid(plan: HostilePlan): boolean {
  return (
    plan.initialize.type === "valid" &&
    plan.list.type === "valid" &&
    plan.notices[0]?.type === "valid" &&
    plan.tools.length === 0
  );
}

// One hostile call, and how the caller behaves while it runs.
interface CallCase {
  behaviour: Misbehaviour;
  tool: "plain" | "shaped" | "missing" | "bad_args";
  answer: "decline" | "cancel" | "submit";
  abortOn: "none" | "progress" | "log" | "interaction";
  concurrent: boolean;
}

const callCaseArb: fc.Arbitrary<CallCase> = fc.record({
  behaviour: misbehaviourArb,
  tool: fc.oneof(
    { arbitrary: fc.constantFrom("plain", "shaped"), weight: 8 },
    { arbitrary: fc.constantFrom("missing", "bad_args"), weight: 1 },
  ),
  answer: fc.constantFrom("decline", "cancel", "submit"),
  abortOn: fc.constantFrom("none", "none", "none", "progress", "log", "interaction"),
  concurrent: fc.boolean(),
});

function submitted(kind: string): unknown {
  if (kind === "sampling") {
    return { role: "assistant", content: { type: "text", text: "hi" }, model: "m" };
  }
  return kind === "text" ? "hi" : { name: "Ada" };
}

interface Observed {
  progress: number[];
  result: Outcome<ToolResult>;
}

async function hostileCall(toolset: Toolset, index: number, call: CallCase): Promise<Observed> {
  const controller = new AbortController();
  const progress: number[] = [];
  const name = call.tool === "bad_args" ? "plain" : call.tool;
  const args = call.tool === "bad_args" ? ["not", "an", "object"] : { case: index };
  const promise = toolset.call(name, args, {
    signal: controller.signal,
    onProgress: (update) => {
      progress.push(update.progress);
      if (call.abortOn === "progress") controller.abort();
    },
    onLog: () => {
      if (call.abortOn === "log") controller.abort();
    },
    onInteraction: async (request) => {
      if (call.abortOn === "interaction") controller.abort();
      if (call.answer !== "submit") return { type: call.answer, id: request.id };
      return { type: "submit", id: request.id, content: submitted(request.kind.type) };
    },
  });
  return { progress, result: await settle(`call ${index}`, promise) };
}

// Whether the stream must deliver the response: everything before the first own response is
// something the client ignores or only reports (comments, priming, progress, logs, responses
// meant for other requests), and the caller does not abort.
// An answer over the cap fails that exchange as `transport`, saying which cap; an error body
// is read only as far as its excerpt, so the message stays short.
function expectOverCap(error: unknown, behaviour: Extract<Misbehaviour, { type: "huge" }>): void {
  expect(isToolError(error, "transport"), String(error)).toBe(true);
  const { message } = error as Error;
  expect(message.length).toBeLessThan(600);
  if (behaviour.shape === "endless_error_body") expect(message).toContain("HTTP 500");
  else expect(message).toContain("maxMessageBytes");
}

function mustSucceed(call: CallCase): boolean {
  if (call.abortOn !== "none" || call.tool === "missing" || call.tool === "bad_args") return false;
  const { behaviour } = call;
  if (behaviour.type === "valid") return true;
  if (behaviour.type !== "sse") return false;
  for (const item of behaviour.items) {
    if (item.type === "response" && item.id === "own") return true;
    if (!benign(item)) return false;
  }
  return false;
}

function benign(item: SseItem): boolean {
  switch (item.type) {
    case "comment":
    case "priming":
    case "progress":
    case "log":
      return true;
    case "response":
      return item.id === "other" || item.id === "own_as_string" || item.id === "float";
    default:
      return false;
  }
}

function progressSent(call: CallCase): number[] {
  if (call.behaviour.type !== "sse") return [];
  const sent: number[] = [];
  for (const item of call.behaviour.items) {
    if (item.type === "response" && item.id === "own") break;
    if (item.type !== "progress" || !item.own) continue;
    // JSON turns NaN and ±Infinity into null (not a number) and -0 into 0.
    const wire: unknown = JSON.parse(JSON.stringify(item.progress));
    if (typeof wire === "number") sent.push(wire);
  }
  return sent;
}

describe("remote toolset calls against a hostile server", () => {
  it("fail typed, never hang, and leave the toolset working for the next call", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          sessionId: fc.option(fc.oneof(fc.constant("s-1"), sessionIdArb), { nil: undefined }),
          calls: fc.array(callCaseArb, { minLength: 1, maxLength: 3 }),
          notices: fc.array(noticeArb, { maxLength: 3 }),
          delete: noticeArb,
          formInteractions: fc.boolean(),
          samplingInteractions: fc.boolean(),
        }),
        async (scenario) => {
          const plan: HostilePlan = {
            ...(scenario.sessionId === undefined ? {} : { sessionId: scenario.sessionId }),
            initialize: { type: "valid" },
            list: { type: "valid" },
            tools: [PLAIN, SHAPED],
            calls: scenario.calls.map((call) => call.behaviour),
            // The first notice is notifications/initialized, which must pass to connect.
            notices: [{ type: "valid" }, ...scenario.notices],
            delete: scenario.delete,
          };
          const fake = createHostileMcp(plan);
          const toolset = await connectMcp({
            protocol: "2025-11-25",
            url: URL_,
            fetch: fake.fetch,
            requestTimeoutMs: TIMEOUT_MS,
            maxMessageBytes: MAX_BYTES,
            formInteractions: scenario.formInteractions,
            samplingInteractions: scenario.samplingInteractions,
          });
          const inventory = await toolset.listTools();
          for (const [index, call] of scenario.calls.entries()) {
            const good = call.concurrent
              ? settle("concurrent good call", toolset.call("plain", { case: -1 }))
              : undefined;
            const observed = await hostileCall(toolset, index, call);
            if (!observed.result.ok) {
              const allowed = call.answer === "submit" ? SUBMIT_ERRORS : CALL_ERRORS;
              expectTyped(observed.result.error, allowed, `call ${index}`);
              const { behaviour } = call;
              if (
                behaviour.type === "huge" &&
                call.abortOn === "none" &&
                call.tool !== "bad_args"
              ) {
                if (call.tool !== "missing") expectOverCap(observed.result.error, behaviour);
              }
            } else {
              expect(Array.isArray(observed.result.value.content)).toBe(true);
            }
            if (mustSucceed(call)) {
              if (!observed.result.ok) throw observed.result.error;
              expectGoodResult(observed.result.value, call.tool);
              expect(observed.progress).toEqual(progressSent(call));
            }
            if (good) {
              const outcome = await good;
              if (!outcome.ok) throw outcome.error;
              expectGoodResult(outcome.value, "plain");
            }
            // No hostile answer is terminal for the session; the next call works.
            const next = await settle("next good call", toolset.call("shaped", { case: -1 }));
            if (!next.ok) throw next.error;
            expectGoodResult(next.value, "shaped");
          }
          expect(await toolset.listTools()).toEqual(inventory);
          expect(fake.strangers).toEqual([]);
          await expectShutdownOnce(toolset, () => fake.log.filter((e) => e === "DELETE").length);
          const closed = await settle("call after shutdown", toolset.call("plain", {}));
          expectTyped(closed.ok ? undefined : closed.error, ["closed"], "call after shutdown");
          await expectNoUnhandledRejection();
        },
      ),
      { numRuns: 100 },
    );
  }, 60_000);
});
