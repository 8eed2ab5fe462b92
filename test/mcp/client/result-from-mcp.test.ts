import { describe, expect, it } from "vitest";
import { resultFromMcp } from "../../../src/mcp/client/result-from-mcp.ts";
import { caught } from "../../support/caught.ts";

describe("resultFromMcp", () => {
  it("maps every content block kind, keeping block and result metadata", () => {
    const content = [
      { type: "text", text: "t", _meta: { k: 1 } },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "audio", data: "aGk=", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///a", name: "a.txt", mimeType: "text/plain" },
      { type: "resource", resource: { uri: "file:///b", text: "body" } },
      { type: "hologram", beams: 3 },
    ];
    expect(resultFromMcp({ content, _meta: { r: 1 } }, "all")).toEqual({
      content: [
        { type: "text", text: "t", metadata: { k: 1 } },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "audio", data: "aGk=", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a", title: "a.txt", mimeType: "text/plain" },
        { type: "embedded_resource", resource: { uri: "file:///b", text: "body" } },
        { type: "json", value: { type: "hologram", beams: 3 } },
      ],
      isError: false,
      metadata: { r: 1 },
    });
  });

  it("synthesises content for an empty list from structuredContent, else empty text", () => {
    expect(resultFromMcp({ content: [], structuredContent: { n: 1 } }, "t")).toEqual({
      content: [{ type: "json", value: { n: 1 } }],
      structuredContent: { n: 1 },
      isError: false,
    });
    expect(resultFromMcp({ content: [], isError: true }, "t")).toEqual({
      content: [{ type: "text", text: "" }],
      isError: true,
    });
  });

  it("refuses a malformed result or block as protocol, naming where", async () => {
    const bad = [
      {},
      { content: [], isError: "yes" },
      { content: [{ text: "no type" }] },
      { content: [{ type: "text" }] },
      { content: [{ type: "image", data: "x" }] },
      { content: [{ type: "resource", resource: {} }] },
    ];
    for (const value of bad) {
      const error = await caught(() => resultFromMcp(value, "tool"));
      expect(error.type, JSON.stringify(value)).toBe("protocol");
      expect(error.message).toContain("tool");
    }
  });
});
