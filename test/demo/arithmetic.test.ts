import { describe, expect, it } from "vitest";
import { evaluateArithmetic } from "../../demo/tools/arithmetic.ts";

describe("evaluateArithmetic", () => {
  it("applies the usual precedence", () => {
    expect(evaluateArithmetic("2+3*4")).toBe(14);
    expect(evaluateArithmetic("(2 + 3) * 4")).toBe(20);
    expect(evaluateArithmetic("2 ^ 3 ^ 2")).toBe(512);
    expect(evaluateArithmetic("-2 ^ 2")).toBe(-4);
    expect(evaluateArithmetic("7 % 4 + 1.5")).toBe(4.5);
    expect(evaluateArithmetic("12 ÷ 4 × 2")).toBe(6);
  });

  it("rejects malformed input and division by zero", () => {
    expect(() => evaluateArithmetic("2 +")).toThrow(/ends too early/);
    expect(() => evaluateArithmetic("(1 + 2")).toThrow(/closing parenthesis/);
    expect(() => evaluateArithmetic("1 / 0")).toThrow(/division by zero/);
    expect(() => evaluateArithmetic("alert(1)")).toThrow(/unexpected/);
    expect(() => evaluateArithmetic("  ")).toThrow(/empty/);
  });
});
