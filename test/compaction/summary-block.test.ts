import { describe, expect, test } from "vitest";
import {
  isSummaryBlock,
  SUMMARY_MARKER,
  summaryBlock,
} from "../../src/compaction/summary-block.ts";

describe("summaryBlock", () => {
  test("prefixes the trimmed summary with the stable marker", () => {
    expect(summaryBlock("  facts \n")).toEqual({ type: "text", text: `${SUMMARY_MARKER}\nfacts` });
    expect(isSummaryBlock(summaryBlock("x"))).toBe(true);
    expect(isSummaryBlock({ type: "text", text: "x" })).toBe(false);
  });
});
