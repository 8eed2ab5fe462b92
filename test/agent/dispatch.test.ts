import * as v from "valibot";
import { describe, expect, test } from "vitest";
import type { ApprovalDecision, ApprovalRequest } from "../../src/agent/approval.ts";
import { type DispatchContext, dispatchCalls } from "../../src/agent/dispatch.ts";
import type { AgentEvent } from "../../src/agent/events.ts";
import { listToolCatalog } from "../../src/agent/tool-specs.ts";
import { defineTool, Toolset } from "../../src/index.ts";

function tools(log: string[]) {
  const tool = (name: string, options: { readOnly?: boolean; capabilities?: object } = {}) =>
    defineTool({
      name,
      description: name,
      input: v.object({}),
      ...options,
      call: async () => {
        log.push(`run ${name}`);
        return `${name} ok`;
      },
    });
  return [
    tool("read", { readOnly: true }),
    tool("write"),
    tool("private_read", { readOnly: true, capabilities: { privateData: true } }),
    tool("web", { readOnly: true, capabilities: { untrustedInput: true } }),
    tool("send", { capabilities: { externalSend: true } }),
  ];
}

async function context(
  log: string[],
  approver: (request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>,
): Promise<DispatchContext & { events: AgentEvent[] }> {
  const catalog = await listToolCatalog([Toolset.local(tools(log))]);
  const events: AgentEvent[] = [];
  return {
    events,
    catalog,
    taint: { private: false, untrusted: false },
    approver: async (request) => {
      log.push(`ask ${request.toolName}`);
      return approver(request);
    },
    interlock: "block",
    cap: Number.POSITIVE_INFINITY,
    turn: 3,
    signal: new AbortController().signal,
    emit: (event) => events.push(event),
    onInteraction: undefined,
    markUntrustedOutput: true,
  };
}

const call = (id: string, name: string) => ({ id, name, arguments: {} });

describe("dispatchCalls", () => {
  test("asks for every writing call in order before anything runs, and answers in call order", async () => {
    const log: string[] = [];
    const ctx = await context(log, (request) =>
      request.toolName === "write" && log.filter((l) => l === "ask write").length === 2
        ? { type: "deny", reason: "not twice" }
        : { type: "allow" },
    );
    const calls = [call("1", "read"), call("2", "write"), call("3", "nope"), call("4", "write")];
    const outcome = await dispatchCalls(calls, ctx);
    expect(log).toEqual(["ask write", "ask write", "run read", "run write"]);
    expect(outcome.results.map((r) => [r.toolUseId, r.isError])).toEqual([
      ["1", false],
      ["2", false],
      ["3", true],
      ["4", true],
    ]);
    expect(JSON.stringify(outcome.results[2])).toContain("Unknown tool `nope`. Available tools:");
    expect(JSON.stringify(outcome.results[3])).toContain("Denied by the user: not twice");
    expect(outcome.executed.map((e) => e.name)).toEqual(["read", "write"]);
    const calledIds = ctx.events.flatMap((e) => (e.type === "tool_call" ? [e.callId] : []));
    expect(calledIds).toEqual(["1", "2", "3", "4"]);
    const outcomes = ctx.events.flatMap((e) =>
      e.type === "tool_result" ? [`${e.callId}:${e.outcome}`] : [],
    );
    expect(outcomes.sort()).toEqual(["1:executed", "2:executed", "3:unknown", "4:refused"]);
  });

  test("judges a send by the taint of the whole batch and grows taint only from what ran", async () => {
    const log: string[] = [];
    const ctx = await context(log, () => ({ type: "allow" }));
    const calls = [call("s", "send"), call("p", "private_read"), call("w", "web")];
    const outcome = await dispatchCalls(calls, ctx);
    expect(outcome.blockedSends).toBe(1);
    expect(log).toEqual(["run private_read", "run web"]);
    expect(JSON.stringify(outcome.results[0])).toContain("Blocked by policy:");
    expect(ctx.taint).toEqual({ private: true, untrusted: true });
    const web = JSON.stringify(outcome.results[2]);
    expect(web).toContain('<untrusted-content tool=\\"web\\">');
  });

  test("accepts an approver that answers without a promise and blocks on a malformed answer", async () => {
    const log: string[] = [];
    const ctx = await context(log, () => ({ type: "allow" }));
    ctx.approver = () => ({ type: "allow" }) as unknown as Promise<ApprovalDecision>;
    const allowed = await dispatchCalls([call("1", "write")], ctx);
    expect(allowed.results[0]?.isError).toBe(false);
    ctx.approver = async () => ({ type: "deny" }) as unknown as ApprovalDecision;
    const refused = await dispatchCalls([call("2", "write")], ctx);
    expect(JSON.stringify(refused.results[0])).toContain("Blocked by policy: approver failed");
  });

  test("answers every call as cancelled when the signal is already aborted", async () => {
    const log: string[] = [];
    const ctx = await context(log, () => ({ type: "allow" }));
    const controller = new AbortController();
    controller.abort();
    ctx.signal = controller.signal;
    const outcome = await dispatchCalls([call("1", "read"), call("2", "write")], ctx);
    expect(log).toEqual([]);
    expect(outcome.results.map((r) => r.isError)).toEqual([true, true]);
    expect(JSON.stringify(outcome.results)).toContain("Cancelled:");
    expect(outcome.executed).toEqual([]);
    expect(ctx.taint).toEqual({ private: false, untrusted: false });
  });
});
