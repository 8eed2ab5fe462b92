import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent, BLOCKED_PREFIX, modeApprover, type RunResult } from "../../src/agent/index.ts";
import { type Capabilities, defineTool } from "../../src/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/scripted-model.ts";

function tool(name: string, readOnly: boolean, caps: Partial<Capabilities>, log: string[]) {
  return defineTool({
    name,
    description: name,
    readOnly,
    capabilities: caps,
    input: v.object({}),
    call: () => {
      log.push(name);
      return `${name} output`;
    },
  });
}

function toolsFor(log: string[]) {
  return [
    tool("read_mail", true, { privateData: true }, log),
    tool("fetch_page", true, { untrustedInput: true, externalSend: true }, log),
    tool("browse_sandbox", true, { untrustedInput: true }, log),
    tool("send_email", false, { externalSend: true }, log),
  ];
}

function agentWith(turns: ScriptedTurn[], log: string[], interlock?: "block" | "ask" | "allow") {
  const model = scriptedModel(turns);
  return new Agent({
    model,
    tools: toolsFor(log),
    approver: modeApprover("allow"),
    ...(interlock ? { interlock } : {}),
  });
}

function resultText(result: RunResult, message: number): string {
  return JSON.stringify(result.conversation.messages[message]);
}

describe("interlock", () => {
  test("refuses a send batched with a private read and an untrusted read, naming safe delegates", async () => {
    const log: string[] = [];
    const agent = agentWith(
      [
        {
          toolCalls: [
            { name: "read_mail", arguments: {} },
            { name: "fetch_page", arguments: {} },
            { name: "send_email", arguments: {} },
          ],
        },
        { text: "ok" },
      ],
      log,
    );
    const result = await agent.run("go").result;
    // Hint: fetch_page sends too (a GET carries a query string), so it is refused as well.
    expect(log).toEqual(["read_mail"]);
    expect(result.blockedSends).toBe(2);
    const text = resultText(result, 2);
    expect(text).toContain(`${BLOCKED_PREFIX} \`send_email\` can send data outside`);
    expect(text).toContain("Safe delegates");
    expect(text).toContain("`browse_sandbox`");
    expect(text).not.toContain("`read_mail`,");
    expect(result.conversation.taint).toEqual({ private: true, untrusted: false });
  });

  test("lets a send through while the conversation holds only one leg", async () => {
    const log: string[] = [];
    const agent = agentWith(
      [
        {
          toolCalls: [
            { name: "read_mail", arguments: {} },
            { name: "send_email", arguments: {} },
          ],
        },
        { text: "ok" },
      ],
      log,
    );
    const result = await agent.run("go").result;
    expect(log).toEqual(["read_mail", "send_email"]);
    expect(result.blockedSends).toBe(0);
    expect(result.conversation.taint).toEqual({ private: true, untrusted: false });
  });

  test("taint grows across turns and a resumed run keeps it", async () => {
    const log: string[] = [];
    const first = await agentWith(
      [
        { toolCalls: [{ name: "read_mail", arguments: {} }] },
        { toolCalls: [{ name: "browse_sandbox", arguments: {} }] },
        { text: "ok" },
      ],
      log,
    ).run("go").result;
    expect(first.conversation.taint).toEqual({ private: true, untrusted: true });
    const saved = JSON.parse(JSON.stringify(first.conversation));
    const second = await agentWith(
      [{ toolCalls: [{ name: "send_email", arguments: {} }] }, { text: "ok" }],
      log,
    ).run("now send it", { conversation: saved }).result;
    expect(log).toEqual(["read_mail", "browse_sandbox"]);
    expect(second.blockedSends).toBe(1);
    expect(second.conversation.taint).toEqual({ private: true, untrusted: true });
  });

  test("a refused call does not taint, and taint never shrinks", async () => {
    const log: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: "read_mail", arguments: {} }] },
      { text: "ok" },
    ]);
    const agent = new Agent({ model, tools: toolsFor(log), approver: modeApprover("ask") });
    const start = { messages: [], taint: { private: false, untrusted: true }, rewritten: [] };
    const result = await agent.run("go", { conversation: start }).result;
    expect(result.conversation.taint).toEqual({ private: true, untrusted: true });
    expect(start.taint).toEqual({ private: false, untrusted: true });
  });

  test("an image in a user message arms the private leg", async () => {
    const model = scriptedModel([{ text: "nice" }]);
    const agent = new Agent({ model });
    const result = await agent.run([
      { role: "user", content: [{ type: "image", mimeType: "image/png", data: "AA==" }] },
    ]).result;
    expect(result.conversation.taint.private).toBe(true);
  });

  test("the ask policy forces approval and the allow policy lets the send through", async () => {
    const asked: string[] = [];
    const turns: ScriptedTurn[] = [
      {
        toolCalls: [
          { name: "read_mail", arguments: {} },
          { name: "fetch_page", arguments: {} },
        ],
      },
      { text: "ok" },
    ];
    const log: string[] = [];
    const model = scriptedModel(turns);
    const agent = new Agent({
      model,
      tools: toolsFor(log),
      interlock: "ask",
      approver: async (request) => {
        asked.push(request.toolName);
        return { type: "deny", reason: "no" };
      },
    });
    await agent.run("go").result;
    expect(asked).toEqual(["fetch_page"]);
    expect(log).toEqual(["read_mail"]);
    const allowLog: string[] = [];
    const allowed = await agentWith(turns, allowLog, "allow").run("go").result;
    expect(allowLog).toEqual(["read_mail", "fetch_page"]);
    expect(allowed.blockedSends).toBe(0);
  });

  test("wraps untrusted output as data", async () => {
    const log: string[] = [];
    const result = await agentWith(
      [{ toolCalls: [{ name: "browse_sandbox", arguments: {} }] }, { text: "ok" }],
      log,
    ).run("go").result;
    const block = result.conversation.messages[2]?.content[0];
    expect(
      block?.type === "tool_result" && block.content.map((c) => c.type === "text" && c.text),
    ).toEqual([
      expect.stringContaining('<untrusted-content tool="browse_sandbox">'),
      "browse_sandbox output",
      "</untrusted-content>",
    ]);
  });
});
