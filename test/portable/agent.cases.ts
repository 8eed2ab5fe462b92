import * as v from "valibot";
import { DENIED_PREFIX } from "../../src/agent/gates.ts";
import { Agent, type AgentEvent } from "../../src/agent/index.ts";
import { CANCELLED_PREFIX } from "../../src/agent/transcript.ts";
import { defineTool } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/index.ts";
import { assert, assertEqual, type PortableCase } from "./harness.ts";

function notes() {
  const saved: string[] = [];
  const list = defineTool({
    name: "list_notes",
    description: "Lists the notes",
    readOnly: true,
    input: v.object({}),
    call: () => (saved.length === 0 ? "no notes" : saved.join("\n")),
  });
  const save = defineTool({
    name: "save_note",
    description: "Saves a note",
    input: v.object({ text: v.string() }),
    call: ({ text }) => {
      saved.push(text);
      return "saved";
    },
  });
  return { saved, tools: [list, save] };
}

function resultTexts(messages: { content: { type: string }[] }[], index: number): string {
  return JSON.stringify(messages[index]?.content ?? []);
}

export const cases: PortableCase[] = [
  {
    name: "agent runs a read-only tool without asking and answers",
    async run() {
      const { tools } = notes();
      const model = scriptedModel([
        { toolCalls: [{ name: "list_notes", arguments: {} }] },
        { text: "You have no notes." },
      ]);
      const run = new Agent({ model, tools }).run("What notes do I have?");
      const types: string[] = [];
      for await (const event of run) types.push(event.type);
      const result = await run.result;
      assertEqual(result.stop, "done");
      assertEqual(result.text, "You have no notes.");
      assert(types.includes("tool_result") && types.at(-1) === "done", `events: ${types}`);
      assert(
        resultTexts(result.conversation.messages, 2).includes("no notes"),
        "missing tool result",
      );
    },
  },
  {
    name: "agent runs an approved write and sends the events to the emitter",
    async run() {
      const { saved, tools } = notes();
      const model = scriptedModel([
        { toolCalls: [{ name: "save_note", arguments: { text: "buy milk" } }] },
        { text: "Saved." },
      ]);
      const agent = new Agent({ model, tools, approver: async () => ({ type: "allow" }) });
      const approvals: AgentEvent[] = [];
      agent.on("approval_resolved", (event) => approvals.push(event));
      const result = await agent.run("Remember to buy milk").result;
      assertEqual(saved, ["buy milk"]);
      assertEqual(result.stop, "done");
      assertEqual(approvals.length, 1);
    },
  },
  {
    name: "agent sends a denied write back as a refusal and the run continues",
    async run() {
      const { saved, tools } = notes();
      const model = scriptedModel([
        { toolCalls: [{ name: "save_note", arguments: { text: "x" } }] },
        { text: "I could not save it." },
      ]);
      const approver = async () => ({ type: "deny" as const, reason: "not now" });
      const result = await new Agent({ model, tools, approver }).run("Save x").result;
      assertEqual(saved, []);
      assertEqual(result.text, "I could not save it.");
      assert(
        resultTexts(result.conversation.messages, 2).includes(`${DENIED_PREFIX} not now`),
        "missing refusal",
      );
    },
  },
  {
    name: "agent run cancelled during a tool ends cancelled with no orphaned call",
    async run() {
      const controller = new AbortController();
      let toolSignal: AbortSignal | undefined;
      const wait = defineTool({
        name: "wait",
        description: "Waits until cancelled",
        readOnly: true,
        input: v.object({}),
        call: (_input, ctx) => {
          toolSignal = ctx.signal;
          queueMicrotask(() => controller.abort());
          return new Promise(() => {});
        },
      });
      const model = scriptedModel([{ toolCalls: [{ name: "wait", arguments: {} }] }]);
      const result = await new Agent({ model, tools: [wait] }).run("go", {
        signal: controller.signal,
      }).result;
      assertEqual(result.stop, "cancelled");
      assert(toolSignal?.aborted === true, "ctx.signal did not fire");
      const last = result.conversation.messages.at(-1);
      assertEqual(last?.role, "user");
      assert(resultTexts(result.conversation.messages, 2).includes(CANCELLED_PREFIX), "no result");
    },
  },
  {
    name: "agent conversation survives a JSON round trip and resumes",
    async run() {
      const model = scriptedModel([{ text: "Hi." }, { text: "Again." }]);
      const agent = new Agent({ model });
      const first = await agent.run("Hello").result;
      const saved = JSON.parse(JSON.stringify(first.conversation));
      const second = await agent.run("Once more", { conversation: saved }).result;
      assertEqual(second.text, "Again.");
      assertEqual(
        second.conversation.messages.map((m) => m.role),
        ["user", "assistant", "user", "assistant"],
      );
    },
  },
  {
    name: "agent at max_turns answers once with its tools declared but calls forbidden",
    async run() {
      const { tools } = notes();
      const list = { toolCalls: [{ name: "list_notes", arguments: {} }] };
      const model = scriptedModel([list, list, { text: "Still no notes.", ...list }]);
      const result = await new Agent({ model, tools, maxTurns: 2 }).run("Notes?").result;
      assertEqual(result.stop, "max_turns");
      assertEqual(result.text, "Still no notes.");
      const last = model.requests.at(-1);
      assertEqual(last?.toolChoice, "none");
      assertEqual(
        last?.tools.map((tool) => tool.name),
        ["list_notes", "save_note"],
      );
      assertEqual(result.conversation.messages.at(-1)?.content, [
        { type: "text", text: "Still no notes." },
      ]);
    },
  },
  {
    name: "agent run goes on when a for-await loop over it stops early",
    async run() {
      const { saved, tools } = notes();
      const model = scriptedModel([
        { toolCalls: [{ name: "save_note", arguments: { text: "a" } }] },
        { text: "Saved." },
      ]);
      const run = new Agent({ model, tools, approver: async () => ({ type: "allow" }) }).run(
        "Save",
      );
      for await (const event of run) if (event.type === "turn_start") break;
      const result = await run.result;
      assertEqual(result.stop, "done");
      assertEqual(saved, ["a"]);
    },
  },
];
