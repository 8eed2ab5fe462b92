import { describe, expect, test } from "vitest";
import { callOutcome, errorOutcome, failureText } from "../../src/agent/call-outcome.ts";
import { ToolError } from "../../src/index.ts";

const call = { id: "c1", name: "fetch_page", arguments: { url: "x" } };

describe("callOutcome", () => {
  test("answers the call by its id with the content and error flag as given", () => {
    const content = [{ type: "json" as const, value: { ok: true } }];
    expect(callOutcome(call, content, false, "executed")).toEqual({
      block: { type: "tool_result", toolUseId: "c1", content, isError: false },
      outcome: "executed",
    });
  });
});

describe("errorOutcome", () => {
  test("carries one text item and is always an error", () => {
    expect(errorOutcome(call, "Denied by the user: no", "refused")).toEqual({
      block: {
        type: "tool_result",
        toolUseId: "c1",
        content: [{ type: "text", text: "Denied by the user: no" }],
        isError: true,
      },
      outcome: "refused",
    });
  });
});

describe("failureText", () => {
  test("names the tool and lists each validation issue on its own line", () => {
    const error = new ToolError({
      type: "invalid_arguments",
      tool: "fetch_page",
      message: "the arguments do not match the schema",
      issues: [
        { path: "/url", message: "must be a URL" },
        { path: "", message: "unexpected key" },
      ],
    });
    expect(failureText("fetch_page", error)).toBe(
      `Tool \`fetch_page\` failed: ${error.message}\n- /url: must be a URL\n- /: unexpected key`,
    );
  });

  test("uses the message of a foreign error, and the text of a thrown non-error", () => {
    expect(failureText("t", new TypeError("boom"))).toBe("Tool `t` failed: boom");
    expect(failureText("t", "plain")).toBe("Tool `t` failed: plain");
    expect(failureText("t", 42)).toBe("Tool `t` failed: 42");
  });
});
