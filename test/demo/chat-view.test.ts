import { describe, expect, it } from "vitest";
import { reasonText } from "../../demo/ui/chat-view.ts";

describe("reasonText", () => {
  it("says each compaction reason in plain words", () => {
    expect(reasonText("predicted")).toBe("the next turn would pass the threshold");
    expect(reasonText("manual")).toBe("you pressed Compact now");
  });

  it("keeps a reason it does not know as the agent named it", () => {
    expect(reasonText("something_new")).toBe("something_new");
  });
});
