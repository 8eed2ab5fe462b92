import { describe, expect, test } from "vitest";
import { isReadOnly } from "../../src/declaration/tool-info.ts";
import { fakeToolInfo } from "../support/fake-backend.ts";

describe("isReadOnly", () => {
  test("is true only when readOnlyHint is true", () => {
    const info = fakeToolInfo("lookup");
    expect(isReadOnly({ ...info, annotations: { readOnlyHint: true } })).toBe(true);
    expect(isReadOnly({ ...info, annotations: { readOnlyHint: false } })).toBe(false);
  });

  test("treats a missing hint as a writing tool (fail closed)", () => {
    expect(isReadOnly({ ...fakeToolInfo("lookup"), annotations: {} })).toBe(false);
  });
});
