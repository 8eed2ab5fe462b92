import { describe, expect, test } from "vitest";
import { transcriptBytes } from "../../src/compaction/transcript-bytes.ts";
import type { Message } from "../../src/models/message.ts";
import { user } from "./fixtures.ts";

describe("transcriptBytes", () => {
  test("counts the UTF-8 size of the JSON", () => {
    const messages = [user("é😀")];
    const json = `[${JSON.stringify(messages[0])}]`;
    expect(transcriptBytes(messages)).toBe(new TextEncoder().encode(json).length);
    const two = [user("a"), user("b")];
    expect(transcriptBytes(two)).toBe(JSON.stringify(two).length);
    expect(transcriptBytes([])).toBe(2);
  });

  test("leaves image and audio payloads out", () => {
    const withImage: Message[] = [
      {
        role: "user",
        content: [{ type: "image", mimeType: "image/png", data: "A".repeat(10_000) }],
      },
    ];
    const withoutPayload: Message[] = [
      { role: "user", content: [{ type: "image", mimeType: "image/png", data: "" }] },
    ];
    expect(transcriptBytes(withImage)).toBe(transcriptBytes(withoutPayload));
  });
});
