// Tool calls written as text by small open models (`docs/design.md`, "In-browser models"): the
// formats of each family's chat template, parsed after the fact and split from streamed text so
// that call markup never reaches the visitor as an answer. Runtimes that parse calls themselves
// (llama.cpp's chat parsers, WebLLM's Hermes models) do not need it; prompt-injected tool use
// (the Prompt API without tool support, WebLLM's other models) does.

import { isJsonObject } from "../schema/is-json-object.ts";

/** The text formats `parseToolCalls` reads, as an `as const` list. */
export const TOOL_CALL_FORMATS = [
  "hermes",
  "qwen3_coder",
  "llama3",
  "pythonic",
  "gemma4",
  "lfm2",
  "phi4",
  "mistral",
  "fenced",
] as const;

/**
 * A tool-call text format, named after the family that writes it:
 *
 * - `hermes`: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>` (Qwen2.5, Qwen3 with an
 *   optional `<think>` block first, Hermes 2 Pro/3, SmolLM2's array inside the tags).
 * - `qwen3_coder`: `<tool_call>\n<function=name>\n<parameter=k>\nv\n</parameter>\n</function>\n</tool_call>`.
 * - `llama3`: the whole answer is `{"name": …, "parameters": {…}}` (Llama 3.1/3.2 JSON tool
 *   calling, Gemma 3 when prompted for JSON), optionally after `<|python_tag|>`.
 * - `pythonic`: the whole answer is `[fn(a=1, b="x"), g()]` (Llama 3.2 1B/3B, Gemma 3).
 * - `gemma4`: `<|tool_call>call:name{key:<|"|>text<|"|>,n:1}<tool_call|>`.
 * - `lfm2`: `<|tool_call_start|>[fn(a="x")]<|tool_call_end|>`, Pythonic or a JSON array.
 * - `phi4`: `functools[{…}]` or `<|tool_call|>{…}<|/tool_call|>` (Phi-4-mini).
 * - `mistral`: `[TOOL_CALLS][{"name": …, "arguments": {…}}]` or `[TOOL_CALLS]name[ARGS]{…}`.
 * - `fenced`: a ```` ```tool_call ```` fence holding the JSON (the `@browser-ai` prompt).
 */
export type ToolCallFormat = (typeof TOOL_CALL_FORMATS)[number];

/** One tool call read from text: the tool's name and its arguments as parsed JSON. */
export interface TextToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What `parseToolCalls` returns: the answer text without the call markup, the reasoning of a
 * `<think>` block, and the calls in order. */
export interface ParsedToolCalls {
  text: string;
  reasoning?: string;
  calls: TextToolCall[];
}

/** Options of `parseToolCalls` and `createToolCallParser`. */
export interface ToolCallTextOptions {
  /** The formats to look for; every format when absent. Narrow it to the model's family so that
   * an answer that merely shows JSON is not taken for a call. */
  formats?: readonly ToolCallFormat[];
}

/** One piece of streamed output: answer text, or reasoning from a `<think>` block. */
export interface ToolCallTextPart {
  type: "text" | "reasoning";
  text: string;
}

/** A streaming splitter made by `createToolCallParser`. */
export interface ToolCallParser {
  /** Takes the next piece of model output; returns what can be shown now. */
  push(text: string): ToolCallTextPart[];
  /** Ends the output; returns the text still held back (if it held no call) and the calls. */
  end(): { parts: ToolCallTextPart[]; calls: TextToolCall[] };
}

// Markers that open a call somewhere in the text, per format.
const OPENERS: ReadonlyArray<readonly [string, ToolCallFormat[]]> = [
  ["<tool_call>", ["hermes", "qwen3_coder"]],
  ["<|tool_call_start|>", ["lfm2"]],
  ["<|tool_call>", ["gemma4"]],
  ["<|tool_call|>", ["phi4"]],
  ["functools[", ["phi4"]],
  ["[TOOL_CALLS]", ["mistral"]],
  ["```tool_call", ["fenced"]],
  ["```tool-call", ["fenced"]],
  ["<|python_tag|>", ["llama3"]],
];

