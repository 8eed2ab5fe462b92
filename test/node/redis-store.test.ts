// The Store seam on Redis (design.md, "Storage"): a real redis-server (Debian's package) started
// for this file on a free port, reached through the `redis` package the store loads on first use.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { redisStore } from "../../src/node/index.ts";
import { storeContract } from "../support/store-contract.ts";

let server: ChildProcess | undefined;
let url = "";
const stores: { close(): Promise<void> }[] = [];

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

beforeAll(async () => {
  const port = await freePort();
  url = `redis://127.0.0.1:${port}`;
  server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  // Ready once it says so on stdout.
  await new Promise<void>((resolve, reject) => {
    server?.once("error", reject);
    server?.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) resolve();
    });
  });
}, 30_000);

afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  server?.kill();
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
