// The plain data that describes a hostile MCP server (hostile-mcp-fetch.ts), so fast-check can
// generate, shrink and print it.
import { unreachable } from "../../src/errors.ts";

/** Which id a response carries: the request's own, another one, or a malformed one. */
export type IdChoice = "own" | "other" | "own_as_string" | "null" | "missing" | "float";

/** One item of a hostile SSE answer, in wire order. */
export type SseItem =
  | { type: "response"; id: IdChoice }
  | { type: "json"; value: unknown }
  | { type: "garbage"; text: string }
  | { type: "comment" }
  | { type: "priming" }
  | { type: "progress"; own: boolean; progress: unknown; total?: unknown }
  | { type: "log"; level: unknown; data: unknown }
  | { type: "request"; id: unknown; method: string; params: unknown }
  | { type: "notification"; method: string; params: unknown };

/** How the fake answers one request that expects a response. */
export type Misbehaviour =
  | { type: "valid" }
  | { type: "status"; status: number; body: string | null }
  | { type: "content_type"; contentType: string | null }
  | { type: "raw"; contentType: string; body: string }
  | { type: "ids"; ids: IdChoice[]; batch: boolean }
  | { type: "result"; result: unknown }
  | { type: "rpc_error"; error: unknown }
  | {
      type: "sse";
      items: SseItem[];
      ending: "close" | "hang" | "error";
      /** Byte offsets to cut the wire at (modulo its length), or a cut every `every` bytes. */
      cuts: number[] | { every: number };
      /** Replaces every `\n` of the wire (default `\n`). */
      lineEnding?: "\n" | "\r\n" | "\r";
    }
  | {
      type: "huge";
      megabytes: number;
      /**
       * `endless_*` never end: a body, an SSE line, an SSE event of short `data:` lines, or an
       * HTTP 500's body; the others are `megabytes` long.
       */
      shape:
        | "json_text"
        | "garbage"
        | "sse_line"
        | "deep"
        | "sse_event"
        | "endless_body"
        | "endless_line"
        | "endless_event"
        | "endless_error_body";
    }
  | { type: "session_id"; value: string }
  | { type: "reject"; value: "type_error" | "string" | "abort_error" }
  | { type: "hang"; honoursSignal: boolean }
  | { type: "body_error"; prefix: string };

/** How the fake answers a message that expects no response (notifications, replies, DELETE). */
export type NoticeBehaviour =
  | { type: "valid" }
  | { type: "status"; status: number; body: string | null }
  | { type: "reject"; value: "type_error" | "string" | "abort_error" };

/** The whole behaviour of one hostile server. */
export interface HostilePlan {
  /** The `mcp-session-id` issued with a valid `initialize` answer. */
  sessionId?: string | undefined;
  initialize: Misbehaviour;
  /** The `tools/list` answer; the valid one lists `tools`. */
  list: Misbehaviour;
  /** The `tools/list` entries of a valid answer. */
  tools: unknown[];
  /** `tools/call` with `{ case: i }` gets `calls[i]`; any other call a valid answer. */
  calls: Misbehaviour[];
  /** Used in turn for every notification and reply the client sends. */
  notices: NoticeBehaviour[];
  /** The answer to DELETE. */
  delete: NoticeBehaviour;
}

/** The text of every valid `tools/call` answer; multi-byte, so cuts can land inside it. */
export const VALID_TEXT = "ok é€😀";

/** The structured content of a valid answer of a tool with an output schema. */
export const VALID_STRUCTURED = { n: 1 };

/** A JSON object. */
export type Json = Record<string, unknown>;

/** One request being answered: its id, the valid result, headers to send, progress token. */
export interface Exchange {
  id: number;
  valid: Json;
  headers: Record<string, string>;
  token: unknown;
  signal: AbortSignal;
}

/**
 * Returns the `id` member a response carries for the choice.
 *
 * @param choice Which id.
 * @param id The request's id.
 * @returns `{ id }`, or `{}` for a missing one.
 */
export function idFor(choice: IdChoice, id: number): Json {
  switch (choice) {
    case "own":
      return { id };
    case "other":
      return { id: id + 1000 };
    case "own_as_string":
      return { id: String(id) };
    case "null":
      return { id: null };
    case "missing":
      return {};
    case "float":
      return { id: id + 0.5 };
    default:
      return unreachable(choice);
  }
}
