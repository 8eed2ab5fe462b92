// The SSE answers of the hostile MCP server: items in wire form, and how the stream ends.
import { unreachable } from "../../src/errors.ts";
import {
  type Exchange,
  idFor,
  type Json,
  type Misbehaviour,
  type SseItem,
} from "./hostile-plan.ts";

/**
 * Returns one item in wire form.
 *
 * @param item The item.
 * @param exchange The request being answered.
 * @returns The text.
 */
export function sseText(item: SseItem, exchange: Exchange): string {
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  switch (item.type) {
    case "response":
      return data({ jsonrpc: "2.0", ...idFor(item.id, exchange.id), result: exchange.valid });
    case "json":
      return data(item.value);
    case "garbage":
      return item.text;
    case "comment":
      return ": keep-alive\n\n";
    case "priming":
      return "id: 0\ndata:\n\n";
    case "progress": {
      const progressToken = item.own ? exchange.token : `not-${String(exchange.token)}`;
      const params: Json = { progressToken, progress: item.progress };
      if (item.total !== undefined) params.total = item.total;
      return data({ jsonrpc: "2.0", method: "notifications/progress", params });
    }
    case "log":
      return data({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level: item.level, data: item.data },
      });
    case "request":
      return data({ jsonrpc: "2.0", id: item.id, method: item.method, params: item.params });
    case "notification":
      return data({ jsonrpc: "2.0", method: item.method, params: item.params });
    default:
      return unreachable(item);
  }
}

/**
 * Returns the stream, ended as the answer says: closed, errored, or left open and silent.
 *
 * @param stream The wire.
 * @param behaviour The SSE answer.
 * @returns The stream to answer with.
 */
export function endWith(
  stream: ReadableStream<Uint8Array<ArrayBuffer>>,
  behaviour: Extract<Misbehaviour, { type: "sse" }>,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  if (behaviour.ending === "close") return stream;
  const reader = stream.getReader();
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (!done) return controller.enqueue(value);
      if (behaviour.ending === "error") return controller.error(new TypeError("terminated"));
      // "hang" — the stream stays open and silent; only the client's deadline ends it.
      await new Promise(() => {});
    },
  });
}
