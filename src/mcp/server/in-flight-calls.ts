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
  /**
   * Checks whether a session has a call running.
   *
   * @param owner The session.
   * @returns Whether one of its calls is registered.
   */
  running(owner: string): boolean;
}

/**
 * Creates the table of running calls. Without sessions two clients may use the same request
 * id; a cancellation is then ignored rather than risk stopping another client's call.
 *
 * @returns The table.
 */
export function createInFlightCalls(): InFlightCalls {
  const calls = new Map<string, Set<AbortController>>();
  const perOwner = new Map<string, number>();
  const keyOf = (owner: string | undefined, id: JsonRpcId) =>
    `${owner ?? ""}\u0000${typeof id}\u0000${id}`;
  return {
    add(owner, id, controller) {
      const key = keyOf(owner, id);
      const set = calls.get(key) ?? new Set();
      set.add(controller);
      calls.set(key, set);
      if (owner !== undefined) perOwner.set(owner, (perOwner.get(owner) ?? 0) + 1);
      let registered = true;
      return () => {
        if (!registered) return;
        registered = false;
        set.delete(controller);
        if (set.size === 0 && calls.get(key) === set) calls.delete(key);
        if (owner === undefined) return;
        const left = (perOwner.get(owner) ?? 1) - 1;
        if (left > 0) perOwner.set(owner, left);
        else perOwner.delete(owner);
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
    running: (owner) => perOwner.has(owner),
  };
}
