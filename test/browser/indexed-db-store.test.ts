// The Store seam on the page's IndexedDB, in Chromium (design.md, "Storage").
import { describe } from "vitest";
import { indexedDbStore } from "../../src/index.ts";
import { storeContract } from "../support/store-contract.ts";

let database = 0;

describe("indexedDbStore", () => {
  storeContract(async () => {
    let clock = 1_000;
    const advance = (ms: number) => {
      clock += ms;
    };
    const store = indexedDbStore({ name: `toolwire-test-${database++}`, now: () => clock });
    return { store, advance };
  });
});
