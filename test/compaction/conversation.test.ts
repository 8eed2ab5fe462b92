import { describe, expect, test } from "vitest";
import { emptyConversation } from "../../src/compaction/conversation.ts";

describe("emptyConversation", () => {
  test("has no messages, no taint and no rewrites, and is fresh each time", () => {
    const a = emptyConversation();
    expect(a).toEqual({ messages: [], taint: { private: false, untrusted: false }, rewritten: [] });
    expect(emptyConversation().taint).not.toBe(a.taint);
  });
});
