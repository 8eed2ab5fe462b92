import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { InteractionResponse } from "../../src/interaction/interaction-response.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";
import { createFakeBackend } from "../support/fake-backend.ts";

const echo = defineTool({
  name: "echo",
  description: "Echoes after asking",
  input: v.object({ text: v.string() }),
  interactions: { text: true },
  carriedState: () => ({ label: "echo", body: "local" }),
  call: async ({ text }, ctx) => `${ctx.toolName}:${text}:${await ctx.requestText("more?")}`,
});

describe("Toolset.merge", () => {
  test("lists tools as ns__name, sorted, and calls them by their native name", async () => {
    const remote = createFakeBackend({ tools: ["echo", "search"] });
    const merged = Toolset.merge([Toolset.local([echo]), Toolset.fromBackend(remote)], {
      namespaces: ["local", "repo"],
    });
    expect((await merged.listTools()).map((info) => info.name)).toEqual([
      "local__echo",
      "repo__echo",
      "repo__search",
    ]);
    const result = await merged.call("repo__echo", { text: "hi" });
    expect(result.content).toEqual([{ type: "text", text: 'echo:{"text":"hi"}' }]);
    expect((await caught(merged.toolHandler("echo"))).data).toEqual({
      type: "unknown_tool",
      name: "echo",
    });
  });

  test("renames interaction requests to the namespaced name", async () => {
    const merged = Toolset.merge([Toolset.local([echo])], { namespaces: ["ns"] });
    const handler = await merged.toolHandler("ns__echo");
    const output = await handler.step({ type: "invoke", arguments: { text: "a" } });
    if (output.type !== "interaction") throw new Error("expected an interaction");
    expect(output.request.toolName).toBe("ns__echo");
    const done = await handler.step({
      type: "interaction",
      response: InteractionResponse.submit(output.request.id, "b"),
    });
    expect(done).toMatchObject({ type: "completed", result: { content: [{ text: "echo:a:b" }] } });
  });

  test("keeps names as they are without namespaces", async () => {
    const merged = Toolset.merge([Toolset.fromBackend(createFakeBackend({ tools: ["b", "a"] }))]);
    expect((await merged.listTools()).map((info) => info.name)).toEqual(["a", "b"]);
  });

  test("fails with duplicate_name when two sources expose one name", async () => {
    const merged = Toolset.merge([
      Toolset.local([echo]),
      Toolset.fromBackend(createFakeBackend({ tools: ["echo"] })),
    ]);
    expect((await caught(merged.listTools())).data).toEqual({
      type: "duplicate_name",
      name: "echo",
    });
    expect((await caught(merged.toolHandler("echo"))).type).toBe("duplicate_name");
  });

  test.each([
    ["a namespace that is not a tool name", ["bad ns"]],
    ["a namespace list of the wrong length", ["a", "b"]],
  ])("rejects %s with invalid_configuration", async (_label, namespaces) => {
    const error = await caught(() => Toolset.merge([Toolset.local([echo])], { namespaces }));
    expect(error.type).toBe("invalid_configuration");
  });

  test("concatenates carried state in source order", async () => {
    const remote = createFakeBackend({ carried: [{ label: "remote", body: "r" }] });
    const merged = Toolset.merge([Toolset.fromBackend(remote), Toolset.local([echo])]);
    expect(await merged.carriedState()).toEqual([
      { label: "remote", body: "r" },
      { label: "echo", body: "local" },
    ]);
  });

  test("shuts each source down once, however often the merge is shut down", async () => {
    const a = createFakeBackend();
    const b = createFakeBackend({ tools: ["gamma"] });
    const sourceA = Toolset.fromBackend(a);
    const merged = Toolset.merge([sourceA, Toolset.fromBackend(b)]);
    await Promise.all([merged.shutdown(), merged.shutdown(), sourceA.shutdown()]);
    await merged.shutdown();
    expect([a.counts.shutdowns, b.counts.shutdowns]).toEqual([1, 1]);
    expect((await caught(sourceA.listTools())).type).toBe("closed");
  });

  test("reports a source's cleanup failure after shutting every source down", async () => {
    const failure = new Error("stuck");
    const a = createFakeBackend({ cleanupError: failure });
    const b = createFakeBackend();
    const merged = Toolset.merge([Toolset.fromBackend(a), Toolset.fromBackend(b)]);
    const error = await caught(merged.shutdown());
    expect(error.type).toBe("transport");
    expect(error.message).toContain("stuck");
    expect(b.counts.shutdowns).toBe(1);
  });
});

describe("Toolset.merge with sources in other states", () => {
  test("a source shut down before the merge makes the merge's operations fail with closed", async () => {
    const child = Toolset.local([echo]);
    await child.shutdown();
    const merged = Toolset.merge([child]);
    expect((await caught(merged.listTools())).type).toBe("closed");
    expect((await caught(merged.carriedState())).type).toBe("closed");
    await merged.shutdown();
  });

  test("shutting a child down separately closes the merged call running on it", async () => {
    const child = Toolset.local([echo]);
    const merged = Toolset.merge([child]);
    const handler = await merged.toolHandler("echo");
    const output = await handler.step({ type: "invoke", arguments: { text: "x" } });
    expect(output.type).toBe("interaction");
    await child.shutdown();
    const reply = {
      type: "interaction",
      response: InteractionResponse.submit(
        output.type === "interaction" ? output.request.id : "",
        "y",
      ),
    } as const;
    expect((await caught(handler.step(reply))).type).toBe("closed");
    await merged.shutdown();
  });

  test("accepts a raw backend as a source and shuts it down with the merge", async () => {
    const backend = createFakeBackend({ tools: ["alpha"] });
    const merged = Toolset.merge([backend as never]);
    expect((await merged.listTools()).map((t) => t.name)).toEqual(["alpha"]);
    await merged.shutdown();
    expect(backend.counts.shutdowns).toBe(1);
  });

  test("rejects sources that are not a list, or not toolsets, with invalid_configuration", async () => {
    expect((await caught(() => Toolset.merge("x" as never))).type).toBe("invalid_configuration");
    expect((await caught(() => Toolset.merge([{} as never]))).type).toBe("invalid_configuration");
  });
});
