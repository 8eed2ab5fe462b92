import type { JsonRpcId } from "../json-rpc.ts";

/** In-flight calls interface: running `tools/call` requests that `notifications/cancelled` can stop. */
export interface InFlightCalls {
  /**
   * Registers a running request.
   *
   * @param owner Its session (`undefined` in stateless mode).
   * @param id Its JSON-RPC id.
   * @param controller Aborted to cancel it.
   * @returns A function that unregisters it.
   */
  add(owner: string | undefined, id: JsonRpcId, controller: AbortController): () => void;
  /**
   * Cancels a running request; in stateless mode only when its id is unambiguous.
   *
   * @param owner The session the notification came in on.
   * @param id The request to cancel.
   * @param reason Why, from the notification.
   * @returns Whether a request was cancelled.
   */
  cancel(owner: string | undefined, id: JsonRpcId, reason: string | undefined): boolean;
  /**
   * Cancels every request of a session (it was deleted).
   *
   * @param owner The session.
   */
  cancelAll(owner: string): void;
}

/**
 * Creates the table of running calls. Without sessions two clients may use the same request
 * id; a cancellation is then ignored rather than risk stopping another client's call.
 *
 * @returns The table.
 */
export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, Set<AbortController>>();
  const keyOf = (owner: string | undefined, id: JsonRpcId) =>
    `${owner ?? ""}\u0000${typeof id}\u0000${id}`;
  return {
    add(owner, id, controller) {
      const key = keyOf(owner, id);
      const set = calls.get(key) ?? new Set();
      set.add(controller);
      calls.set(key, set);
      return () => {
        set.delete(controller);
        if (set.size === 0 && calls.get(key) === set) calls.delete(key);
      };
    },
    cancel(owner, id, reason) {
      const set = calls.get(keyOf(owner, id));
      if (set?.size !== 1) return false;
      for (const controller of set) controller.abort(reason ?? "cancelled by the client");
      return true;
    },
    cancelAll(owner) {
      const prefix = `${owner}\u0000`;
      for (const [key, set] of calls) {
        if (!key.startsWith(prefix)) continue;
        for (const controller of set) controller.abort("the session ended");
      }
    },
  };
}
