import type { JsonRpcResponse } from "../json-rpc.ts";

/** Pending requests interface: server-to-client requests waiting for the client's answer. */
export interface PendingRequests {
  /**
   * Returns a fresh request id and a promise of the response that will carry it.
   *
   * @param owner The session that may answer (`undefined` in stateless mode).
   * @param options `signal` withdraws the request: the promise rejects with its reason.
   */
  open(
    owner: string | undefined,
    options?: { signal?: AbortSignal },
  ): { id: string; response: Promise<JsonRpcResponse> };
  /**
   * Delivers a response from the client.
   *
   * @param response The JSON-RPC response.
   * @param owner The session it came in on.
   * @returns Whether a pending request took it.
   */
  settle(response: JsonRpcResponse, owner: string | undefined): boolean;
}

interface Entry {
  owner: string | undefined;
  resolve(response: JsonRpcResponse): void;
}

/**
 * Creates an in-memory table of server-to-client requests keyed by their JSON-RPC id. Ids are
 * random UUIDs, so in stateless mode a response is matched by an unguessable id; the table
 * lives in one process or isolate, so the answer must reach the same one.
 *
 * @returns The table.
 */
export function createPendingRequests(): PendingRequests {
  const entries = new Map<string, Entry>();
  return {
    open(owner, options = {}) {
      const { signal } = options;
      const id = crypto.randomUUID();
      const response = new Promise<JsonRpcResponse>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          entries.delete(id);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        entries.set(id, {
          owner,
          resolve: (value) => {
            signal?.removeEventListener("abort", onAbort);
            resolve(value);
          },
        });
      });
      return { id, response };
    },
    settle(response, owner) {
      const key = response.id;
      if (typeof key !== "string") return false;
      const entry = entries.get(key);
      if (!entry || entry.owner !== owner) return false;
      entries.delete(key);
      entry.resolve(response);
      return true;
    },
  };
}
