import { describe, expect, test } from "vitest";
import {
  isToolError,
  TOOL_ERROR_TYPES,
  ToolError,
  type ToolErrorData,
  unreachable,
} from "../src/errors.ts";

// One sample of every kind, with every field (optional ones included somewhere).
const samples: ToolErrorData[] = [
  { type: "invalid_configuration", message: "bad namespace" },
  { type: "unknown_tool", name: "missing" },
  { type: "duplicate_name", name: "echo" },
  {
    type: "invalid_arguments",
    tool: "add",
    message: "/a: expected number",
    issues: [
      { path: "/a", message: "expected number", keyword: "number" },
      { path: "", message: "too many keys" },
    ],
  },
  { type: "invalid_output", message: "no structuredContent", issues: [] },
  { type: "invalid_interaction", id: "i-1", message: "wrong id" },
  { type: "undeclared_interaction", tool: "ask", kind: "form" },
  { type: "interaction_declined", tool: "ask", reason: "not now" },
  { type: "cancelled", tool: "slow" },
  { type: "transport", tool: "remote", message: "connection reset" },
  { type: "protocol", message: "bad JSON-RPC" },
  { type: "timeout", tool: "remote", timeoutMs: 30_000 },
  { type: "unsupported", operation: "a second invoke" },
  { type: "closed", operation: "listTools" },
  {
    type: "build_cleanup",
    primary: { type: "transport", message: "connect failed" },
    cleanup: { type: "closed", operation: "close" },
  },
];

describe("ToolError", () => {
  test("the samples cover all 15 kinds", () => {
    expect(new Set(samples.map((s) => s.type))).toEqual(new Set(TOOL_ERROR_TYPES));
    expect(TOOL_ERROR_TYPES).toHaveLength(15);
  });

  test.each(samples.map((s) => [s.type, s] as const))(
    "round-trips %s through JSON.stringify and fromJSON unchanged",
    (_type, data) => {
      const error = new ToolError(data);
      const json = JSON.parse(JSON.stringify(error));
      expect(json).toEqual(data);
      const back = ToolError.fromJSON(json);
      expect(back).toBeInstanceOf(ToolError);
      expect(back.type).toBe(data.type);
      expect(back.message).toBe(error.message);
      expect(back.toJSON()).toEqual(error.toJSON());
      expect(back.data).toEqual(data);
    },
  );

  test("serialises exactly the kind's fields with a snake_case type", () => {
    const error = new ToolError({ type: "timeout", tool: "remote", timeoutMs: 5000 });
    expect(Object.keys(error.toJSON()).sort()).toEqual(["timeoutMs", "tool", "type"]);
    expect(JSON.stringify(error)).toBe('{"type":"timeout","tool":"remote","timeoutMs":5000}');
  });

  test("exposes the kind's fields on the error itself", () => {
    const error = new ToolError({ type: "undeclared_interaction", tool: "ask", kind: "text" });
    expect(error.tool).toBe("ask");
    expect(error.kind).toBe("text");
    expect(error.name).toBe("ToolError");
    expect(error).toBeInstanceOf(Error);
  });

  test("keeps name and message of unknown_tool in data rather than overwriting Error fields", () => {
    const error = new ToolError({ type: "unknown_tool", name: "missing" });
    expect(error.name).toBe("ToolError");
    expect(error.message).toBe("tool `missing` was not found");
    expect(error.data).toEqual({ type: "unknown_tool", name: "missing" });
  });

  test("nests two errors in build_cleanup, accepting instances", () => {
    const primary = new ToolError({ type: "transport", message: "connect failed" });
    const error = new ToolError({
      type: "build_cleanup",
      primary,
      cleanup: { type: "timeout", tool: "remote", timeoutMs: 5000 },
    });
    expect(error.primary).toBe(primary);
    expect(isToolError(error.cleanup, "timeout")).toBe(true);
    expect(error.toJSON()).toEqual({
      type: "build_cleanup",
      primary: { type: "transport", message: "connect failed" },
      cleanup: { type: "timeout", tool: "remote", timeoutMs: 5000 },
    });
    expect(error.message).toContain("cleanup also failed");
  });

  test("keeps cause for debugging but never serialises it", () => {
    const cause = new Error("socket");
    const error = new ToolError({ type: "transport", message: "down" }, { cause });
    expect(error.cause).toBe(cause);
    expect(JSON.stringify(error)).not.toContain("socket");
  });

  test("toJSON returns a copy the caller cannot use to change the error", () => {
    const error = new ToolError({ type: "invalid_output", message: "m", issues: [] });
    const json = error.toJSON() as { issues: unknown[] };
    json.issues.push({ path: "", message: "x" });
    expect(error.toJSON()).toEqual({ type: "invalid_output", message: "m", issues: [] });
  });
});

