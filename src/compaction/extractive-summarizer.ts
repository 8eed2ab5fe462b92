import { cancelledError } from "../abort.ts";
import { SUMMARY_MARKER } from "./head.ts";
import { canonicalJson } from "./lossless.ts";
import type { Summarizer, SummaryRequest } from "./summarizer.ts";

// The limits keep every summary, and every fold of summaries, small and bounded.
const MAX_REQUESTS = 5;
const MAX_CALLS = 12;
const MAX_ERRORS = 5;
const MAX_OPEN_ITEMS = 5;
/** Lines a fold keeps from summaries it did not write (another summariser's). */
const MAX_NOTES = 8;
// A line of a checklist not yet done (`[ ]` pending, `[~]` in progress), as todo tools
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
 * A fold (`summaries` given) reads the earlier summaries' sections back and merges them with
 * the new turns under the same limits: the first task, the latest requests, calls and errors,
 * call counts added up, and the position, what remains and the last note from the newest
 * stretch that has them. So a fold is never longer than one summary at its limits.
 *
 * @returns The summariser.
 * @example
 * ```ts
 * await compact(conversation, { summarizer: extractiveSummarizer(), force: true });
 * ```
 */
/* @__NO_SIDE_EFFECTS__ */
export function extractiveSummarizer(): Summarizer {
  return async (request, { signal }) => {
    if (signal?.aborted) throw cancelledError("summarizer", signal);
    return { text: summarize(request) };
  };
}

interface Notes {
  task?: string;
  requests: string[];
  /** Distinct calls, `name args` → count, oldest first. */
  calls: Map<string, number>;
  callCount: number;
  errors: string[];
  position: string[];
  remaining: string[];
  note?: string;
  /** Lines of earlier summaries this summariser did not write, newest last. */
  notes: string[];
}

function emptyNotes(): Notes {
  return {
    requests: [],
    calls: new Map(),
    callCount: 0,
    errors: [],
    position: [],
    remaining: [],
    notes: [],
  };
}

function summarize({ transcript, summaries }: SummaryRequest): string {
  const notes = notesOf(transcript);
  if (summaries === undefined) return render(notes);
  const merged = summaries.map(parseNotes).reduce(mergeNotes, emptyNotes());
  return render(mergeNotes(merged, notes));
}

function notesOf(transcript: string): Notes {
  const notes = emptyNotes();
  const calls: Call[] = [];
  let pending: Call[] = [];
  let lastSequence: Call | undefined;
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
      if (notes.task === undefined) notes.task = clip(oneLine(text), 300);
      else notes.requests.push(clip(oneLine(text), 200));
    } else if (tag === "assistant") {
      notes.note = clip(oneLine(text), 300);
    } else {
      const call = pending.shift();
      if (call) call.result = text;
      if (tag === "tool error") {
        notes.errors.push(
          `${call ? `${call.name} ${call.args}: ` : ""}${clip(firstLine(text), 160)}`,
        );
      }
    }
  }
  for (const call of calls) bump(notes.calls, `${call.name} ${call.args}`, 1);
  notes.callCount = calls.length;
  const last = calls.at(-1);
  if (last) notes.position.push(`last call: ${describeCall(last)}`);
  if (lastSequence && lastSequence !== last) {
    notes.position.push(`last step in a sequence: ${describeCall(lastSequence)}`);
  }
  // A sequence tool's result is often the whole list (a todo tool prints every item), and its
  // open items are what remains; the first line alone would keep only the oldest item.
  const open = (lastSequence?.result ?? "").split("\n").filter((line) => OPEN_ITEM.test(line));
  notes.remaining = open.slice(0, MAX_OPEN_ITEMS).map((line) => clip(line.trim(), 120));
  if (open.length > MAX_OPEN_ITEMS) {
    notes.remaining.push(`… and ${open.length - MAX_OPEN_ITEMS} more`);
  }
  return notes;
}

