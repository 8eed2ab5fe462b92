// Durable runs across Workers isolates (design.md A10), in Miniflare: a run paused on one
// Worker resumes on another that shares only the key and the store (a Durable Object's
// storage), its call taking effect once; a Worker with another key is refused with a typed
// error and leaves the run as it was; of two Workers resuming the same run at once, one goes on.
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleWorker, COMPATIBILITY_DATE, workerFetch } from "../support/miniflare.ts";

let mf: Miniflare | undefined;

beforeAll(async () => {
  const modules = await bundleWorker(new URL("../workerd/durable-run-worker.ts", import.meta.url));
  const store = { className: "RunStore", scriptName: "store" };
  const shared = "the-key-a-and-b-share-32-characters!";
  // Each Worker its own isolate; the compatibility date is per Worker (RPC to the object needs it).
  const worker = { modules, compatibilityDate: COMPATIBILITY_DATE };
  mf = new Miniflare({
    workers: [
      {
        name: "store",
        modules,
        durableObjects: { STORE: "RunStore" },
        bindings: { SECRET: shared },
      },
      { name: "a", ...worker, durableObjects: { STORE: store }, bindings: { SECRET: shared } },
      { name: "b", ...worker, durableObjects: { STORE: store }, bindings: { SECRET: shared } },
      {
        name: "c",
        ...worker,
        durableObjects: { STORE: store },
        bindings: { SECRET: "another-key-of-at-least-32-characters" },
      },
    ],
  });
  await mf.ready;
}, 60_000);

afterAll(async () => {
  await mf?.dispose();
});

async function call(worker: string, path: string, body?: unknown) {
  const fetcher = await workerFetch(mf as Miniflare, worker);
  const response = await fetcher(`http://worker${path}`, {
    method: body === undefined ? "GET" : "POST",
    body: body === undefined ? null : JSON.stringify(body),
  });
  return (await response.json()) as Record<string, unknown>;
}

describe("a run kept in a Durable Object, across Workers", () => {
  it("pauses on one Worker and resumes on another; another key is refused", async () => {
    const started = await call("a", "/start", {});
    expect(started).toMatchObject({ stop: "paused", id: expect.any(String) });

    const stranger = await call("c", "/resume", { id: started.id });
    expect(stranger).toMatchObject({
      stop: "error",
      error: { type: "invalid_configuration", message: expect.stringMatching(/signature/) },
    });
    expect(await call("a", "/effects")).toEqual({ effects: 0 });

    const resumed = await call("b", "/resume", { id: started.id });
    expect(resumed).toMatchObject({ stop: "done", text: "paid" });
    expect(await call("a", "/effects")).toEqual({ effects: 1 });

    const again = await call("a", "/resume", { id: started.id });
    expect(again).toMatchObject({
      stop: "error",
      error: { message: expect.stringMatching(/ended/) },
    });
    expect(await call("b", "/effects")).toEqual({ effects: 1 });
  });

  it("lets one of two Workers resuming the same run at once go on", async () => {
    const before = (await call("a", "/effects")).effects as number;
    const started = await call("a", "/start", {});
    const both = await Promise.all([
      call("a", "/resume", { id: started.id }),
      call("b", "/resume", { id: started.id }),
    ]);
    expect(both.map((result) => result.stop).sort()).toEqual(["done", "error"]);
    expect(both.find((result) => result.stop === "error")?.error).toMatchObject({
      // Refused at its claim; or it claimed first, lost the run to the later claim and stopped
      // before its next call (the effect count below shows the call ran once); or the other had
      // already finished and the run ended.
      message: expect.stringMatching(
        /resumed by another instance first|was resumed by another instance; this one stops|ended \(done\)/,
      ),
    });
    expect(await call("b", "/effects")).toEqual({ effects: before + 1 });
  });
});
