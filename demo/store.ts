/**
 * Store interface: a small asynchronous key-value store for the demo's persistent state
 * (conversation, notes, todo list, compaction log). Values must be structured-cloneable.
 */
export interface Store {
  /** Returns the value under `key`, or `undefined` when there is none. */
  get<T>(key: string): Promise<T | undefined>;
  /** Stores a copy of `value` under `key`. */
  set(key: string, value: unknown): Promise<void>;
  /** Removes `key`. */
  delete(key: string): Promise<void>;
}

const OBJECT_STORE = "kv";

/**
 * Creates an in-memory store; used in Node tests and when IndexedDB is unavailable (some
 * private-browsing modes refuse to open a database).
 *
 * @returns The store.
 */
export function memoryStore(): Store {
  const values = new Map<string, unknown>();
  return {
    get: async <T>(key: string) => structuredClone(values.get(key)) as T | undefined,
    set: async (key, value) => {
      values.set(key, structuredClone(value));
    },
    delete: async (key) => {
      values.delete(key);
    },
  };
}

/**
 * Opens the demo's IndexedDB store, falling back to memory when IndexedDB is missing or
 * refuses to open.
 *
 * @param name The database name.
 * @returns The store and whether it persists across reloads.
 */
export async function openStore(
  name = "toolwire-demo",
): Promise<{ store: Store; persistent: boolean }> {
  if (typeof indexedDB === "undefined") return { store: memoryStore(), persistent: false };
  try {
    const db = await openDatabase(name);
    return { store: indexedDbStore(db), persistent: true };
  } catch {
    return { store: memoryStore(), persistent: false };
  }
}

function openDatabase(name: string): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(OBJECT_STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
    request.onblocked = () => reject(new Error("IndexedDB open was blocked"));
  });
}

function indexedDbStore(db: IDBDatabase): Store {
  const run = <T>(mode: IDBTransactionMode, work: (s: IDBObjectStore) => IDBRequest): Promise<T> =>
    new Promise((resolve, reject) => {
      const transaction = db.transaction(OBJECT_STORE, mode);
      const request = work(transaction.objectStore(OBJECT_STORE));
      // Resolve on transaction completion, so a write is durable before a reload.
      transaction.oncomplete = () => resolve(request.result as T);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  return {
    get: <T>(key: string) => run<T | undefined>("readonly", (s) => s.get(key)),
    set: async (key, value) => {
      await run("readwrite", (s) => s.put(value, key));
    },
    delete: async (key) => {
      await run("readwrite", (s) => s.delete(key));
    },
  };
}