/**
 * Returns the tool calls written in a model's text answer, in any of the given formats, and the
 * text around them. A call whose JSON or Python arguments do not parse is left in the text: the
 * runtimes that constrain decoding make that rare, and showing it beats inventing arguments.
 *
 * @param text The model's whole answer.
 * @param options `formats`: the formats to look for (all by default).
 * @returns The text without the calls, the `<think>` reasoning if any, and the calls.
 *
 * @example
 * ```ts
 * parseToolCalls('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>');
 * // { text: "", calls: [{ name: "get_weather", arguments: { city: "Paris" } }] }
 * ```
 */
export function parseToolCalls(text: string, options: ToolCallTextOptions = {}): ParsedToolCalls {
  const formats = new Set(options.formats ?? TOOL_CALL_FORMATS);
  const { reasoning, rest } = splitThink(text);
  const calls: TextToolCall[] = [];
  let answer = "";
  let i = 0;
  const whole = rest.trim();
  // Formats whose call is the whole answer, with no tag around it.
  if (formats.has("llama3") || formats.has("pythonic")) {
    const bare = whole.startsWith("<|python_tag|>") ? whole.slice(14).trim() : whole;
    const found =
      (formats.has("llama3") ? jsonCalls(bare) : undefined) ??
      (formats.has("pythonic") ? pythonicCalls(bare) : undefined);
    if (found) return withReasoning({ text: "", calls: found }, reasoning);
  }
  while (i < rest.length) {
    const next = nextOpener(rest, i, formats);
    if (!next) break;
    answer += rest.slice(i, next.at);
    const parsed = parseAt(rest, next.at, next.marker, formats);
    if (!parsed) {
      answer += next.marker;
      i = next.at + next.marker.length;
      continue;
    }
    calls.push(...parsed.calls);
    i = parsed.end;
  }
  answer += rest.slice(i);
  return withReasoning({ text: calls.length > 0 ? answer.trim() : answer, calls }, reasoning);
}

/**
 * Creates a streaming splitter over a model's output: text passes through as it comes, except
 * what may be the start of a call, which is held back until the end decides. A `<think>` block
 * streams as reasoning.
 *
 * @param options `formats`: the formats to look for (all by default).
 * @returns The splitter.
 */
