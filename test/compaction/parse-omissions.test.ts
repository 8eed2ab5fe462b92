import { describe, expect, test } from "vitest";
import { parseOmissions } from "../../src/compaction/parse-omissions.ts";

describe("parseOmissions", () => {
  test.each(["NONE", "none", "- None.", "**NONE**", "Checked.\n  `none`  \n"])(
    "reads a whole NONE line (%j) as complete",
    (reply) => expect(parseOmissions(reply)).toEqual({ type: "complete" }),
  );

  test("counts a line that merely contains none as a finding", () => {
    expect(parseOmissions("none of the paths\n2. the step number")).toEqual({
      type: "omissions",
      omissions: ["none of the paths", "the step number"],
    });
  });

  test("gives no verdict for an empty reply", () => {
    expect(parseOmissions(" \n\n")).toEqual({ type: "unusable" });
  });
});
