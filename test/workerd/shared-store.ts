/**
 * A `Store` that every isolate of a deployment shares: a `durableObjectStore` on one Durable
 * Object's storage, which other isolates reach over RPC. The Workers tests that need state
 * across isolates (durable runs, MCP tasks) export a subclass of `StoreObject` under their
 * binding's class name and reach it with `sharedStore`.
 */
import { DurableObject } from "cloudflare:workers";
import { durableObjectStore, type Store } from "../../src/index.ts";

/** The object holding the store; each method is one RPC. */
export class StoreObject extends DurableObject {
  readonly store = durableObjectStore(this.ctx.storage);

  read(key: string): Promise<string | undefined> {
    return this.store.get(key);
  }

  write(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.store.put(key, value, ttlMs === undefined ? undefined : { ttlMs });
  }

  remove(key: string): Promise<void> {
    return this.store.delete(key);
  }

  swap(key: string, expected: string | undefined, value: string, ttlMs?: number) {
    return this.store.compareAndSet(
      key,
      expected,
      value,
      ttlMs === undefined ? undefined : { ttlMs },
    );
  }
}

/** The store in the object named `name` of `namespace`, as any isolate reaches it. */
export function sharedStore(namespace: DurableObjectNamespace<StoreObject>, name: string): Store {
  const object = () => namespace.get(namespace.idFromName(name));
  return {
    get: (key) => object().read(key),
    put: (key, value, options) => object().write(key, value, options?.ttlMs),
    delete: (key) => object().remove(key),
    compareAndSet: (key, expected, value, options) =>
      object().swap(key, expected, value, options?.ttlMs),
  };
}