describe("ToolError.fromJSON", () => {
  test.each([
    ["null", null],
    ["a string", "closed"],
    ["an array", []],
    ["an unknown type", { type: "nope" }],
    ["a prototype key as type", { type: "toString" }],
    ["a missing type", { name: "x" }],
    ["a missing field", { type: "unknown_tool" }],
    ["a field of the wrong type", { type: "unknown_tool", name: 1 }],
    ["an unknown field", { type: "unknown_tool", name: "x", extra: true }],
    ["a wrong optional field", { type: "cancelled", tool: "t", reason: 3 }],
    ["a wrong number field", { type: "timeout", tool: "t", timeoutMs: "5" }],
    ["issues that are not an array", { type: "invalid_output", message: "m", issues: "x" }],
    [
      "an issue without a path",
      { type: "invalid_output", message: "m", issues: [{ message: "x" }] },
    ],
    ["a null issue", { type: "invalid_output", message: "m", issues: [null] }],
    [
      "a malformed nested error",
      {
        type: "build_cleanup",
        primary: { type: "nope" },
        cleanup: { type: "closed", operation: "x" },
      },
    ],
  ])("rejects %s with protocol", (_label, value) => {
    let error: unknown;
    try {
      ToolError.fromJSON(value);
    } catch (e) {
      error = e;
    }
    expect(isToolError(error, "protocol")).toBe(true);
  });

  test("drops an issue's keyword only when it is not a string", () => {
    const error = ToolError.fromJSON({
      type: "invalid_output",
      message: "m",
      issues: [{ path: "/a", message: "x", keyword: 7 }],
    });
    expect(error.issues).toEqual([{ path: "/a", message: "x" }]);
  });
});

describe("isToolError", () => {
  test("recognises a ToolError and checks its kind", () => {
    const error = new ToolError({ type: "closed", operation: "step" });
    expect(isToolError(error)).toBe(true);
    expect(isToolError(error, "closed")).toBe(true);
    expect(isToolError(error, "cancelled")).toBe(false);
  });

  test("rejects plain errors and look-alikes without the brand", () => {
    expect(isToolError(new Error("closed"))).toBe(false);
    expect(isToolError({ type: "closed", operation: "x" })).toBe(false);
    expect(isToolError(null)).toBe(false);
    expect(isToolError("closed")).toBe(false);
  });

  test("recognises an error made by a second copy of the module", async () => {
    // The query string makes the module runner load errors.ts again as a separate module.
    const specifier = "../src/errors.ts?second-copy";
    const copy = (await import(/* @vite-ignore */ specifier)) as typeof import("../src/errors.ts");
    expect(copy.ToolError).not.toBe(ToolError);
    const foreign = new copy.ToolError({ type: "cancelled", tool: "t" });
    expect(foreign instanceof ToolError).toBe(false);
    expect(isToolError(foreign, "cancelled")).toBe(true);
    expect(copy.isToolError(new ToolError({ type: "closed", operation: "x" }), "closed")).toBe(
      true,
    );
  });

  test("recognises an object carrying the registry-wide brand", () => {
    const branded = { type: "closed", [Symbol.for("toolwire.ToolError")]: true };
    expect(isToolError(branded, "closed")).toBe(true);
  });
});

describe("unreachable", () => {
  test("throws when a caller bypasses the types", () => {
    expect(() => unreachable("surprise" as never)).toThrow(/unreachable/);
  });
});

describe("ToolError messages and shape", () => {
  test.each([
    ["invalid_configuration", "invalid configuration: bad namespace"],
    ["unknown_tool", "tool `missing` was not found"],
    ["duplicate_name", "duplicate tool name `echo`"],
    ["invalid_arguments", "invalid tool arguments for `add`: /a: expected number"],
    ["invalid_output", "invalid tool output: no structuredContent"],
    ["invalid_interaction", "invalid interaction `i-1`: wrong id"],
    ["undeclared_interaction", "tool `ask` requested an undeclared form interaction"],
    ["interaction_declined", "interaction for `ask` was declined: not now"],
    ["cancelled", "call to `slow` was cancelled"],
    ["transport", "transport failure calling `remote`: connection reset"],
    ["protocol", "protocol error: bad JSON-RPC"],
    ["timeout", "call to `remote` timed out after 30000 ms"],
    ["unsupported", "unsupported: a second invoke"],
    ["closed", "closed: listTools after shutdown"],
    [
      "build_cleanup",
      "transport failure: connect failed; cleanup also failed: closed: close after shutdown",
    ],
  ])("words %s from its fields", (type, message) => {
    const data = samples.find((s) => s.type === type) as ToolErrorData;
    expect(new ToolError(data).message).toBe(message);
  });

  test("keeps only the kind's own fields, dropping stray keys and undefined optionals", () => {
    const error = new ToolError({
      type: "cancelled",
      tool: "t",
      reason: undefined,
      extra: "x",
    } as never);
    expect(error.toJSON()).toEqual({ type: "cancelled", tool: "t" });
    expect(Object.keys(error.toJSON())).toEqual(["type", "tool"]);
    expect(ToolError.fromJSON(JSON.parse(JSON.stringify(error))).data).toEqual(error.data);
  });

  test("refuses an unknown type with invalid_configuration", () => {
    let error: unknown;
    try {
      new ToolError({ type: "nope" } as never);
    } catch (e) {
      error = e;
    }
    expect(isToolError(error, "invalid_configuration")).toBe(true);
  });

  test("structuredClone keeps a plain Error only; toJSON and fromJSON cross realms intact", () => {
    const error = new ToolError({ type: "timeout", tool: "remote", timeoutMs: 5000 });
    const cloned = structuredClone(error) as unknown;
    expect(isToolError(cloned)).toBe(false);
    const back = ToolError.fromJSON(structuredClone(error.toJSON()));
    expect(isToolError(back, "timeout")).toBe(true);
    expect(back.message).toBe(error.message);
  });

  test("fromJSON accepts a ToolError itself and returns an equal copy", () => {
    const error = new ToolError({ type: "closed", operation: "step" }, { cause: "x" });
    const copy = ToolError.fromJSON(error);
    expect(copy).not.toBe(error);
    expect(copy.data).toEqual(error.data);
    expect(copy.cause).toBeUndefined();
  });
});
