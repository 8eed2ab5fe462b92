import { describe, expect, test } from "vitest";
import { toolContentText } from "../../src/models/tool-content-text.ts";

describe("toolContentText", () => {
  test("renders every content kind as text", () => {
    expect(toolContentText({ type: "text", text: "t" })).toBe("t");
    expect(toolContentText({ type: "json", value: { a: 1 } })).toBe('{"a":1}');
    expect(toolContentText({ type: "json", value: undefined })).toBe("null");
    expect(toolContentText({ type: "image", mimeType: "image/png", data: "A" })).toBe(
      "[image: image/png]",
    );
    expect(toolContentText({ type: "audio", mimeType: "audio/wav", data: "A" })).toBe(
      "[audio: audio/wav]",
    );
    expect(toolContentText({ type: "resource_link", uri: "file:///a" })).toBe("file:///a");
    expect(toolContentText({ type: "resource_link", uri: "file:///a", title: "A" })).toBe(
      "A <file:///a>",
    );
    expect(
      toolContentText({ type: "embedded_resource", resource: { uri: "u", text: "body" } }),
    ).toBe("body");
    expect(
      toolContentText({
        type: "embedded_resource",
        resource: { uri: "u", mimeType: "x/y", blob: "B" },
      }),
    ).toBe("[resource: u (x/y)]");
  });
});
