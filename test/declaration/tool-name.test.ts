import { describe, expect, test } from "vitest";
import { namespacedName, toolName } from "../../src/declaration/tool-name.ts";
import { isToolError } from "../../src/errors.ts";

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("toolName", () => {
  test("accepts lookup_record and returns it unchanged", () => {
    expect(toolName("lookup_record")).toBe("lookup_record");
  });

  test("accepts a dotted name, as MCP 2025-11-25 allows (design.md T13)", () => {
    expect(toolName("repo.search")).toBe("repo.search");
    expect(toolName("v1.2-beta_x")).toBe("v1.2-beta_x");
  });

  test("accepts a 128-byte name of the allowed characters", () => {
    const name = `${"aZ0_-.".repeat(21)}ab`;
    expect(name).toHaveLength(128);
    expect(toolName(name)).toBe(name);
  });

  test.each([
    ["an empty name", ""],
    ["a 129-byte name", "a".repeat(129)],
    ["a name with a space", "bad name"],
    ["a name with a slash", "a/b"],
    ["a name with a colon", "a:b"],
    ["a non-ASCII name", "café"],
  ])("rejects %s with invalid_configuration", (_label, value) => {
    expect(
      isToolError(
        failure(() => toolName(value)),
        "invalid_configuration",
      ),
    ).toBe(true);
  });

  test("rejects a value that is not a string with invalid_configuration", () => {
    expect(
      isToolError(
        failure(() => toolName(42 as never)),
        "invalid_configuration",
      ),
    ).toBe(true);
  });
});

describe("namespacedName", () => {
  test("namespaces a dotted name", () => {
    expect(namespacedName("gh", "repo.search")).toBe("gh__repo.search");
  });

  test("joins namespace and name with a double underscore", () => {
    expect(namespacedName("repo", "echo")).toBe("repo__echo");
  });

  test("rejects a bad namespace with invalid_configuration", () => {
    expect(
      isToolError(
        failure(() => namespacedName("bad ns", "echo")),
        "invalid_configuration",
      ),
    ).toBe(true);
  });

  test("rejects a result longer than 128 bytes with invalid_configuration", () => {
    const error = failure(() => namespacedName("n".repeat(100), "t".repeat(27)));
    expect(isToolError(error, "invalid_configuration")).toBe(true);
  });
});