export function createToolCallParser(options: ToolCallTextOptions = {}): ToolCallParser {
  const formats = new Set(options.formats ?? TOOL_CALL_FORMATS);
  const markers = OPENERS.filter(([, f]) => f.some((x) => formats.has(x))).map(([m]) => m);
  const bare = formats.has("llama3") || formats.has("pythonic");
  let seen = ""; // everything pushed
  let shown = 0; // how much of `seen` (after the think block) went out as text
  let thinkDone = false;
  let thinkShown = 0;
  let holding = false; // a call may have started: hold the rest until the end
  let started = false; // some non-space answer text went out
  const push = (chunk: string): ToolCallTextPart[] => {
    seen += chunk;
    const parts: ToolCallTextPart[] = [];
    let body = seen;
    if (!thinkDone) {
      const lead = seen.trimStart();
      if ("<think>".startsWith(lead) && lead.length < 7) return parts;
      if (lead.startsWith("<think>")) {
        const open = seen.indexOf("<think>") + 7;
        const close = seen.indexOf("</think>", open);
        const upTo = close < 0 ? safeEnd(seen, open, ["</think>"]) : close;
        if (upTo > open + thinkShown) {
          parts.push({ type: "reasoning", text: seen.slice(open + thinkShown, upTo) });
          thinkShown = upTo - open;
        }
        if (close < 0) return parts;
        thinkDone = true;
        seen = seen.slice(close + 8).replace(/^\s+/, "");
      } else thinkDone = true;
      body = seen;
    }
    if (holding) return parts;
    if (!started && bare) {
      const lead = body.trimStart();
      if (lead === "") return parts;
      if (/^(\{|\[|<\|python_tag\|>)/.test(lead)) {
        holding = true;
        return parts;
      }
      if ("<|python_tag|>".startsWith(lead)) return parts;
    }
    let upTo = body.length;
    for (const marker of markers) {
      const at = body.indexOf(marker, shown);
      if (at >= 0 && at < upTo) {
        upTo = at;
        holding = true;
      }
    }
    if (!holding) upTo = safeEnd(body, shown, markers);
    if (upTo > shown) {
      const text = body.slice(shown, upTo);
      parts.push({ type: "text", text });
      if (text.trim() !== "") started = true;
      shown = upTo;
    }
    return parts;
  };
  const end = () => {
    const parts: ToolCallTextPart[] = [];
    if (!thinkDone) {
      // An unclosed think block: all of it was reasoning.
      const lead = seen.trimStart();
      if (lead.startsWith("<think>")) {
        const rest = seen.slice(seen.indexOf("<think>") + 7 + thinkShown);
        if (rest) parts.push({ type: "reasoning", text: rest });
        return { parts, calls: [] };
      }
      if (lead) parts.push({ type: "text", text: seen });
      return { parts, calls: [] };
    }
    const held = seen.slice(shown);
    const parsed = parseToolCalls(held, { formats: [...formats] });
    if (parsed.text) parts.push({ type: "text", text: parsed.text });
    return { parts, calls: parsed.calls };
  };
  return { push, end };
}

// ---- formats ------------------------------------------------------------------------------

function withReasoning(result: ParsedToolCalls, reasoning: string | undefined): ParsedToolCalls {
  return reasoning === undefined ? result : { ...result, reasoning };
}

function splitThink(text: string): { reasoning?: string; rest: string } {
  const lead = text.trimStart();
  if (!lead.startsWith("<think>")) return { rest: text };
  const close = lead.indexOf("</think>");
  if (close < 0) return { reasoning: lead.slice(7).trim(), rest: "" };
  return {
    reasoning: lead.slice(7, close).trim(),
    rest: lead.slice(close + 8).replace(/^\s+/, ""),
  };
}

// How far text may go out without cutting a marker that the next chunk could complete.
function safeEnd(text: string, from: number, markers: readonly string[]): number {
  let end = text.length;
  for (const marker of markers) {
    for (let n = Math.min(marker.length - 1, text.length - from); n > 0; n--) {
      if (text.endsWith(marker.slice(0, n))) {
        end = Math.min(end, text.length - n);
        break;
      }
    }
  }
  return end;
}

function nextOpener(
  text: string,
  from: number,
  formats: Set<ToolCallFormat>,
): { at: number; marker: string } | undefined {
  let best: { at: number; marker: string } | undefined;
  for (const [marker, owners] of OPENERS) {
    if (!owners.some((f) => formats.has(f)) || marker === "<|python_tag|>") continue;
    const at = text.indexOf(marker, from);
    if (at >= 0 && (!best || at < best.at)) best = { at, marker };
  }
  return best;
}

function parseAt(
  text: string,
  at: number,
  marker: string,
  formats: Set<ToolCallFormat>,
): { calls: TextToolCall[]; end: number } | undefined {
  const start = at + marker.length;
  const closed = (close: string) => {
    const end = text.indexOf(close, start);
    return end < 0
      ? { inner: text.slice(start), end: text.length }
      : { inner: text.slice(start, end), end: end + close.length };
  };
  switch (marker) {
    case "<tool_call>": {
      const { inner, end } = closed("</tool_call>");
      const body = inner.trim();
      const calls =
        (formats.has("hermes") ? jsonCalls(body) : undefined) ??
        (formats.has("qwen3_coder") ? xmlCall(body) : undefined);
      return calls && { calls, end };
    }
    case "<|tool_call_start|>": {
      const { inner, end } = closed("<|tool_call_end|>");
      const calls = jsonCalls(inner.trim()) ?? pythonicCalls(inner.trim());
      return calls && { calls, end };
    }
    case "<|tool_call>": {
      const { inner, end } = closed("<tool_call|>");
      const call = gemma4Call(inner.trim());
      return call && { calls: [call], end };
    }
    case "<|tool_call|>": {
      const { inner, end } = closed("<|/tool_call|>");
      const calls = jsonCalls(inner.trim());
      return calls && { calls, end };
    }
    case "functools[": {
      const span = balanced(text, start - 1);
      const calls = span === undefined ? undefined : jsonCalls(text.slice(start - 1, span));
      return calls && span !== undefined ? { calls, end: span } : undefined;
    }
    case "[TOOL_CALLS]":
      return mistralCalls(text, start);
    case "```tool_call":
    case "```tool-call": {
      const { inner, end } = closed("```");
      const calls = jsonCalls(inner.trim());
      return calls && { calls, end };
    }
    default:
      return undefined;
  }
}

function mistralCalls(
  text: string,
  start: number,
): { calls: TextToolCall[]; end: number } | undefined {
  const rest = text.slice(start).trimStart();
  const offset = text.length - rest.length;
  if (rest.startsWith("[")) {
    const span = balanced(text, offset);
    const calls = span === undefined ? undefined : jsonCalls(text.slice(offset, span));
    return calls && span !== undefined ? { calls, end: span } : undefined;
  }
  // The v11 tokenizer: name[ARGS]{…}, possibly several in a row.
  const match = /^([A-Za-z_][\w.-]*)\[ARGS\]/.exec(rest);
  if (!match?.[1]) return undefined;
  const argsAt = offset + match[0].length;
  const span = balanced(text, argsAt);
  if (span === undefined) return undefined;
  const args = parseJson(text.slice(argsAt, span));
  if (!isJsonObject(args)) return undefined;
  const call = { name: match[1], arguments: args };
  const more = text.startsWith("[TOOL_CALLS]", span) ? mistralCalls(text, span + 12) : undefined;
  return more ? { calls: [call, ...more.calls], end: more.end } : { calls: [call], end: span };
}

function jsonCalls(text: string): TextToolCall[] | undefined {
  if (!text.startsWith("{") && !text.startsWith("[")) return undefined;
  const value = parseJson(text);
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0) return undefined;
  const calls: TextToolCall[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) return undefined;
    const fn = isJsonObject(item.function) ? item.function : item;
    const name = fn.name;
    let args: unknown = fn.arguments ?? fn.parameters ?? {};
    if (typeof args === "string") args = parseJson(args);
    if (typeof name !== "string" || !isJsonObject(args)) return undefined;
    calls.push({ name, arguments: args });
  }
  return calls;
}

