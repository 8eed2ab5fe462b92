import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ToolError } from "../../src/errors.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { fixtureHandler } from "../mcp/server/fixture.ts";
import { caught } from "../support/caught.ts";

// A call to a name that does not exist says which one was meant, so a person (or a model,
// which reads the error as the call's result) can correct it (issue 30 point 7).
const tool = (name: string) =>
  defineTool({ name, description: name, input: v.object({}), call: () => name });
const local = Toolset.local([tool("add"), tool("subtract"), tool("search_files")]);

describe("unknown tool", () => {
  test.each([
    ["ad", "add"],
    ["Add", "add"],
    ["substract", "subtract"],
    ["search_file", "search_files"],
  ])("`%s` suggests `%s`", async (asked, meant) => {
    const error = await caught(local.call(asked, {}));
    expect(error.data).toEqual({ type: "unknown_tool", name: asked, suggestion: meant });
    expect(error.message).toBe(`tool \`${asked}\` was not found; did you mean \`${meant}\`?`);
  });

  test("suggests nothing when no name is near", async () => {
    const error = await caught(local.call("weather", {}));
    expect(error.data).toEqual({ type: "unknown_tool", name: "weather" });
    expect(error.message).toBe("tool `weather` was not found");
  });

  test("suggests across a merged toolset", async () => {
    const merged = Toolset.merge([Toolset.local([tool("files_read")]), local]);
    const error = await caught(merged.call("file_read", {}));
    expect(error.data).toMatchObject({ suggestion: "files_read" });
  });

  // Why the suggestion is made by `Toolset` and not where a backend throws: only the toolset the
  // caller holds knows the names the caller sees (namespaced ones here), and a backend of the
  // user's own gets it without doing anything.
  test("suggests the name as the caller sees it, namespace included", async () => {
    const merged = Toolset.merge([local, Toolset.local([tool("add")])], {
      namespaces: ["math", "other"],
    });
    const error = await caught(merged.call("math__ad", {}));
    expect(error.data).toEqual({ type: "unknown_tool", name: "math__ad", suggestion: "math__add" });
  });

  test("suggests for a backend of the user's own that only says the name is unknown", async () => {
    const own = Toolset.fromBackend({
      listTools: () => local.listTools(),
      toolHandler: async (name) => {
        throw new ToolError({ type: "unknown_tool", name });
      },
      shutdown: async () => {},
    });
    const error = await caught(own.call("substract", {}));
    expect(error.data).toMatchObject({ suggestion: "subtract" });
  });

  test("suggests for a remote server's tools", async () => {
    const { handler } = fixtureHandler();
    const remote = await connectMcp({ url: "http://localhost/mcp", fetch: handler.fetch });
    const error = await caught(remote.call("ech", {}));
    expect(error.data).toMatchObject({ type: "unknown_tool", suggestion: "echo" });
    await remote.shutdown();
  });
});
