import { errorText, ToolError } from "../errors.ts";
import {
  checkExpected,
  checkKey,
  checkValue,
  type Store,
  type StoreOptions,
  ttlOf,
} from "./store.ts";

// A `Store` in the page's IndexedDB: what a tab keeps across a reload or a closed laptop.
// Each operation is one IndexedDB transaction, so `compareAndSet` (a read and a write in one
// `readwrite` transaction) is atomic even across tabs of the same origin.

// The slice of IndexedDB used here, declared so the store type-checks where the DOM types are
// absent (Workers); the browser's objects fit it.
interface IdbRequest<T> {
  readonly result: T;
  readonly error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
}
interface IdbObjectStore {
  get(key: string): IdbRequest<unknown>;
  put(value: unknown, key: string): unknown;
  delete(key: string): unknown;
}
interface IdbTransaction {
  readonly error: unknown;
  objectStore(name: string): IdbObjectStore;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}
interface IdbDatabase {
  transaction(name: string, mode: "readonly" | "readwrite"): IdbTransaction;
  createObjectStore(name: string): unknown;
}

/** The part of an `IDBFactory` (`indexedDB`) the store uses. */
export interface IndexedDbFactoryLike {
  open(
    name: string,
    version: number,
  ): IdbRequest<IdbDatabase> & { onupgradeneeded: (() => void) | null };
}

/** What `indexedDbStore` takes. */
export interface IndexedDbStoreOptions {
  /** The database name; default `toolwire`. One object store, `entries`, lives in it. */
  name?: string;
  /** The IndexedDB factory; default `globalThis.indexedDB`. */
  indexedDB?: IndexedDbFactoryLike;
  /** The clock, in ms; `Date.now` by default. */
  now?: () => number;
}

interface Entry {
  value: string;
  expiresAt?: number;
}

/**
 * Creates a store in the page's IndexedDB (a browser, a worker). The database opens on first
 * use; expired entries read as absent.
 *
 * @throws ToolError `unsupported` (from the first operation) where there is no IndexedDB,
 * `transport` when the database cannot be opened or an operation fails.
 * @example
 * ```ts
 * const store = indexedDbStore();
 * const saved = await store.get("run");
 * ```
 */
export function indexedDbStore(options: IndexedDbStoreOptions = {}): Store {
  const name = options.name ?? "toolwire";
  const now = options.now ?? Date.now;
  let opened: Promise<IdbDatabase> | undefined;
  const database = () => {
    opened ??= new Promise<IdbDatabase>((resolve, reject) => {
      const factory =
        options.indexedDB ?? (globalThis as { indexedDB?: IndexedDbFactoryLike }).indexedDB;
      if (!factory) {
        reject(
          new ToolError({ type: "unsupported", operation: "indexedDbStore without IndexedDB" }),
        );
        return;
      }
      const request = factory.open(name, 1);
      request.onupgradeneeded = () => request.result.createObjectStore("entries");
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(failure("open", request.error));
    });
    return opened;
  };
  // Runs `work` in one transaction and settles when it commits.
  const run = async <T>(
    mode: "readonly" | "readwrite",
    work: (entries: IdbObjectStore, done: (value: T) => void) => void,
  ): Promise<T> => {
    const db = await database();
    return new Promise<T>((resolve, reject) => {
      const transaction = db.transaction("entries", mode);
      let result: T;
      transaction.oncomplete = () => resolve(result);
      transaction.onerror = () => reject(failure(mode, transaction.error));
      transaction.onabort = () => reject(failure(mode, transaction.error));
      work(transaction.objectStore("entries"), (value) => {
        result = value;
      });
    });
  };
  const live = (entry: Entry | undefined) =>
    entry && (entry.expiresAt === undefined || entry.expiresAt > now()) ? entry.value : undefined;
  const entryOf = (value: string, ttl: number | undefined): Entry =>
    ttl === undefined ? { value } : { value, expiresAt: now() + ttl };
  return {
    async get(key) {
      checkKey(key);
      return run<string | undefined>("readonly", (entries, done) => {
        const request = entries.get(key);
        request.onsuccess = () => done(live(request.result as Entry | undefined));
      });
    },
    async put(key, value, options?: StoreOptions) {
      const entry = entryOf(checkValue(value), ttlOf(options));
      checkKey(key);
      await run<void>("readwrite", (entries) => {
        entries.put(entry, key);
      });
    },
    async delete(key) {
      checkKey(key);
      await run<void>("readwrite", (entries) => {
        entries.delete(key);
      });
    },
    async compareAndSet(key, expected, value, options) {
      checkKey(key);
      checkExpected(expected);
      const entry = entryOf(checkValue(value), ttlOf(options));
      return run<boolean>("readwrite", (entries, done) => {
        const request = entries.get(key);
        request.onsuccess = () => {
          if (live(request.result as Entry | undefined) !== expected) return done(false);
          entries.put(entry, key);
          done(true);
        };
      });
    },
  };
}

function failure(operation: string, error: unknown): ToolError {
  return new ToolError(
    { type: "transport", message: `IndexedDB ${operation} failed: ${errorText(error)}` },
    { cause: error },
  );
}
