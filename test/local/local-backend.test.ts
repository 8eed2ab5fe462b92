import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { defineTool, type Tool } from "../../src/local/define-tool.ts";
import { createLocalBackend } from "../../src/local/local-backend.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import { caught } from "../support/caught.ts";

function tool(name: string, body?: string): Tool {
  return defineTool({
    name,
    description: `Tool ${name}`,
    input: v.object({}),
    ...(body === undefined ? {} : { carriedState: () => ({ label: name, body }) }),
    call: () => name,
  }) as Tool;
}

describe("createLocalBackend", () => {
  test("accepts an empty list and lists nothing", async () => {
    expect(await createLocalBackend([]).listTools()).toEqual([]);
  });

  test("lists declarations sorted by name, whatever the registration order", async () => {
    const names = (await createLocalBackend([tool("b"), tool("C"), tool("a")]).listTools()).map(
      (info) => info.name,
    );
    expect(names).toEqual(["C", "a", "b"]);
  });

  test("rejects two tools with one name with duplicate_name", async () => {
    const error = await caught(() => createLocalBackend([tool("echo"), tool("x"), tool("echo")]));
    expect(error.data).toEqual({ type: "duplicate_name", name: "echo" });
  });

  test("rejects something that is not a tool with invalid_configuration", async () => {
    expect((await caught(() => createLocalBackend([{ name: "x" } as never]))).type).toBe(
      "invalid_configuration",
    );
    expect((await caught(() => createLocalBackend("x" as never))).type).toBe(
      "invalid_configuration",
    );
  });

  test("returns a fresh ready handler per call", async () => {
    const backend = createLocalBackend([tool("a")]);
    const first = await backend.toolHandler("a");
    const second = await backend.toolHandler("a");
    expect(first).toBeInstanceOf(LocalHandler);
    expect(first).not.toBe(second);
    expect(await first.step({ type: "invoke", arguments: {} })).toMatchObject({
      type: "completed",
    });
    expect(await second.step({ type: "invoke", arguments: {} })).toMatchObject({
      type: "completed",
    });
  });

  test("fails toolHandler for a missing tool with unknown_tool", async () => {
    const error = await caught(createLocalBackend([tool("a")]).toolHandler("missing"));
    expect(error.data).toEqual({ type: "unknown_tool", name: "missing" });
  });

  test("collects carried state in name order, skipping tools without any", async () => {
    const backend = createLocalBackend([tool("zeta", "z"), tool("none"), tool("alpha", "a")]);
    expect(await backend.carriedState?.()).toEqual([
      { label: "alpha", body: "a" },
      { label: "zeta", body: "z" },
    ]);
  });

  test("reads carried state at call time, so it is always current", async () => {
    let body = "v1";
    const live = defineTool({
      name: "live",
      description: "d",
      input: v.object({}),
      carriedState: () => ({ label: "live", body }),
      call: () => "",
    }) as Tool;
    const backend = createLocalBackend([live]);
    body = "v2";
    expect(await backend.carriedState?.()).toEqual([{ label: "live", body: "v2" }]);
  });

  test.each([
    [
      "throws",
      () => {
        throw new Error("disk gone");
      },
      "broken carriedState(): threw disk gone",
    ],
    ["returns no label", () => ({ body: "x" }), "broken carriedState(): must return"],
    ["returns a promise", async () => ({ label: "l", body: "b" }), "broken carriedState(): must"],
  ])("fails with invalid_output naming the tool when carriedState %s", async (_l, read, text) => {
    const broken = defineTool({
      name: "broken",
      description: "d",
      input: v.object({}),
      carriedState: read as never,
      call: () => "x",
    }) as Tool;
    const error = await caught(createLocalBackend([tool("fine", "ok"), broken]).carriedState());
    expect(error.type).toBe("invalid_output");
    expect(error.message).toContain(text);
  });

  test("treats a carriedState of null like undefined: nothing to carry", async () => {
    const none = defineTool({
      name: "none",
      description: "d",
      input: v.object({}),
      carriedState: () => null as never,
      call: () => "x",
    }) as Tool;
    expect(await createLocalBackend([none]).carriedState()).toEqual([]);
  });
});
