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
   * Creates a session with a fresh unguessable id, first ending idle ones when the store is full.
   *
   * @returns The session, or `undefined` when the store is full of live sessions.
   */
  create(protocolVersion: string, clientCapabilities: Record<string, unknown>): Session | undefined;
  /** Returns the session with this id if it is live, and counts this as activity. */
  get(id: string): Session | undefined;
  /** Ends a session; returns whether it existed. */
  delete(id: string): boolean;
}

/** Session store options interface: how long an idle session lives. */
export interface SessionStoreOptions {
  /** The most live sessions; creating one more fails until one ends or expires. */
  capacity: number;
  /** A session without a request for this long, and with no call running, has expired. */
  idleMs: number;
  /** Whether a session still has work running (it is then never idle). */
  busy(id: string): boolean;
  /** Called for every session that expires, to stop whatever it left behind. */
  onExpire(id: string): void;
  /** The clock, in milliseconds; `Date.now` by default. */
  now?: () => number;
}

/**
 * Creates an in-memory session store (Node, Deno, a single Durable Object: one process holds
 * every session). Ids are random UUIDs (122 random bits), so one cannot be guessed, and a client
 * cannot choose its own: an unknown id gets 404, never a new session. Expiry needs no timer: a
 * session is checked when it is used, and idle ones are swept when the store is full, so an idle
 * server holds no timers and a Worker is never kept alive.
 *
 * @param options Capacity, idle time, and the hooks that keep busy sessions and clean up.
 * @returns The store.
 */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const { capacity, idleMs, busy, onExpire, now = Date.now } = options;
  const sessions = new Map<string, { session: Session; seen: number }>();
  const expired = (id: string, seen: number, at: number) => at - seen >= idleMs && !busy(id);
  const end = (id: string) => {
    sessions.delete(id);
    onExpire(id);
  };
  return {
    create(protocolVersion, clientCapabilities) {
      const at = now();
      if (sessions.size >= capacity) {
        for (const [id, entry] of sessions) if (expired(id, entry.seen, at)) end(id);
      }
      if (sessions.size >= capacity) return undefined;
      const session: Session = {
        id: crypto.randomUUID(),
        protocolVersion,
        clientCapabilities,
        logLevel: undefined,
      };
      sessions.set(session.id, { session, seen: at });
      return session;
    },
    get(id) {
      const entry = sessions.get(id);
      if (!entry) return undefined;
      const at = now();
      if (expired(id, entry.seen, at)) {
        end(id);
        return undefined;
      }
      entry.seen = at;
      return entry.session;
    },
    delete: (id) => sessions.delete(id),
  };
}
