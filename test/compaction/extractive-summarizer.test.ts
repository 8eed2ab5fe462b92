import { describe, expect, test } from "vitest";
import { extractiveSummarizer } from "../../src/compaction/extractive-summarizer.ts";
import { summaryBlock } from "../../src/compaction/head.ts";
import { renderTranscript } from "../../src/compaction/summarizer.ts";
import { isToolError } from "../../src/errors.ts";
import type { Message } from "../../src/models/message.ts";
import { assistant, call, err, ok, results, user } from "./fixtures.ts";

const head: Message = {
  role: "user",
  content: [{ type: "text", text: "TASK: fix the build" }, summaryBlock("old summary text")],
};

const messages: Message[] = [
  head,
  assistant("reading", call("1", "read_file", { path: "src/a.ts", encoding: "utf8" })),
  results(ok("1", "export const a = 1;\nmore")),
  assistant(
    undefined,
    call("2", "todo", { step: 3, status: "in_progress" }),
    call("3", "run", { command: "npm test" }),
  ),
  results(ok("2", "step 3 started"), err("3", "FAIL src/a.test.ts\nstack"), "also check b.ts"),
  assistant("retrying", call("4", "read_file", { path: "src/a.ts", encoding: "utf8" })),
  results(ok("4", "export const a = 2;")),
];