function xmlCall(text: string): TextToolCall[] | undefined {
  const fn = /^<function=([^>\s]+)>([\s\S]*?)<\/function>$/.exec(text);
  if (!fn?.[1]) return undefined;
  const args: Record<string, unknown> = {};
  for (const p of (fn[2] ?? "").matchAll(/<parameter=([^>\s]+)>\n?([\s\S]*?)\n?<\/parameter>/g)) {
    const raw = p[2] ?? "";
    // Qwen3-Coder writes strings bare and everything else as JSON.
    const json = parseJson(raw.trim());
    args[p[1] as string] = json === undefined || typeof json === "string" ? raw : json;
  }
  return [{ name: fn[1], arguments: args }];
}

function gemma4Call(text: string): TextToolCall | undefined {
  const match = /^call:([A-Za-z_][\w.-]*)/.exec(text);
  if (!match?.[1]) return undefined;
  const reader = literalReader(text.slice(match[0].length), true);
  const args = reader.value();
  return isJsonObject(args) && reader.done() ? { name: match[1], arguments: args } : undefined;
}

function pythonicCalls(text: string): TextToolCall[] | undefined {
  if (!text.startsWith("[") || !text.endsWith("]")) return undefined;
  const reader = literalReader(text.slice(1, -1), false);
  const calls: TextToolCall[] = [];
  while (!reader.done()) {
    const call = reader.call();
    if (!call) return undefined;
    calls.push(call);
    if (!reader.comma() && !reader.done()) return undefined;
  }
  return calls.length > 0 ? calls : undefined;
}

