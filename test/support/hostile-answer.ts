// How the hostile MCP server answers one request: every misbehaviour of hostile-plan.ts as a
// `Response` (or a rejection, or nothing ever).
import { unreachable } from "../../src/errors.ts";
import { type Exchange, idFor, type Misbehaviour, type NoticeBehaviour } from "./hostile-plan.ts";
import { endWith, sseText } from "./hostile-sse-answer.ts";
import { byteStream, cutAt, utf8 } from "./sse-wire.ts";

const JSON_TYPE = { "content-type": "application/json" };

/**
 * Returns the answer to a request that expects a response.
 *
 * @param behaviour The misbehaviour.
 * @param exchange The request being answered.
 * @returns The response, a rejection, or a promise that never settles.
 */
export function answer(behaviour: Misbehaviour, exchange: Exchange): Response | Promise<Response> {
  const { id, valid, headers, signal } = exchange;
  const json = (value: unknown, extra: Record<string, string> = {}) =>
    new Response(JSON.stringify(value), { headers: { ...JSON_TYPE, ...headers, ...extra } });
  switch (behaviour.type) {
    case "valid":
      return json({ jsonrpc: "2.0", id, result: valid });
    case "status":
      return new Response(nullBodyStatus(behaviour.status) ? null : behaviour.body, {
        status: behaviour.status,
        headers: { ...headers, location: "https://elsewhere.test/mcp" },
      });
    case "content_type": {
      const { contentType } = behaviour;
      const body = JSON.stringify({ jsonrpc: "2.0", id, result: valid });
      const response = new Response(body, { headers });
      if (contentType === null) response.headers.delete("content-type");
      else response.headers.set("content-type", contentType);
      return response;
    }
    case "raw":
      return new Response(behaviour.body, {
        headers: { ...headers, "content-type": behaviour.contentType },
      });
    case "ids": {
      const messages = behaviour.ids.map((choice) => ({
        jsonrpc: "2.0",
        ...idFor(choice, id),
        result: valid,
      }));
      return json(behaviour.batch ? messages : (messages[0] ?? {}));
    }
    case "result":
      return json({ jsonrpc: "2.0", id, result: behaviour.result });
    case "rpc_error":
      return json({ jsonrpc: "2.0", id, error: behaviour.error });
    case "sse": {
      const text = behaviour.items.map((item) => sseText(item, exchange)).join("");
      const wire = utf8(text.replaceAll("\n", behaviour.lineEnding ?? "\n"));
      const { cuts } = behaviour;
      const picked = Array.isArray(cuts)
        ? cuts.map((cut) => cut % (wire.byteLength + 1))
        : Array.from({ length: Math.ceil(wire.byteLength / cuts.every) }, (_, i) => i * cuts.every);
      const offsets = [...new Set(picked)];
      const stream = endWith(
        byteStream(
          cutAt(
            wire,
            offsets.sort((a, b) => a - b),
          ),
        ),
        behaviour,
      );
      return new Response(stream, { headers: { ...headers, "content-type": "text/event-stream" } });
    }
    case "huge":
      return hugeAnswer(behaviour, exchange);
    case "session_id":
      return json({ jsonrpc: "2.0", id, result: valid }, { "mcp-session-id": behaviour.value });
    case "reject":
      return Promise.reject(rejection(behaviour.value));
    case "hang":
      return new Promise<Response>((_, reject) => {
        if (!behaviour.honoursSignal) return;
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    case "body_error": {
      const prefix = utf8(behaviour.prefix);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(prefix);
          controller.error(new TypeError("terminated"));
        },
      });
      return new Response(body, { headers: { ...JSON_TYPE, ...headers } });
    }
    default:
      return unreachable(behaviour);
  }
}

/**
 * Returns the answer to a notification, a reply or DELETE.
 *
 * @param behaviour The misbehaviour.
 * @param okStatus The status of the valid answer.
 * @returns The response or a rejection.
 */
export function noticeAnswer(
  behaviour: NoticeBehaviour,
  okStatus: number,
): Response | Promise<Response> {
  switch (behaviour.type) {
    case "valid":
      return new Response(null, { status: okStatus });
    case "status":
      return new Response(nullBodyStatus(behaviour.status) ? null : behaviour.body, {
        status: behaviour.status,
      });
    case "reject":
      return Promise.reject(rejection(behaviour.value));
    default:
      return unreachable(behaviour);
  }
}

function nullBodyStatus(status: number): boolean {
  return status === 204 || status === 205 || status === 304;
}

function rejection(value: "type_error" | "string" | "abort_error"): unknown {
  if (value === "type_error")
    return new TypeError("fetch failed", { cause: new Error("ECONNRESET") });
  if (value === "abort_error") return new DOMException("The operation was aborted.", "AbortError");
  return "connection lost";
}

function hugeAnswer(
  behaviour: Extract<Misbehaviour, { type: "huge" }>,
  exchange: Exchange,
): Response {
  const size = behaviour.megabytes * 1024 * 1024;
  const { id, valid, headers } = exchange;
  switch (behaviour.shape) {
    case "json_text": {
      const result = { ...valid, padding: "x".repeat(size) };
      return new Response(JSON.stringify({ jsonrpc: "2.0", id, result }), {
        headers: { ...JSON_TYPE, ...headers },
      });
    }
    case "garbage":
      return new Response("{".repeat(size), { headers: { ...JSON_TYPE, ...headers } });
    case "sse_line":
      return new Response(`data: ${"y".repeat(size)}`, {
        headers: { ...headers, "content-type": "text/event-stream" },
      });
    case "sse_event": {
      const line = `data: ${"z".repeat(1000)}\n`;
      return new Response(line.repeat(Math.ceil(size / line.length)), {
        headers: { ...headers, "content-type": "text/event-stream" },
      });
    }
    case "endless_body":
      return new Response(endless('{"jsonrpc":"2.0","result":{"padding":"', "x"), {
        headers: { ...JSON_TYPE, ...headers },
      });
    case "endless_line":
      return new Response(endless("data: ", "y"), {
        headers: { ...headers, "content-type": "text/event-stream" },
      });
    case "endless_event":
      return new Response(endless("", "data: z\n"), {
        headers: { ...headers, "content-type": "text/event-stream" },
      });
    case "endless_error_body":
      return new Response(endless("upstream exploded: ", "e"), { status: 500, headers });
    case "deep": {
      // Nesting deep enough to overflow any recursive walk of the parsed value.
      const depth = Math.floor(size / 2);
      const deep = `${"[".repeat(depth)}${"]".repeat(depth)}`;
      const text = JSON.stringify({ jsonrpc: "2.0", id, result: { ...valid, _meta: { deep: 0 } } });
      return new Response(text.replace('{"deep":0}', `{"deep":${deep}}`), {
        headers: { ...JSON_TYPE, ...headers },
      });
    }
    default:
      return unreachable(behaviour.shape);
  }
}

// A body that never ends: `prefix`, then `unit` repeated in 64 KiB chunks for as long as the
// reader pulls; it stops when the reader cancels.
function endless(prefix: string, unit: string): ReadableStream<Uint8Array> {
  const chunk = utf8(unit.repeat(Math.ceil(65_536 / unit.length)));
  let first = true;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(first ? utf8(prefix) : chunk);
      first = false;
    },
  });
}
