import type { McpLoggingLevel } from "../protocol.ts";

/** Session interface: what the server remembers about one initialized client. */
export interface Session {
  /** The `Mcp-Session-Id`. */
  readonly id: string;
  /** The negotiated protocol revision. */
  protocolVersion: string;
  /** The client's declared capabilities. */
  clientCapabilities: Record<string, unknown>;
  /** The level set by `logging/setLevel`. */
  logLevel: McpLoggingLevel | undefined;
}

/** Session store interface: sessions by id. */
export interface SessionStore {
  /**
   * Creates a session with a fresh unguessable id.
   *
   * @returns The session, or `undefined` when the store is full.
   */
  create(protocolVersion: string, clientCapabilities: Record<string, unknown>): Session | undefined;
  /** Returns the session with this id, if it is live. */
  get(id: string): Session | undefined;
  /** Ends a session; returns whether it existed. */
  delete(id: string): boolean;
}

/**
 * Creates an in-memory session store (Node, Deno, a single Durable Object: one process holds
 * every session). Ids are random UUIDs.
 *
 * @param capacity The most live sessions; creating one more fails until one ends.
 * @returns The store.
 */
export function createSessionStore(capacity: number): SessionStore {
  const sessions = new Map<string, Session>();
  return {
    create(protocolVersion, clientCapabilities) {
      if (sessions.size >= capacity) return undefined;
      const session: Session = {
        id: crypto.randomUUID(),
        protocolVersion,
        clientCapabilities,
        logLevel: undefined,
      };
      sessions.set(session.id, session);
      return session;
    },
    get: (id) => sessions.get(id),
    delete: (id) => sessions.delete(id),
  };
}
