import { describe, expect, it } from "vitest";
import { toolFromMcp } from "../../../src/mcp/client/tool-from-mcp.ts";
import { caught } from "../../support/caught.ts";

const entry = (extra: Record<string, unknown> = {}) => ({
  name: "search",
  inputSchema: { type: "object" },
  ...extra,
});

describe("toolFromMcp", () => {
  it("namespaces the name but keeps the native one for calls", () => {
    const tool = toolFromMcp(entry(), { namespace: "repo", formInteractions: false });
    expect(tool.info.name).toBe("repo__search");
    expect(tool.nativeName).toBe("search");
  });

  it("maps annotations to capabilities, keeping only well-typed hints", () => {
    const open = toolFromMcp(
      entry({ annotations: { readOnlyHint: true, openWorldHint: true, title: "S" } }),
      { formInteractions: false },
    );
    expect(open.info.annotations).toEqual({ readOnlyHint: true, openWorldHint: true, title: "S" });
    expect(open.info.capabilities).toMatchObject({ untrustedInput: true, externalSend: true });
    const unknown = toolFromMcp(
      entry({ annotations: { readOnlyHint: "yes", destructiveHint: 1 } }),
      {
        formInteractions: false,
      },
    );
    expect(unknown.info.annotations).toEqual({});
    // Ill-typed hints count as missing, so MCP's defaults apply: destructive, open world.
    expect(unknown.info.capabilities).toMatchObject({ destructive: true, externalSend: true });
  });

  it("keeps title, description, output schema, valid icons and _meta", () => {
    const tool = toolFromMcp(
      entry({
        title: "Search",
        description: "Finds",
        outputSchema: { type: "object" },
        icons: [{ src: "a.png", sizes: ["16x16"] }, { src: 3 }, "x"],
        _meta: { k: 1 },
      }),
      { formInteractions: true },
    );
    expect(tool.info).toMatchObject({
      title: "Search",
      description: "Finds",
      icons: [{ src: "a.png", sizes: ["16x16"] }],
      metadata: { k: 1 },
    });
    expect(tool.info.outputSchema?.schema).toEqual({ type: "object" });
    expect(tool.info.interactions.form).toBe(true);
  });

  it("refuses entries that are not MCP tools, and names that cannot be tool names", async () => {
    const options = { formInteractions: false };
    expect((await caught(() => toolFromMcp({ inputSchema: {} }, options))).type).toBe("protocol");
    expect((await caught(() => toolFromMcp({ name: "a" }, options))).type).toBe("protocol");
    expect((await caught(() => toolFromMcp(entry({ outputSchema: "x" }), options))).type).toBe(
      "protocol",
    );
    expect((await caught(() => toolFromMcp(entry({ name: "has space" }), options))).type).toBe(
      "invalid_configuration",
    );
  });

  it("declares sampling only when the client answers sampling requests", () => {
    const off = toolFromMcp(entry(), { formInteractions: true });
    expect(off.info.interactions).toMatchObject({ form: true, sampling: false });
    const on = toolFromMcp(entry(), { formInteractions: false, samplingInteractions: true });
    expect(on.info.interactions).toMatchObject({ form: false, sampling: true });
  });
});
