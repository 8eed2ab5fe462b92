import { expect, test } from "vitest";
import type { Store } from "../../src/store/store.ts";

/**
 * Registers the `Store` contract's tests for one backend (design.md, "Storage"): get/put/delete,
 * TTL expiry on a clock the test moves, compare-and-set as a claim (exactly one of many
 * concurrent claimants wins), and typed errors for bad input.
 *
 * @param make Creates an empty store and the clock control (`advance(ms)`), or `undefined` when
 * the backend's TTL is not on a clock the test can move.
 */
export function storeContract(
  make: () => Promise<{ store: Store; advance?: (ms: number) => void }>,
  options: { compareAndSet?: boolean } = {},
): void {
  test("puts, gets and deletes strings", async () => {
    const { store } = await make();
    expect(await store.get("a")).toBeUndefined();
    await store.put("a", '{"x":1}');
    expect(await store.get("a")).toBe('{"x":1}');
    await store.put("a", "");
    expect(await store.get("a")).toBe("");
    await store.delete("a");
    await store.delete("a");
    expect(await store.get("a")).toBeUndefined();
  });

  test("refuses a bad key, value or ttl with invalid_configuration", async () => {
    const { store } = await make();
    for (const bad of [
      () => store.get(""),
      () => store.put("k", 3 as unknown as string),
      () => store.put("k", "v", { ttlMs: 0 }),
      () => store.put("k", "v", { ttlMs: 1.5 }),
    ]) {
      await expect(bad()).rejects.toMatchObject({ type: "invalid_configuration" });
    }
  });

  test("forgets an entry once its ttl has passed", async () => {
    const { store, advance } = await make();
    await store.put("short", "v", { ttlMs: 120_000 });
    await store.put("long", "v");
    expect(await store.get("short")).toBe("v");
    if (!advance) return;
    advance(120_001);
    expect(await store.get("short")).toBeUndefined();
    expect(await store.get("long")).toBe("v");
  });

  if (options.compareAndSet === false) {
    test("refuses compareAndSet with unsupported", async () => {
      const { store } = await make();
      await expect(store.compareAndSet("k", undefined, "v")).rejects.toMatchObject({
        type: "unsupported",
      });
    });
    return;
  }

  test("compares and sets: absent, then the expected value, never another", async () => {
    const { store } = await make();
    expect(await store.compareAndSet("k", undefined, "one")).toBe(true);
    expect(await store.compareAndSet("k", undefined, "two")).toBe(false);
    expect(await store.compareAndSet("k", "nope", "two")).toBe(false);
    expect(await store.compareAndSet("k", "one", "two")).toBe(true);
    expect(await store.get("k")).toBe("two");
  });

  test("lets exactly one of many concurrent claimants win", async () => {
    const { store } = await make();
    const claims = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.compareAndSet("claim", undefined, `c${i}`)),
    );
    expect(claims.filter(Boolean)).toHaveLength(1);
    expect(await store.get("claim")).toBe(`c${claims.indexOf(true)}`);
  });

  test("treats an expired entry as absent when claiming", async () => {
    const { store, advance } = await make();
    await store.put("lease", "old", { ttlMs: 1000 });
    expect(await store.compareAndSet("lease", undefined, "new")).toBe(false);
    if (!advance) return;
    advance(1001);
    expect(await store.compareAndSet("lease", undefined, "new", { ttlMs: 1000 })).toBe(true);
  });
}
