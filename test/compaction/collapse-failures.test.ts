import { describe, expect, test } from "vitest";
import { collapseFailures } from "../../src/compaction/collapse-failures.ts";
import { REFUSAL_PREFIXES } from "../../src/compaction/result-markers.ts";
import { toolUseIndex } from "../../src/compaction/tool-use-index.ts";
import type { Message } from "../../src/models/message.ts";
import { allResults, assistant, call, err, ok, results, textOf, user } from "./fixtures.ts";

function collapse(messages: Message[]) {
  return collapseFailures(messages, toolUseIndex(messages));
}

function failing(
  texts: string[],
  input: (i: number) => unknown = () => ({ path: "a" }),
): Message[] {
  const messages: Message[] = [user("task")];
  texts.forEach((text, i) => {
    messages.push(assistant(undefined, call(`${i}`, "run", input(i))), results(err(`${i}`, text)));
  });
  return messages;
}

describe("collapseFailures", () => {
  test("keeps the newest of identical failures on one target", () => {
    const out = collapse(failing(["ENOENT ", " ENOENT", "ENOENT"])) ?? [];
    const texts = allResults(out).map(textOf);
    expect(texts.slice(0, 2)).toEqual([
      "[repeated failure: the same error recurs in a later result]",
      "[repeated failure: the same error recurs in a later result]",
    ]);
    expect(texts[2]).toBe("ENOENT");
    expect(allResults(out).every((r) => r.isError)).toBe(true);
  });

  test("keeps a different error on the same target, and the same error on another target", () => {
    const messages = failing(["E1", "E2", "E1"], (i) => ({ path: i === 2 ? "b" : "a" }));
    expect(collapse(messages)).toBeUndefined();
  });

  test.each(REFUSAL_PREFIXES)("never collapses refusals starting %s", (prefix) => {
    const text = `${prefix} no`;
    expect(collapse(failing([text, text, text]))).toBeUndefined();
  });

  test("leaves successful results alone", () => {
    const messages = [
      user("task"),
      assistant(undefined, call("1", "x", {})),
      results(ok("1", "same")),
      assistant(undefined, call("2", "x", {})),
      results(ok("2", "same")),
    ];
    expect(collapse(messages)).toBeUndefined();
  });

  test("changes nothing on a second run", () => {
    const once = collapse(failing(["E", "E", "F", "E"])) ?? [];
    expect(collapse(once)).toBeUndefined();
  });
});
