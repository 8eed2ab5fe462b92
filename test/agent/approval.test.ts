import * as v from "valibot";
import { describe, expect, test } from "vitest";
import {
  Agent,
  type AgentEvent,
  type ApprovalDecision,
  type ApprovalRequest,
  BLOCKED_PREFIX,
  DENIED_PREFIX,
  modeApprover,
} from "../../src/agent/index.ts";
import {
  capabilities,
  capabilitiesFromAnnotations,
  defineTool,
  interactionCapabilities,
  JsonSchema,
  type ToolInfo,
  ToolResult,
  Toolset,
  toolName,
} from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";

function info(name: string, readOnly: boolean): ToolInfo {
  return {
    name: toolName(name),
    inputSchema: JsonSchema.unspecified({ type: "object" }),
    annotations: { readOnlyHint: readOnly },
    capabilities: capabilities(),
    interactions: interactionCapabilities(),
  };
}

function request(name: string, readOnly: boolean): ApprovalRequest {
  const declared = info(name, readOnly);
  return {
    toolName: name,
    callId: "c",
    arguments: {},
    info: declared,
    capabilities: declared.capabilities,
  };
}

function recordingTools(log: string[]) {
  const make = (name: string, readOnly: boolean) =>
    defineTool({
      name,
      description: name,
      readOnly,
      input: v.object({}),
      call: () => {
        log.push(`run ${name}`);
        return name;
      },
    });
  return [make("read", true), make("write_a", false), make("write_b", false)];
}

describe("modeApprover", () => {
  const signal = new AbortController().signal;

  test("allow mode allows everything", async () => {
    expect(await modeApprover("allow")(request("w", false), signal)).toEqual({ type: "allow" });
  });

  test("read-only mode blocks only tools that are not read-only", async () => {
    expect(await modeApprover("read-only")(request("r", true), signal)).toEqual({ type: "allow" });
    expect(await modeApprover("read-only")(request("w", false), signal)).toMatchObject({
      type: "block",
    });
  });

  test("ask mode blocks, because nobody can be asked", async () => {
    expect(await modeApprover("ask")(request("w", false), signal)).toEqual({
      type: "block",
      reason: "`w` needs approval and this run is non-interactive",
    });
  });
});

describe("approval gate", () => {
  test("asks one call at a time in call order, all before any execution, skipping read-only", async () => {
    const log: string[] = [];
    let pending = 0;
    const approver = async (req: ApprovalRequest): Promise<ApprovalDecision> => {
      pending += 1;
      expect(pending).toBe(1);
      log.push(`ask ${req.toolName}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      pending -= 1;
      return { type: "allow" };
    };
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "write_b", arguments: {} },
          { name: "read", arguments: {} },
          { name: "write_a", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    await new Agent({ model, tools: recordingTools(log), approver }).run("go").result;
    expect(log).toEqual(["ask write_b", "ask write_a", "run write_b", "run read", "run write_a"]);
  });

  test("writes the refusal prefixes itself, whatever the approver's reason", async () => {
    const log: string[] = [];
    const approver = async (req: ApprovalRequest): Promise<ApprovalDecision> =>
      req.toolName === "write_a"
        ? { type: "deny", reason: "not today" }
        : { type: "block", reason: "writes are off" };
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "write_a", arguments: {} },
          { name: "write_b", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const run = new Agent({ model, tools: recordingTools(log), approver }).run("go");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(log).toEqual([]);
    expect(result.conversation.messages[2]?.content).toEqual([
      {
        type: "tool_result",
        toolUseId: "call_1",
        isError: true,
        content: [{ type: "text", text: `${DENIED_PREFIX} not today` }],
      },
      {
        type: "tool_result",
        toolUseId: "call_2",
        isError: true,
        content: [{ type: "text", text: `${BLOCKED_PREFIX} writes are off` }],
      },
    ]);
    expect(
      events
        .filter((e) => e.type === "tool_result")
        .map((e) => e.type === "tool_result" && e.outcome),
    ).toEqual(["refused", "refused"]);
    expect(events.filter((e) => e.type.startsWith("approval_")).map((e) => e.type)).toEqual([
      "approval_requested",
      "approval_resolved",
      "approval_requested",
      "approval_resolved",
    ]);
  });

  test("fails closed by default: without an approver writing tools are blocked", async () => {
    const log: string[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "write_a", arguments: {} },
          { name: "read", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: recordingTools(log) }).run("go").result;
    expect(log).toEqual(["run read"]);
    expect(JSON.stringify(result.conversation.messages[2])).toContain(
      `${BLOCKED_PREFIX} \`write_a\` needs approval and this run is non-interactive`,
    );
  });

  test("an approver that throws or answers nonsense blocks the call", async () => {
    const log: string[] = [];
    let calls = 0;
    const approver = async (): Promise<ApprovalDecision> => {
      calls += 1;
      if (calls === 1) throw new Error("approver crashed");
      return { type: "maybe" } as unknown as ApprovalDecision;
    };
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "write_a", arguments: {} },
          { name: "write_b", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, tools: recordingTools(log), approver }).run("go")
      .result;
    expect(log).toEqual([]);
    const texts = JSON.stringify(result.conversation.messages[2]);
    expect(texts.split(`${BLOCKED_PREFIX} approver failed`)).toHaveLength(3);
  });

  test("a remote tool without readOnlyHint needs approval; one with it does not", async () => {
    const asked: string[] = [];
    const remote = (name: string, annotations: ToolInfo["annotations"]): ToolInfo => ({
      ...info(name, false),
      annotations,
      capabilities: capabilitiesFromAnnotations(annotations, { trusted: true }),
    });
    const backend = {
      listTools: async () => [
        remote("lookup", { readOnlyHint: true }),
        remote("mutate", { openWorldHint: false }),
      ],
      toolHandler: async (name: string) => ({
        step: async () => ({ type: "completed" as const, result: ToolResult.text(`${name} ran`) }),
      }),
      shutdown: async () => {},
    };
    const merged = Toolset.merge([Toolset.fromBackend(backend)], { namespaces: ["srv"] });
    const approver = async (req: ApprovalRequest): Promise<ApprovalDecision> => {
      asked.push(req.toolName);
      expect(req.capabilities.privateData).toBe(true);
      return { type: "allow" };
    };
    const model = scriptedModel([
      {
        toolCalls: [
          { name: "srv__lookup", arguments: {} },
          { name: "srv__mutate", arguments: {} },
        ],
      },
      { text: "ok" },
    ]);
    const result = await new Agent({ model, toolsets: [merged], approver }).run("go").result;
    expect(asked).toEqual(["srv__mutate"]);
    expect(JSON.stringify(result.conversation.messages[2])).toContain("mutate ran");
  });
});
