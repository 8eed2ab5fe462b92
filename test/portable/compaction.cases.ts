import * as v from "valibot";
import {
  type Conversation,
  compact,
  extractiveSummarizer,
  type Message,
} from "../../src/agent/index.ts";
import { createLoopGuard } from "../../src/compaction/loop-guard.ts";
import {
  compactionThreshold,
  createPressureTracker,
  transcriptBytes,
} from "../../src/compaction/pressure.ts";
import { defineTool, isToolError, Toolset } from "../../src/index.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

function readRun(turns: number, size: number): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "TASK: audit" }] }];
  for (let i = 0; i < turns; i++) {
    messages.push(
      {
        role: "assistant",
        content: [{ type: "tool_use", id: `r${i}`, name: "read_file", input: { path: `f${i}` } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: `r${i}`,
            content: [{ type: "text", text: `${i}:${"z".repeat(size)}` }],
            isError: false,
          },
        ],
      },
    );
  }
  return messages;
}

function conversationOf(messages: Message[]): Conversation {
  return { messages, taint: { private: false, untrusted: true }, rewritten: [] };
}

function texts(message: Message | undefined): string[] {
  return (message?.content ?? []).map((b) => (b.type === "text" ? b.text : b.type));
}

export const cases: PortableCase[] = [
  {
    name: "compact summarises the middle with the extractive summariser and keeps the task first",
    async run() {
      const input = conversationOf(readRun(12, 10));
      const out = await compact(input, { force: true, summarizer: extractiveSummarizer() });
      assert(out.summarized && out.changed, "expected a summary");
      const head = texts(out.conversation.messages[0]);
      assertEqual(head[0], "TASK: audit");
      assert(head[1]?.includes("last call: read_file") === true, "summary lacks the position");
      assertEqual(out.conversation.messages.length, 1 + 6);
      assertEqual(out.conversation.messages[1]?.role, "assistant");
    },
  },
  {
    name: "compact carries a toolset's state verbatim in exactly one block",
    async run() {
      let state = "1/3\n[x] a\n[~] b\n[ ] c ";
      const todo = defineTool({
        name: "todo",
        description: "todo",
        input: v.object({}),
        call: () => "ok",
        carriedState: () => ({ label: "todo", body: state }),
      });
      const toolsets = [Toolset.local([todo])];
      const first = await compact(conversationOf(readRun(10, 5)), {
        force: true,
        summarizer: extractiveSummarizer(),
        toolsets,
      });
      state = "2/3\n[x] a\n[x] b\n[~] c";
      const more = [...first.conversation.messages, ...readRun(10, 5).slice(1)];
      const second = await compact(
        { ...first.conversation, messages: more },
        { force: true, summarizer: extractiveSummarizer(), toolsets },
      );
      const blocks = texts(second.conversation.messages[0]).filter((t) =>
        t.includes("\n## todo\n"),
      );
      assertEqual(blocks.length, 1);
      assert(blocks[0]?.endsWith(`\n## todo\n${state}`) === true, "the body is not verbatim");
    },
  },
  {
    name: "compact records the pre-rewrite transcript when asked and never mutates its input",
    async run() {
      const input = conversationOf(readRun(12, 400));
      const copy = structuredClone(input);
      const summarizer = extractiveSummarizer();
      const out = await compact(input, { force: true, summarizer, keepRewritten: true });
      assertEqual(input, copy);
      assertEqual(out.conversation.rewritten, [copy.messages]);
      const plain = await compact(input, { force: true, summarizer });
      assertEqual(plain.conversation.rewritten, []);
      assertEqual(out.conversation.taint, copy.taint);
    },
  },
  {
    name: "compact does nothing under the threshold, and only the free passes when they suffice",
    async run() {
      const input = conversationOf(readRun(12, 4000));
      const under = await compact(input, { thresholdTokens: 20_000, promptTokens: 19_999 });
      assertEqual(under.changed, false);
      const passes = await compact(input, {
        thresholdTokens: 8000,
        promptTokens: 12_500,
        summarizer: extractiveSummarizer(),
      });
      assert(passes.changed && !passes.summarized, "expected the passes alone");
      assertEqual(passes.conversation.messages.length, input.messages.length);
    },
  },
  {
    name: "compact never installs an empty or truncated summary",
    async run() {
      const input = conversationOf(readRun(12, 10));
      const empty = await compact(input, { force: true, summarizer: async () => ({ text: "" }) });
      assertEqual(empty.summaryError, { type: "empty" });
      const cut = await compact(input, {
        force: true,
        summarizer: async () => ({ text: "x", truncated: true }),
      });
      assertEqual(cut.summaryError, { type: "truncated" });
      assertEqual(cut.summarized, false);
    },
  },
  {
    name: "compact rejects with cancelled on an aborted signal",
    async run() {
      await assertRejects(
        () => compact(conversationOf(readRun(3, 1)), { signal: AbortSignal.abort() }),
        (e) => isToolError(e, "cancelled"),
      );
    },
  },
  {
    name: "the threshold, the pressure tracker and the loop guard behave as specified",
    run() {
      assertEqual(compactionThreshold({ contextWindow: 32_768 }), 21_626);
      assertEqual(compactionThreshold({}), undefined);
      const tracker = createPressureTracker();
      assertEqual(tracker.over(1, 1), false);
      tracker.observe(9000, 30_000);
      assert(tracker.over(8000, 30_000), "a reading over the limit must fire");
      const guard = createLoopGuard();
      const turn = [{ name: "read", arguments: { path: "a" }, result: "x" }];
      assertEqual(guard.recordTurn(turn), false);
      guard.arm();
      assertEqual(guard.recordTurn(turn), false);
      assertEqual(guard.recordTurn(turn), true);
    },
  },
  {
    name: "the extractive summary keeps what remains of a list; thinAll thins the newest result",
    async run() {
      const list = "[x] 1. parse\n[~] 2. test\n[ ] 3. ship";
      const messages: Message[] = [
        ...readRun(6, 400),
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t", name: "todo", input: { action: "complete" } }],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              toolUseId: "t",
              content: [{ type: "text", text: `${list}\n${"z".repeat(400)}` }],
              isError: false,
            },
          ],
        },
        // The kept tail (keepRecent 2) is one more read, so the todo call is summarised.
        ...readRun(1, 400)
          .slice(1)
          .map((m) => ({
            ...m,
            content: m.content.map((b) =>
              b.type === "tool_use"
                ? { ...b, id: "last" }
                : b.type === "tool_result"
                  ? { ...b, toolUseId: "last" }
                  : b,
            ),
          })),
      ];
      const out = await compact(conversationOf(messages), {
        force: true,
        keepRecent: 2,
        thinAll: true,
        summarizer: extractiveSummarizer(),
      });
      assert(out.summarized, "expected a summary");
      const head = texts(out.conversation.messages[0]).join("\n");
      assert(head.includes("Remaining:\n- [~] 2. test\n- [ ] 3. ship"), "lost what remains");
      const newest = out.conversation.messages.at(-1)?.content[0];
      const text = newest?.type === "tool_result" ? newest.content[0] : undefined;
      assert(text?.type === "text" && text.text.includes("[thinned:"), "newest not thinned");
    },
  },
  {
    name: "transcriptBytes counts UTF-8 and leaves image payloads out",
    run() {
      const text: Message[] = [{ role: "user", content: [{ type: "text", text: "é😀" }] }];
      assertEqual(transcriptBytes(text), new TextEncoder().encode(JSON.stringify(text)).length);
      const image = (data: string): Message[] => [
        { role: "user", content: [{ type: "image", mimeType: "image/png", data }] },
      ];
      assertEqual(transcriptBytes(image("A".repeat(5000))), transcriptBytes(image("")));
    },
  },
];
