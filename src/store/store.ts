import { ToolError } from "../errors.ts";

// One small storage seam (docs/design.md, "Storage"): what durable runs keep between page
// loads, isolates and processes (a run's latest snapshot, a claim on a call). Values are
// strings (store JSON text), so every backend holds them as they are: memory, IndexedDB,
// Workers KV, Durable Object storage, Redis.

/** How long an entry lives. */
export interface StoreOptions {
  /** Milliseconds until the entry expires (a positive integer); default: until deleted. */
  ttlMs?: number;
}

/**
 * A key-value store toolwire keeps durable state in. `get` never returns an expired entry.
 * `compareAndSet` is atomic where the backend can make it so (memory, IndexedDB, a Durable
 * Object, Redis); Workers KV cannot, and refuses it.
 */
export interface Store {
  /** Returns the value under `key`, or `undefined` when there is none (or it expired). */
  get(key: string): Promise<string | undefined>;
  /** Sets the value under `key`. */
  put(key: string, value: string, options?: StoreOptions): Promise<void>;
  /** Removes `key`; removing an absent key is fine. */
  delete(key: string): Promise<void>;
  /**
   * Sets `value` only if the current value is `expected` (`undefined`: only if there is none, so
   * the first caller claims a key), atomically. Returns whether it did.
   *
   * @throws ToolError `unsupported` where the backend cannot compare and set atomically (KV).
   */
  compareAndSet(
    key: string,
    expected: string | undefined,
    value: string,
    options?: StoreOptions,
  ): Promise<boolean>;
}

/** What `memoryStore` takes. */
export interface MemoryStoreOptions {
  /** The clock, in ms; `Date.now` by default. */
  now?: () => number;
}

/**
 * Creates a store in this process's memory: for tests, one Node process, or a page that needs
 * nothing to survive a reload. Expired entries are dropped when read (no timer).
 *
 * @example
 * ```ts
 * const store = memoryStore();
 * await store.put("run", JSON.stringify(snapshot), { ttlMs: 86_400_000 });
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): Store {
  const now = options.now ?? Date.now;
  const entries = new Map<string, { value: string; expiresAt: number | undefined }>();
  const read = (key: string) => {
    const entry = entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= now()) {
      entries.delete(key);
      return undefined;
    }
    return entry?.value;
  };
  const write = (key: string, value: string, ttlMs: number | undefined) => {
    entries.set(key, { value, expiresAt: ttlMs === undefined ? undefined : now() + ttlMs });
  };
  return {
    async get(key) {
      return read(checkKey(key));
    },
    async put(key, value, options) {
      write(checkKey(key), checkValue(value), ttlOf(options));
    },
    async delete(key) {
      entries.delete(checkKey(key));
    },
    async compareAndSet(key, expected, value, options) {
      checkExpected(expected);
      const ttl = ttlOf(options);
      if (read(checkKey(key)) !== expected) return false;
      write(key, checkValue(value), ttl);
      return true;
    },
  };
}

/** Returns `key` if it is a non-empty string. @throws ToolError `invalid_configuration`. */
export function checkKey(key: unknown): string {
  if (typeof key !== "string" || key === "")
    throw invalid("a store key must be a non-empty string");
  return key;
}

/** Returns `value` if it is a string. @throws ToolError `invalid_configuration`. */
export function checkValue(value: unknown): string {
  if (typeof value !== "string") throw invalid("a store value must be a string (JSON text)");
  return value;
}

/** Checks an expected value: a string or `undefined`. @throws ToolError `invalid_configuration`. */
export function checkExpected(expected: unknown): void {
  if (expected !== undefined) checkValue(expected);
}

/** Returns the TTL in ms, if any. @throws ToolError `invalid_configuration` for a bad one. */
export function ttlOf(options: StoreOptions | undefined): number | undefined {
  const ttl = options?.ttlMs;
  if (ttl === undefined) return undefined;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl <= 0) {
    throw invalid("ttlMs must be a positive integer of milliseconds");
  }
  return ttl;
}

function invalid(message: string): ToolError {
  return new ToolError({ type: "invalid_configuration", message });
}
