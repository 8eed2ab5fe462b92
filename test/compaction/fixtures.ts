/**
 * Transcript builders and a fast-check generator of valid transcripts, for the compaction tests.
 */
import fc from "fast-check";
import type {
  Block,
  Message,
  ToolResultBlock,
  ToolResultMark,
  ToolUseBlock,
} from "../../src/models/message.ts";

/** A user message with one text block. */
export function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

/** An assistant message: optional text, then tool calls. */
export function assistant(text: string | undefined, ...calls: ToolUseBlock[]): Message {
  const content: Block[] = text === undefined ? [] : [{ type: "text", text }];
  return { role: "assistant", content: [...content, ...calls] };
}

/** A tool call block. */
export function call(id: string, name: string, input: unknown): ToolUseBlock {
  return { type: "tool_use", id, name, input };
}

/** A successful text result. */
export function ok(id: string, text: string): ToolResultBlock {
  return { type: "tool_result", toolUseId: id, content: [{ type: "text", text }], isError: false };
}

/** A failed text result. */
export function err(id: string, text: string): ToolResultBlock {
  return { type: "tool_result", toolUseId: id, content: [{ type: "text", text }], isError: true };
}

/** A user message carrying tool results (and optional trailing text). */
export function results(...blocks: (ToolResultBlock | string)[]): Message {
  return {
    role: "user",
    content: blocks.map((b) => (typeof b === "string" ? { type: "text", text: b } : b)),
  };
}

/** The text of a result block (its single text item). */
export function textOf(block: Block | undefined): string {
  if (block?.type === "tool_result") {
    const first = block.content[0];
    return first?.type === "text" ? first.text : JSON.stringify(block.content);
  }
  if (block?.type === "text") return block.text;
  throw new Error(`not a text-bearing block: ${JSON.stringify(block)}`);
}

/** Every tool result block of a transcript, in order. */
export function allResults(messages: readonly Message[]): ToolResultBlock[] {
  return messages.flatMap((m) => m.content.filter((b) => b.type === "tool_result"));
}

const TOOLS = ["read_file", "write_file", "search", "todo", "fetch"] as const;
const PATHS = ["a.ts", "b.ts", "src/c.ts", "docs/d.md"] as const;
// Failures as a tool reports them, and refusals as the agent loop writes them (marked).
const ERRORS: readonly { text: string; mark?: ToolResultMark }[] = [
  { text: "ENOENT: no such file" },
  { text: "Denied by the user: not now", mark: "denied" },
  { text: "Blocked by policy: external send", mark: "blocked" },
  { text: "Denied by the user: lint failed" },
  { text: "timeout" },
];

const callSpec = fc.record({
  name: fc.constantFrom(...TOOLS),
  path: fc.option(fc.constantFrom(...PATHS), { nil: undefined }),
  query: fc.constantFrom("x", "y"),
  error: fc.option(fc.constantFrom(...ERRORS), { nil: undefined, freq: 3 }),
  size: fc.constantFrom(5, 50, 300, 3000),
});

const turnSpec = fc.record({
  text: fc.option(fc.string({ maxLength: 20 }), { nil: undefined }),
  calls: fc.array(callSpec, { maxLength: 3 }),
  steer: fc.option(fc.string({ minLength: 1, maxLength: 10 }), { nil: undefined, freq: 5 }),
});

/**
 * Arbitrary valid transcripts: a task, then turns of an assistant message (text and tool calls)
 * followed by a user message with exactly their results (or plain user text when the turn made no
 * calls); the last turn may end on the assistant message.
 */
export const validTranscript = fc
  .record({
    task: fc.string({ minLength: 1, maxLength: 40 }),
    turns: fc.array(turnSpec, { minLength: 0, maxLength: 24 }),
    endOnAssistant: fc.boolean(),
  })
  .map(({ task, turns, endOnAssistant }) => {
    const messages: Message[] = [user(`TASK: ${task}`)];
    let id = 0;
    turns.forEach((turn, t) => {
      const uses = turn.calls.map((c) =>
        call(`c${id++}`, c.name, c.path === undefined ? { query: c.query } : { path: c.path }),
      );
      if (uses.length === 0 && turn.text === undefined) uses.push(call(`c${id++}`, "todo", {}));
      messages.push(assistant(turn.text, ...uses));
      if (endOnAssistant && t === turns.length - 1) return;
      const blocks: (ToolResultBlock | string)[] = uses.map((use, i) => {
        const spec = turn.calls[i];
        const body = `${use.name}:${"x".repeat(spec?.size ?? 5)}`;
        if (spec?.error === undefined) return ok(use.id, body);
        const failure = err(use.id, spec.error.text);
        if (spec.error.mark) failure.mark = spec.error.mark;
        return failure;
      });
      if (blocks.length === 0 || turn.steer !== undefined) blocks.push(turn.steer ?? "go on");
      messages.push(results(...blocks));
    });
    return messages;
  });
