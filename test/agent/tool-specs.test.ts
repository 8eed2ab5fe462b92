import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { listToolCatalog } from "../../src/agent/tool-specs.ts";
import { defineTool, Toolset } from "../../src/index.ts";

const tool = (name: string, description: string) =>
  defineTool({ name, description, input: v.object({}), call: () => description });

describe("listToolCatalog", () => {
  test("lists every toolset's tools in name order, the later toolset winning a clash", async () => {
    const first = Toolset.local([tool("b", "first b"), tool("c", "c")]);
    const second = Toolset.local([tool("b", "second b"), tool("a", "a")]);
    const catalog = await listToolCatalog([first, second]);
    expect(catalog.specs.map((s) => [s.name, s.description])).toEqual([
      ["a", "a"],
      ["b", "second b"],
      ["c", "c"],
    ]);
    expect(catalog.routes.get("b")?.toolset).toBe(second);
  });

  test("sends an open object schema for a tool whose schema is `true`", async () => {
    const raw = defineTool({
      name: "raw",
      description: "r",
      input: { jsonSchema: true as never },
      call: () => "",
    });
    const catalog = await listToolCatalog([Toolset.local([raw])]);
    expect(typeof catalog.specs[0]?.inputSchema).toBe("object");
  });
});
