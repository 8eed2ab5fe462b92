import { describe, expect, test } from "vitest";
import { createCompactRequest } from "../../src/compaction/compact-request.ts";
import { Toolset } from "../../src/toolset/toolset.ts";

describe("createCompactRequest", () => {
  test("gives a read-only `compact` tool whose call sets a flag consumed once", async () => {
    const request = createCompactRequest();
    expect(request.tool.name).toBe("compact");
    expect(request.tool.readOnly).toBe(true);
    expect(request.tool.info.description).toMatch(
      /^Ask for the transcript to be compacted before the next turn/,
    );
    expect(request.requested).toBe(false);
    expect(request.consume()).toBe(false);
    const result = await Toolset.local([request.tool]).call("compact", {});
    expect(result.isError).toBe(false);
    expect(request.requested).toBe(true);
    expect(request.consume()).toBe(true);
    expect(request.consume()).toBe(false);
  });
});
