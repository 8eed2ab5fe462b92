import { describe, expect, test } from "vitest";
import {
  CARRIED_STATE_HEADER,
  carriedBlockText,
  isCarriedBlock,
} from "../../src/compaction/carried-block.ts";

describe("carriedBlockText", () => {
  test("is the header then `## label` and the verbatim body of each state", () => {
    expect(
      carriedBlockText([
        { label: "todo", body: "1/2 \n" },
        { label: "skill", body: "s" },
      ]),
    ).toBe(`${CARRIED_STATE_HEADER}\n## todo\n1/2 \n\n\n## skill\ns`);
  });

  test("is undefined with no state", () => {
    expect(carriedBlockText([])).toBeUndefined();
  });
});

describe("isCarriedBlock", () => {
  test("recognises the block by its header, ignoring leading whitespace", () => {
    expect(isCarriedBlock({ type: "text", text: `\n ${CARRIED_STATE_HEADER}\n## x` })).toBe(true);
    expect(isCarriedBlock({ type: "text", text: "## todo" })).toBe(false);
  });
});