function render(notes: Notes): string {
  const out: string[] = [];
  if (notes.task !== undefined) out.push(`Task: ${notes.task}`);
  section(out, "Requests", notes.requests.slice(-MAX_REQUESTS));
  const calls = [...notes.calls].slice(-MAX_CALLS);
  section(
    out,
    `Tool calls (${notes.callCount} in these turns)`,
    calls.map(([key, n]) => (n > 1 ? `${key} (×${n})` : key)),
  );
  section(out, "Errors", notes.errors.slice(-MAX_ERRORS));
  section(out, "Position", notes.position);
  section(out, "Remaining", notes.remaining);
  section(out, "Earlier notes", notes.notes.slice(-MAX_NOTES));
  if (notes.note !== undefined) out.push(`Last assistant note: ${notes.note}`);
  return out.length > 0 ? out.join("\n") : "(no earlier turns)";
}

const CALLS_TITLE = /^Tool calls \((\d+) in these turns\):$/;
const COUNTED = /^(.*) \(×(\d+)\)$/;

/** Reads a summary `render` wrote back into notes; text it did not write is ignored. */
function parseNotes(summary: string): Notes {
  const notes = emptyNotes();
  let list: string[] | "calls" | undefined;
  for (const line of summary.split("\n")) {
    const calls = CALLS_TITLE.exec(line);
    if (line.startsWith("Task: ")) [notes.task, list] = [line.slice(6), undefined];
    else if (line.startsWith("Last assistant note: "))
      [notes.note, list] = [line.slice(21), undefined];
    else if (line === "Requests:") list = notes.requests;
    else if (line === "Errors:") list = notes.errors;
    else if (line === "Position:") list = notes.position;
    else if (line === "Remaining:") list = notes.remaining;
    else if (line === "Earlier notes:") list = notes.notes;
    else if (calls) [notes.callCount, list] = [Number(calls[1]), "calls"];
    else if (line.startsWith("- ") && list === "calls") {
      const counted = COUNTED.exec(line.slice(2));
      bump(
        notes.calls,
        counted ? (counted[1] as string) : line.slice(2),
        Number(counted?.[2] ?? 1),
      );
    } else if (line.startsWith("- ") && Array.isArray(list)) list.push(line.slice(2));
    else {
      // Not ours (a model's summary, say): kept, clipped, so a fold does not lose it.
      list = undefined;
      if (line.trim() !== "") notes.notes.push(clip(line.trim().replace(/^[-*] /, ""), 200));
    }
  }
  return notes;
}

/** Merges two stretches' notes, `newer` after `older`, keeping every list within its limit. */
function mergeNotes(older: Notes, newer: Notes): Notes {
  const calls = new Map(older.calls);
  for (const [key, n] of newer.calls) bump(calls, key, n);
  while (calls.size > MAX_CALLS) calls.delete(calls.keys().next().value as string);
  const merged: Notes = {
    requests: [...older.requests, ...newer.requests].slice(-MAX_REQUESTS),
    calls,
    callCount: older.callCount + newer.callCount,
    errors: [...older.errors, ...newer.errors].slice(-MAX_ERRORS),
    position: newer.position.length > 0 ? newer.position : older.position,
    remaining: newer.remaining.length > 0 ? newer.remaining : older.remaining,
    notes: [...older.notes, ...newer.notes].slice(-MAX_NOTES),
  };
  const task = older.task ?? newer.task;
  if (task !== undefined) merged.task = task;
  const note = newer.note ?? older.note;
  if (note !== undefined) merged.note = note;
  return merged;
}

/** Adds `n` to a call's count and moves it last, so the list reads in the order work ended. */
function bump(calls: Map<string, number>, key: string, n: number): void {
  const count = (calls.get(key) ?? 0) + n;
  calls.delete(key);
  calls.set(key, count);
}

function* entries(transcript: string): Generator<{ tag: string; callee?: string; text: string }> {
  // The regex finds the tagged lines without splitting every line of every long result;
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

/** One line, so a fold can read the summary back line by line. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " ");
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
