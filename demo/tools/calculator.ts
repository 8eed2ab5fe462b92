import * as v from "valibot";
import { defineTool, type Tool, ToolResult } from "../../src/index.ts";
import { evaluateArithmetic } from "./arithmetic.ts";

/**
 * Creates the read-only `calculator` tool: it evaluates an arithmetic expression (no `eval`).
 *
 * @returns The tool.
 */
export function calculatorTool(): Tool {
  return defineTool({
    name: "calculator",
    title: "Calculator",
    description:
      "Evaluates an arithmetic expression with + - * / % ^ and parentheses, e.g. `2 + 3 * 4`.",
    readOnly: true,
    input: v.object({ expression: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) }),
    call: ({ expression }) => {
      const value = evaluateArithmetic(expression);
      return ToolResult.text(`${expression.trim()} = ${formatNumber(value)}`);
    },
  });
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(12)));
}
