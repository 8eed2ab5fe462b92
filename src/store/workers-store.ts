import { ToolError } from "../errors.ts";
import {
  checkExpected,
  checkKey,
  checkValue,
  type Store,
  type StoreOptions,
  ttlOf,
} from "./store.ts";

// `Store`s on Cloudflare Workers: KV (global, eventually consistent: for snapshots, which one
// writer updates) and a Durable Object's storage (one object, strongly consistent: for
// compare-and-set claims). The platform shapes are declared here, not imported, so the package
// needs no Workers types; the real bindings fit them (tested in workerd).

/** The part of a Workers KV namespace binding `kvStore` uses. */
export interface KvNamespaceLike {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  delete(key: string): Promise<void>;
}

/** The part of a Durable Object's `ctx.storage` `durableObjectStore` uses. */
export interface DurableObjectStorageLike {
  get(key: string): Promise<unknown>;
  put(key: string, value: unknown): Promise<void>;
  delete(key: string): Promise<boolean>;
}

/**
 * Creates a store on a Workers KV namespace. KV keeps an entry at least 60 s, so a shorter
 * `ttlMs` is rounded up to 60 s. KV is eventually consistent (another location may read an
 * older value for up to a minute), so it cannot compare and set: use `durableObjectStore`
 * where a claim must be strong.
 *
 * @param namespace The KV binding (`env.SNAPSHOTS`).
 * @example
 * ```ts
 * const store = kvStore(env.SNAPSHOTS);
 * ```
 */
export function kvStore(namespace: KvNamespaceLike): Store {
  return {
    async get(key) {
      return (await namespace.get(checkKey(key))) ?? undefined;
    },
    async put(key, value, options?: StoreOptions) {
      const ttl = ttlOf(options);
      const put =
        ttl === undefined ? undefined : { expirationTtl: Math.max(60, Math.ceil(ttl / 1000)) };
      await namespace.put(checkKey(key), checkValue(value), put);
    },
    async delete(key) {
      await namespace.delete(checkKey(key));
    },
    async compareAndSet() {
      throw new ToolError({
        type: "unsupported",
        operation:
          "compareAndSet on Workers KV, which is eventually consistent; use durableObjectStore",
      });
    },
  };
}

interface Entry {
  value: string;
  expiresAt?: number;
}

/**
 * Creates a store on a Durable Object's storage (`this.ctx.storage` inside the object). The
 * object lets no other request in between a storage read and the write that follows it (its
 * input gates), and the store queues its own claims, so `compareAndSet` is atomic for everyone
 * who reaches the object. Expired entries
 * read as absent and are deleted then.
 *
 * @param storage The object's storage.
 * @param now The clock, in ms; `Date.now` by default.
 */
export function durableObjectStore(
  storage: DurableObjectStorageLike,
  now: () => number = Date.now,
): Store {
  const read = async (key: string) => {
    const entry = (await storage.get(key)) as Entry | undefined;
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      await storage.delete(key);
      return undefined;
    }
    return entry?.value;
  };
  const entryOf = (value: string, ttl: number | undefined): Entry =>
    ttl === undefined ? { value } : { value, expiresAt: now() + ttl };
  // Input gates keep other requests out between the read and the write; this chain does the
  // same for concurrent claims made within one request.
  let claims: Promise<unknown> = Promise.resolve();
  return {
    get: (key) => read(checkKey(key)),
    async put(key, value, options?: StoreOptions) {
      await storage.put(checkKey(key), entryOf(checkValue(value), ttlOf(options)));
    },
    async delete(key) {
      await storage.delete(checkKey(key));
    },
    async compareAndSet(key, expected, value, options) {
      checkKey(key);
      checkExpected(expected);
      const entry = entryOf(checkValue(value), ttlOf(options));
      const claim = claims.then(async () => {
        if ((await read(key)) !== expected) return false;
        await storage.put(key, entry);
        return true;
      });
      claims = claim.catch(() => {});
      return claim;
    },
  };
}
