import { describe, expect, test } from "vitest";
import { Toolset } from "../../src/index.ts";
import { connectWebMcp, registerWebMcpTools } from "../../src/web/index.ts";
import { caught } from "../support/caught.ts";
import { FakeModelContext } from "../support/fake-model-context.ts";

// design.md "WebMCP", W14: no model context, a clear `unsupported`.

describe("finding the model context", () => {
  test("without WebMCP both directions reject with unsupported naming the flag", async () => {
    const signal = new AbortController().signal;
    for (const attempt of [connectWebMcp(), registerWebMcpTools(Toolset.local([]), { signal })]) {
      const error = await caught(attempt);
      expect(error.type).toBe("unsupported");
      expect(error.message).toContain("--enable-features=WebMCP");
      expect(error.message).toContain("origin trial");
    }
  });

  test("document.modelContext is used first, then navigator.modelContext", async () => {
    const scope = globalThis as { document?: unknown };
    const onDocument = new FakeModelContext();
    const onNavigator = new FakeModelContext();
    await onDocument.registerTool({ name: "doc", description: "d", execute: async () => "" });
    await onNavigator.registerTool({ name: "nav", description: "n", execute: async () => "" });
    const navigator = Object.getOwnPropertyDescriptor(globalThis, "navigator");
    Object.defineProperty(globalThis, "navigator", {
      value: { modelContext: onNavigator },
      configurable: true,
    });
    try {
      expect((await (await connectWebMcp()).listTools()).map((t) => t.name)).toEqual(["nav"]);
      scope.document = { modelContext: onDocument };
      expect((await (await connectWebMcp()).listTools()).map((t) => t.name)).toEqual(["doc"]);
    } finally {
      delete scope.document;
      if (navigator) Object.defineProperty(globalThis, "navigator", navigator);
    }
  });

  test("a model context that only registers cannot be connected to", async () => {
    const registerOnly = { registerTool: async () => {} };
    const error = await caught(connectWebMcp({ modelContext: registerOnly }));
    expect(error.type).toBe("unsupported");
    expect(error.message).toContain("getTools and executeTool");
  });
});