// A reader of Python literals and calls (`fn(a=1, b=[True, None], c={"k": 'v'})`), and of
// Gemma 4's `{key:<|"|>text<|"|>}` objects when `gemma` is set.
function literalReader(source: string, gemma: boolean) {
  let i = 0;
  const fail = Symbol("fail");
  const space = () => {
    while (i < source.length && /\s/.test(source[i] as string)) i++;
  };
  const ident = (): string | undefined => {
    space();
    const m = /^[A-Za-z_][\w.-]*/.exec(source.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const ahead = (s: string) => {
    space();
    return source.startsWith(s, i);
  };
  const eat = (s: string) => {
    space();
    if (!source.startsWith(s, i)) return false;
    i += s.length;
    return true;
  };
  const str = (): string | typeof fail => {
    if (gemma && source.startsWith('<|"|>', i)) {
      const end = source.indexOf('<|"|>', i + 5);
      if (end < 0) return fail;
      const out = source.slice(i + 5, end);
      i = end + 5;
      return out;
    }
    const quote = source[i];
    let out = "";
    i++;
    while (i < source.length && source[i] !== quote) {
      if (source[i] === "\\") {
        const next = source[i + 1] ?? "";
        out += ({ n: "\n", t: "\t", r: "\r" } as Record<string, string>)[next] ?? next;
        i += 2;
      } else out += source[i++];
    }
    if (source[i] !== quote) return fail;
    i++;
    return out;
  };
  const value = (): unknown => {
    space();
    const c = source[i];
    if (c === '"' || c === "'" || (gemma && source.startsWith('<|"|>', i))) return str();
    if (c === "[" || c === "(") {
      const close = c === "[" ? "]" : ")";
      i++;
      const out: unknown[] = [];
      while (!eat(close)) {
        const v = value();
        if (v === fail) return fail;
        out.push(v);
        if (!eat(",") && !ahead(close)) return fail;
      }
      return out;
    }
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      while (!eat("}")) {
        space();
        const key =
          source[i] === '"' || source[i] === "'" || source.startsWith('<|"|>', i) ? str() : ident();
        if (key === undefined || key === fail || !eat(":")) return fail;
        const v = value();
        if (v === fail) return fail;
        out[key] = v;
        if (!eat(",") && !ahead("}")) return fail;
      }
      return out;
    }
    const m = /^-?(\d+\.?\d*(e[+-]?\d+)?|\.\d+)/i.exec(source.slice(i));
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    const word = ident();
    if (word === "True" || word === "true") return true;
    if (word === "False" || word === "false") return false;
    if (word === "None" || word === "null") return null;
    return fail;
  };
  return {
    value: () => {
      const v = value();
      return v === fail ? undefined : v;
    },
    call: (): TextToolCall | undefined => {
      const name = ident();
      if (!name || !eat("(")) return undefined;
      const args: Record<string, unknown> = {};
      while (!eat(")")) {
        const key = ident();
        if (!key || !eat("=")) return undefined;
        const v = value();
        if (v === fail) return undefined;
        args[key] = v;
        if (!eat(",") && !ahead(")")) return undefined;
      }
      return { name, arguments: args };
    },
    comma: () => eat(","),
    done: () => {
      space();
      return i >= source.length;
    },
  };
}

// The end (exclusive) of the bracketed JSON value starting at `at`, minding strings.
function balanced(text: string, at: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
