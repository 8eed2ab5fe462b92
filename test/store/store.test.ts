// The Store seam on memory (design.md, "Storage"); IndexedDB runs in the browser project
// (test/browser/indexed-db-store.test.ts), Workers KV and Durable Object storage in workerd
// (test/workerd/store.test.ts), Redis against a real redis-server (test/node/redis-store.test.ts).
import { describe } from "vitest";
import { memoryStore } from "../../src/index.ts";
import { storeContract } from "../support/store-contract.ts";

describe("memoryStore", () => {
  storeContract(async () => {
    let clock = 1_000;
    const advance = (ms: number) => {
      clock += ms;
    };
    return { store: memoryStore({ now: () => clock }), advance };
  });
});