describe("extractiveSummarizer", () => {
  test("keeps the task, requests, calls with key arguments, errors and the last position", async () => {
    const { text } = await extractiveSummarizer()({ transcript: renderTranscript(messages) }, {});
    expect(text).toBe(
      [
        "Task: TASK: fix the build",
        "Requests:",
        "- also check b.ts",
        "Tool calls (4 in these turns):",
        '- todo {"step":3,"status":"in_progress"}',
        '- run {"command":"npm test"}',
        '- read_file {"path":"src/a.ts"} (×2)',
        "Errors:",
        '- run {"command":"npm test"}: FAIL src/a.test.ts',
        "Position:",
        '- last call: read_file {"encoding":"utf8","path":"src/a.ts"} → export const a = 2;',
        '- last step in a sequence: todo {"status":"in_progress","step":3} → step 3 started',
        "Last assistant note: retrying",
      ].join("\n"),
    );
    expect(text).not.toContain("old summary text");
  });

  test("is deterministic and bounded on long transcripts", async () => {
    const long: Message[] = [user("TASK")];
    for (let i = 0; i < 500; i++) {
      long.push(
        assistant(`note ${i}`, call(`${i}`, "read", { path: `f${i}` })),
        results(err(`${i}`, `E${i}`), `req ${i}`),
      );
    }
    const transcript = renderTranscript(long);
    const a = await extractiveSummarizer()({ transcript }, {});
    const b = await extractiveSummarizer()({ transcript }, {});
    expect(a).toEqual(b);
    expect(a.text.length).toBeLessThan(2500);
    expect(a.text).toContain('last call: read {"path":"f499"} → E499');
  });

  test("rejects with `cancelled` on an aborted signal", async () => {
    const error = await extractiveSummarizer()(
      { transcript: "" },
      { signal: AbortSignal.abort() },
    ).catch((e) => e);
    expect(isToolError(error, "cancelled")).toBe(true);
  });

  test("keeps what remains of a todo list, as the demo's todo tool prints it", async () => {
    // The demo's `todo` tool answers every action with the whole list, one
    // `[marker] id. text` line per item; the first line alone would be the oldest, done item.
    const list = (done: number) =>
      ["write the parser", "add tests", "fix the bug", "update the docs", "release 1.2"]
        .map((text, i) => `${i < done ? "[x]" : i === done ? "[~]" : "[ ]"} ${i + 1}. ${text}`)
        .join("\n");
    const flow: Message[] = [
      user("TASK: ship release 1.2"),
      assistant("planning", call("1", "todo", { action: "add", items: ["write the parser"] })),
      results(ok("1", list(0))),
      assistant(undefined, call("2", "read_file", { path: "src/parser.ts" })),
      results(ok("2", "export function parse() {}")),
      assistant(undefined, call("3", "todo", { action: "complete", id: 1 })),
      results(ok("3", list(1))),
      assistant(undefined, call("4", "todo", { action: "complete", id: 2 })),
      results(ok("4", list(2))),
      assistant("now the bug", call("5", "calculator", { expression: "6*7" })),
      results(ok("5", "42")),
    ];
    const transcript = renderTranscript(flow);
    const { text } = await extractiveSummarizer()({ transcript }, {});
    expect(text).toContain("Task: TASK: ship release 1.2");
    expect(text).toContain('last step in a sequence: todo {"action":"complete","id":2} → [x] 1.');
    expect(text).toContain(
      [
        "Remaining:",
        "- [~] 3. fix the bug",
        "- [ ] 4. update the docs",
        "- [ ] 5. release 1.2",
      ].join("\n"),
    );
    expect(text).not.toContain("- [x]");
    // Deterministic: the same rendering gives the same summary.
    expect((await extractiveSummarizer()({ transcript }, {})).text).toBe(text);
  });

  test("bounds what remains to 5 open items and names how many more there are", async () => {
    const items = Array.from({ length: 30 }, (_, i) => `[ ] ${i + 1}. item ${i + 1}`).join("\n");
    const transcript = renderTranscript([
      user("TASK: long plan"),
      assistant(undefined, call("1", "plan", { step: 0 })),
      results(ok("1", `0/30 done\n${items}`)),
    ]);
    const { text } = await extractiveSummarizer()({ transcript }, {});
    const open = text.split("\n").filter((line) => line.startsWith("- [ ]"));
    expect(open).toHaveLength(5);
    expect(open[0]).toBe("- [ ] 1. item 1");
    expect(text).toContain("- … and 25 more");
  });

  test("a fold merges the earlier summaries with the new turns under the same limits", async () => {
    const summarize = extractiveSummarizer();
    const stretch = (from: number, to: number): Message[] => {
      const out: Message[] = [user("TASK: migrate the modules")];
      for (let i = from; i < to; i++) {
        out.push(assistant(`module ${i}`, call(`t${i}`, "todo", { step: i })));
        out.push(
          results(i % 4 === 1 ? err(`t${i}`, `E${i}`) : ok(`t${i}`, `[x] ${i}\n[ ] ${i + 1}`)),
        );
      }
      return out;
    };
    const earlier = [
      (await summarize({ transcript: renderTranscript(stretch(0, 10)) }, {})).text,
      (await summarize({ transcript: renderTranscript(stretch(10, 20)) }, {})).text,
    ];
    const { text } = await summarize(
      { transcript: renderTranscript(stretch(20, 25)), summaries: earlier },
      {},
    );
    const lines = text.split("\n");
    expect(lines[0]).toBe("Task: TASK: migrate the modules");
    expect(lines).toContain("Tool calls (25 in these turns):");
    // The newest calls and errors win their bounded lists; the position is the newest stretch's.
    const section = (text: string, title: RegExp) => {
      const all = text.split("\n");
      const start = all.findIndex((line) => title.test(line));
      const end = all.findIndex((line, i) => i > start && !line.startsWith("- "));
      return all.slice(start + 1, end === -1 ? undefined : end);
    };
    const calls = section(text, /^Tool calls/);
    expect(calls).toHaveLength(12);
    expect(calls.at(-1)).toBe('- todo {"step":24}');
    expect(lines.slice(lines.indexOf("Errors:") + 1, lines.indexOf("Errors:") + 6)).toEqual(
      ["E5", "E9", "E13", "E17", "E21"].map((e) => `- todo {"step":${e.slice(1)}}: ${e}`),
    );
    expect(text).toContain('last call: todo {"step":24} → [x] 24');
    expect(lines).toContain("- [ ] 25");
    expect(text).toMatch(/Last assistant note: module 24$/);
    // Folding again, and again, stays the same size: it is bounded, not cumulative.
    let folded = text;
    for (let round = 0; round < 5; round++) {
      folded = (
        await summarize(
          { transcript: renderTranscript(stretch(25, 30)), summaries: [folded, folded] },
          {},
        )
      ).text;
    }
    expect(folded.length).toBeLessThan(text.length * 1.5);
    expect(section(folded, /^Tool calls/)).toHaveLength(12);
    expect(section(folded, /^Errors:/)).toHaveLength(5);
  });

  test("a fold keeps, clipped and bounded, the lines of a summary another summariser wrote", async () => {
    const model = [
      "The user wants the build fixed.",
      "- src/a.ts exports a = 2",
      "",
      "Next: run the tests.",
    ];
    const { text } = await extractiveSummarizer()(
      { transcript: renderTranscript(messages), summaries: [model.join("\n")] },
      {},
    );
    const lines = text.split("\n");
    const start = lines.indexOf("Earlier notes:");
    expect(lines.slice(start + 1, start + 4)).toEqual([
      "- The user wants the build fixed.",
      "- src/a.ts exports a = 2",
      "- Next: run the tests.",
    ]);
    const long = Array.from({ length: 30 }, (_, i) => `fact ${i} ${"x".repeat(300)}`).join("\n");
    const folded = await extractiveSummarizer()(
      { transcript: renderTranscript(messages), summaries: [long] },
      {},
    );
    const kept = folded.text.split("\n").filter((line) => line.startsWith("- fact"));
    expect(kept).toHaveLength(8);
    expect(kept.at(-1)?.startsWith("- fact 29 ")).toBe(true);
    expect(Math.max(...kept.map((line) => line.length))).toBeLessThanOrEqual(203);
  });
});
