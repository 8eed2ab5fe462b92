import { unreachable } from "../../errors.ts";
import {
  classifyJsonRpc,
  type JsonRpcErrorObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
} from "../json-rpc.ts";
import { protocolError, rpcFailure } from "./session-error.ts";

/** Server message type: what a server may send on a request's stream besides the response. */
export type ServerMessage =
  | { type: "request"; message: JsonRpcRequest }
  | { type: "notification"; message: JsonRpcNotification };

/**
 * Awaited response interface: the request one stream answers, and what its stream has shown.
 */
export interface AwaitedResponse {
  /** The request's id. */
  id: number;
  /** Its method, named in errors. */
  method: string;
  /** Receives the server's requests and notifications. */
  onMessage?: ((message: ServerMessage) => void) | undefined;
  /**
   * The first error response with `id: null` seen so far: the spec's answer to a request the
   * server could not read, reported when the request's own response never comes.
   */
  stray?: JsonRpcErrorObject;
}

/**
 * Returns the result when a message from a request's stream is its response; routes the
 * server's requests and notifications to `onMessage`, and notes an `id: null` error in `stray`.
 *
 * @param value One parsed JSON-RPC message.
 * @param awaited The request, its listener and what its stream has shown.
 * @returns The result object, or `undefined` when the message was not the response.
 * @throws ToolError `protocol` for the request's JSON-RPC error or a malformed message.
 */
export function routeMessage(
  value: unknown,
  awaited: AwaitedResponse,
): Record<string, unknown> | undefined {
  const classified = classifyJsonRpc(value);
  switch (classified.type) {
    case "response": {
      const { message } = classified;
      if (message.id === null && "error" in message) awaited.stray ??= message.error;
      if (message.id !== awaited.id) return undefined;
      if ("error" in message) throw rpcFailure(awaited.method, message.error, "");
      return message.result;
    }
    case "request":
    case "notification":
      awaited.onMessage?.(classified);
      return undefined;
    case "invalid":
      throw protocolError(`${awaited.method}: the server sent ${classified.error.error.message}`);
    default:
      return unreachable(classified);
  }
}
