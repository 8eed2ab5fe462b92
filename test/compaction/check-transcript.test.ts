import { describe, expect, test } from "vitest";
import { checkTranscript } from "../../src/compaction/check-transcript.ts";
import { assistant, call, ok, results, user } from "./fixtures.ts";

describe("checkTranscript", () => {
  test("accepts a valid transcript, including one ending mid-call", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "a", {})),
      results(ok("1", "r")),
      assistant(undefined, call("2", "a", {})),
    ];
    expect(checkTranscript(messages)).toBeUndefined();
    expect(checkTranscript([])).toBeUndefined();
  });

  test("rejects an orphaned tool result", () => {
    expect(checkTranscript([user("task"), assistant("x"), results(ok("9", "r"))])).toMatch(
      /tool_result for "9" with no earlier tool_use/,
    );
  });

  test("rejects a call whose result never arrives", () => {
    const messages = [user("task"), assistant(undefined, call("1", "a", {})), user("next")];
    expect(checkTranscript(messages)).toMatch(/tool_use "1" .* has no result/);
  });

  test("rejects two user messages in a row and a head that is not a user message", () => {
    expect(checkTranscript([user("a"), user("b")])).toMatch(/both user messages/);
    expect(checkTranscript([assistant("a")])).toMatch(/message 0/);
  });
});
