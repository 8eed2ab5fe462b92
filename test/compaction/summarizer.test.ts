import { describe, expect, test } from "vitest";
import { renderTranscript } from "../../src/compaction/summarizer.ts";
import type { Message } from "../../src/models/message.ts";
import { assistant, call, err, ok, results, user } from "./fixtures.ts";

describe("renderTranscript", () => {
  test("tags each block by role and kind", () => {
    const messages: Message[] = [
      user("do X"),
      assistant("looking", call("1", "read_file", { path: "a.ts" })),
      results(ok("1", "contents"), "and hurry"),
      assistant(undefined, call("2", "run", { cmd: "ls" })),
      results(err("2", "boom")),
    ];
    expect(renderTranscript(messages)).toBe(
      [
        "[user] do X",
        "[assistant] looking",
        '[assistant calls read_file] {"path":"a.ts"}',
        "[tool result] contents",
        "[user] and hurry",
        '[assistant calls run] {"cmd":"ls"}',
        "[tool error] boom",
      ].join("\n"),
    );
  });

  test("clips results to 2,000 characters and names the omitted count", () => {
    const text = renderTranscript([results(ok("1", "z".repeat(2500)))]);
    expect(text).toBe(`[tool result] ${"z".repeat(2000)}… [500 characters omitted]`);
  });

  test("renders images as a placeholder and non-text result items as text", () => {
    const messages: Message[] = [
      { role: "user", content: [{ type: "image", mimeType: "image/png", data: "AAAA" }] },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "1",
            isError: false,
            content: [
              { type: "json", value: { a: 1 } },
              { type: "image", mimeType: "image/jpeg", data: "////" },
            ],
          },
        ],
      },
    ];
    expect(renderTranscript(messages)).toBe(
      '[user] [image: image/png, 3 bytes]\n[tool result] {"a":1}\n[image: image/jpeg]',
    );
  });
});
