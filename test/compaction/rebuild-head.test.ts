import { describe, expect, test } from "vitest";
import { CARRIED_STATE_HEADER } from "../../src/compaction/carried-block.ts";
import { rebuildHead } from "../../src/compaction/rebuild-head.ts";
import { SUMMARY_MARKER } from "../../src/compaction/summary-block.ts";
import type { Message } from "../../src/models/message.ts";

describe("rebuildHead", () => {
  test("keeps the task and earlier summaries, replaces the carried block, appends in order", () => {
    const head: Message = {
      role: "user",
      content: [
        { type: "text", text: "task" },
        { type: "image", mimeType: "image/png", data: "AA==" },
        { type: "text", text: `${SUMMARY_MARKER}\nold` },
        { type: "text", text: `${CARRIED_STATE_HEADER}\n## todo\nold state` },
      ],
    };
    const snapshot = structuredClone(head);
    const next = rebuildHead(head, "new", [{ label: "todo", body: "new state" }]);
    expect(next.content).toEqual([
      { type: "text", text: "task" },
      { type: "image", mimeType: "image/png", data: "AA==" },
      { type: "text", text: `${SUMMARY_MARKER}\nold` },
      { type: "text", text: `${SUMMARY_MARKER}\nnew` },
      { type: "text", text: `${CARRIED_STATE_HEADER}\n## todo\nnew state` },
    ]);
    expect(head).toEqual(snapshot);
  });
});
