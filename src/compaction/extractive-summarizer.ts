import { cancelledError } from "../abort.ts";
import { canonicalJson } from "./canonical-json.ts";
import type { Summarizer } from "./summarizer.ts";
import { SUMMARY_MARKER } from "./summary-block.ts";

// Hint: the limits keep every summary small, because summaries accumulate in message 0.
const MAX_REQUESTS = 5;
const MAX_CALLS = 12;
const MAX_ERRORS = 5;
const MAX_OPEN_ITEMS = 5;
// Hint: a line of a checklist not yet done (`[ ]` pending, `[~]` in progress), as todo tools
// print them; these lines are "what remains".
const OPEN_ITEM = /^\s*(?:[-*]\s+|\d+[.)]\s+)?\[[ ~]\]/;
const KEY_ARGS = [
  "action",
  "path",
  "file",
  "url",
  "uri",
  "query",
  "command",
  "id",
  "name",
  "title",
  "step",
  "index",
  "item",
  "page",
  "offset",
  "limit",
  "cursor",
  "line",
  "status",
];
const SEQUENCE_ARGS = ["step", "index", "item", "page", "offset", "cursor", "line", "position"];
const SEQUENCE_TOOL = /todo|step|plan|task|progress|checklist/i;
const TAGS = /(?<=^|\n)\[(user|assistant|tool result|tool error|assistant calls ([^\]\n]+))\] ?/g;

interface Call {
  name: string;
  args: string;
  input: unknown;
  result?: string;
}

/**
 * Creates a deterministic summariser that needs no model: it parses the rendered transcript
 * (`renderTranscript`) and keeps the task, the user's later requests, the tool calls with their
 * key arguments, the errors, and the last position in any sequence (the last call to a todo,
 * step or plan tool, or the last call with a step-like argument) with the open `[ ]` / `[~]`
 * items its result lists, as what remains. Used offline and in tests.
 *
 * @returns The summariser.
 * @example
 * ```ts
 * await compact(conversation, { summarizer: extractiveSummarizer(), force: true });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function extractiveSummarizer(): Summarizer {
  return async ({ transcript }, { signal }) => {
    if (signal?.aborted) throw cancelledError("summarizer", signal);
    return { text: summarizeRendering(transcript) };
  };
}

function summarizeRendering(transcript: string): string {
  let task: string | undefined;
  const requests: string[] = [];
  const calls: Call[] = [];
  const errors: string[] = [];
  let pending: Call[] = [];
  let lastSequence: Call | undefined;
  let lastNote: string | undefined;
  for (const { tag, callee, text } of entries(transcript)) {
    if (callee !== undefined) {
      const input = parseJson(text);
      const call: Call = { name: callee, args: keyArgs(input, text), input };
      calls.push(call);
      pending.push(call);
      if (isSequenceCall(call)) lastSequence = call;
    } else if (tag === "user") {
      pending = [];
      if (text.startsWith(SUMMARY_MARKER)) continue;
      if (task === undefined) task = text;
      else requests.push(text);
    } else if (tag === "assistant") {
      lastNote = text;
    } else {
      const call = pending.shift();
      if (call) call.result = text;
      if (tag === "tool error") {
        errors.push(`${call ? `${call.name} ${call.args}: ` : ""}${clip(firstLine(text), 160)}`);
      }
    }
  }
  const out: string[] = [];
  if (task !== undefined) out.push(`Task: ${clip(task, 300)}`);
  section(
    out,
    "Requests",
    requests.slice(-MAX_REQUESTS).map((r) => clip(r, 200)),
  );
  section(out, `Tool calls (${calls.length} in these turns)`, distinctCalls(calls));
  section(out, "Errors", errors.slice(-MAX_ERRORS));
  const position: string[] = [];
  const last = calls.at(-1);
  if (last) position.push(`last call: ${describeCall(last)}`);
  if (lastSequence && lastSequence !== last) {
    position.push(`last step in a sequence: ${describeCall(lastSequence)}`);
  }
  section(out, "Position", position);
  // Hint: a sequence tool's result is often the whole list (a todo tool prints every item), and
  // its open items are what remains; the first line alone would keep only the oldest item.
  const open = (lastSequence?.result ?? "").split("\n").filter((line) => OPEN_ITEM.test(line));
  const remaining = open.slice(0, MAX_OPEN_ITEMS).map((line) => clip(line.trim(), 120));
  if (open.length > MAX_OPEN_ITEMS) remaining.push(`… and ${open.length - MAX_OPEN_ITEMS} more`);
  section(out, "Remaining", remaining);
  if (lastNote !== undefined) out.push(`Last assistant note: ${clip(lastNote, 300)}`);
  return out.length > 0 ? out.join("\n") : "(no earlier turns)";
}

function* entries(transcript: string): Generator<{ tag: string; callee?: string; text: string }> {
  // Hint: the regex finds the tagged lines without splitting every line of every long result;
  // an entry is everything from its tag to the newline before the next tag.
  let current: { tag: string; callee?: string; start: number } | undefined;
  for (const match of transcript.matchAll(TAGS)) {
    if (current) yield entry(current, transcript.slice(current.start, match.index - 1));
    current = { tag: match[1] as string, start: match.index + match[0].length };
    if (match[2] !== undefined) current.callee = match[2];
  }
  if (current) yield entry(current, transcript.slice(current.start));
}

function entry(
  found: { tag: string; callee?: string },
  text: string,
): { tag: string; callee?: string; text: string } {
  return found.callee === undefined
    ? { tag: found.tag, text }
    : { tag: found.tag, callee: found.callee, text };
}

function distinctCalls(calls: readonly Call[]): string[] {
  // Hint: newest occurrence wins the position, so the list reads in the order work ended.
  const counts = new Map<string, number>();
  for (const call of calls) {
    const key = `${call.name} ${call.args}`;
    const n = (counts.get(key) ?? 0) + 1;
    counts.delete(key);
    counts.set(key, n);
  }
  return [...counts].slice(-MAX_CALLS).map(([key, n]) => (n > 1 ? `${key} (×${n})` : key));
}

function isSequenceCall(call: Call): boolean {
  if (SEQUENCE_TOOL.test(call.name)) return true;
  const input = call.input;
  if (typeof input !== "object" || input === null) return false;
  return SEQUENCE_ARGS.some((key) => key in input);
}

function describeCall(call: Call): string {
  const args = clip(canonicalJson(call.input), 300);
  return call.result === undefined
    ? `${call.name} ${args}`
    : `${call.name} ${args} → ${clip(firstLine(call.result), 160)}`;
}

function keyArgs(input: unknown, raw: string): string {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return clip(raw, 80);
  const record = input as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const key of KEY_ARGS) {
    const value = record[key];
    if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
      picked[key] = typeof value === "string" ? clip(value, 120) : value;
    }
  }
  return Object.keys(picked).length > 0 ? JSON.stringify(picked) : clip(canonicalJson(input), 80);
}

function section(out: string[], title: string, items: readonly string[]): void {
  if (items.length === 0) return;
  out.push(`${title}:`, ...items.map((item) => `- ${item}`));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function firstLine(text: string): string {
  const end = text.indexOf("\n");
  return end === -1 ? text : text.slice(0, end);
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
