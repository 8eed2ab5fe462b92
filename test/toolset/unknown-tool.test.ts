import * as v from "valibot";
import { describe, expect, test } from "vitest";
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

  test("suggests for a remote server's tools", async () => {
    const { handler } = fixtureHandler();
    const remote = await connectMcp({ url: "http://localhost/mcp", fetch: handler.fetch });
    const error = await caught(remote.call("ech", {}));
    expect(error.data).toMatchObject({ type: "unknown_tool", suggestion: "echo" });
    await remote.shutdown();
  });
});
