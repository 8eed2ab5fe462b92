// The Store seam on Redis (design.md, "Storage"): a real redis-server (Debian's package) started
// for this file on a free port, reached through the `redis` package the store loads on first use.
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { redisStore } from "../../src/node/index.ts";
import { freePort, type RedisServer, startRedisServer } from "../support/redis-server.ts";
import { storeContract } from "../support/store-contract.ts";

let server: RedisServer | undefined;
let url = "";
const stores: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  url = server.url;
}, 30_000);

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  server?.stop();
});

let namespace = 0;

describe("redisStore", () => {
  storeContract(async () => {
    // Each test gets its own key prefix on the one server.
    const store = redisStore({ url, prefix: `t${namespace++}:` });
    stores.push(store);
    return { store };
  });

  test("hands the ttl to Redis, which expires the key", async () => {
    const store = redisStore({ url, prefix: "ttl:" });
    stores.push(store);
    await store.put("k", "v", { ttlMs: 60_000 });
    expect(await store.compareAndSet("c", undefined, "v", { ttlMs: 30_000 })).toBe(true);
    const raw = createClient({ url });
    await raw.connect();
    try {
      const left = await raw.pTTL("ttl:k");
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(60_000);
      const claimed = await raw.pTTL("ttl:c");
      expect(claimed).toBeGreaterThan(0);
      expect(claimed).toBeLessThanOrEqual(30_000);
      expect(await raw.pTTL("ttl:none")).toBe(-2);
    } finally {
      await raw.close();
    }
  });

  test("fails with transport when Redis cannot be reached, and needs a url or client", async () => {
    const store = redisStore({ url: `redis://127.0.0.1:${await freePort()}` });
    stores.push(store);
    await expect(store.get("k")).rejects.toMatchObject({ type: "transport" });
    expect(() => redisStore({} as { url: string })).toThrow(
      expect.objectContaining({ type: "invalid_configuration" }),
    );
  });
});
