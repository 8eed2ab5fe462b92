// The Store seam on the real Workers bindings, in workerd (design.md, "Storage"): a KV
// namespace (no compare-and-set) and a Durable Object's storage, where twenty claimants, each
// its own request to the object, are let in one at a time and exactly one wins.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, test } from "vitest";
import { durableObjectStore, kvStore, type Store } from "../../src/index.ts";
import { storeContract } from "../support/store-contract.ts";

let prefix = 0;

/** A KV store whose keys are this test's own (KV persists across the file's tests). */
function prefixed(store: Store, at: string): Store {
  // An empty key stays empty, so the store still refuses it.
  const name = (key: string) => (key === "" ? key : at + key);
  return {
    get: (key) => store.get(name(key)),
    put: (key, value, options) => store.put(name(key), value, options),
    delete: (key) => store.delete(name(key)),
    compareAndSet: (key, expected, value, options) =>
      store.compareAndSet(name(key), expected, value, options),
  };
}

describe("kvStore on a KV namespace", () => {
  storeContract(async () => ({ store: prefixed(kvStore(env.STORE_KV), `k${prefix++}:`) }), {
    compareAndSet: false,
  });
  test("rounds a ttl under a minute up to KV's 60 s", async () => {
    const store = kvStore(env.STORE_KV);
    await store.put("short-ttl", "v", { ttlMs: 1000 });
    expect(await store.get("short-ttl")).toBe("v");
  });
});

describe("durableObjectStore on a Durable Object's storage", () => {
  storeContract(async () => {
    const stub = env.STORE_DO.get(env.STORE_DO.idFromName(`contract-${prefix++}`));
    let clock = 1_000;
    let store: Store | undefined;
    await runInDurableObject(stub, (_instance, state) => {
      store = durableObjectStore(state.storage, () => clock);
    });
    const advance = (ms: number) => {
      clock += ms;
    };
    // Each operation runs inside the object, as its own code would.
    const inside =
      <A extends unknown[], R>(op: (store: Store, ...args: A) => Promise<R>) =>
      (...args: A) =>
        runInDurableObject(stub, () => op(store as Store, ...args));
    return {
      store: {
        get: inside((s, key: string) => s.get(key)),
        put: inside((s, key: string, value: string, options?: { ttlMs?: number }) =>
          s.put(key, value, options),
        ),
        delete: inside((s, key: string) => s.delete(key)),
        compareAndSet: inside(
          (
            s,
            key: string,
            expected: string | undefined,
            value: string,
            options?: { ttlMs?: number },
          ) => s.compareAndSet(key, expected, value, options),
        ),
      },
      advance,
    };
  });

  test("lets exactly one of twenty claimants win, each its own request", async () => {
    const stub = env.STORE_DO.get(env.STORE_DO.idFromName("claims"));
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => stub.claim("lock", `worker-${i}`)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await stub.read("lock")).toBe(`worker-${claims.indexOf(true)}`);
  });
});
