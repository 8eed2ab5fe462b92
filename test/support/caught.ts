import { isToolError, type ToolError } from "../../src/index.ts";

/**
 * Returns the `ToolError` an operation fails with, failing the test when it succeeds or throws
 * anything else (an untyped throw).
 *
 * @param run The operation, or its promise.
 * @returns The error.
 */
export async function caught(run: Promise<unknown> | (() => unknown)): Promise<ToolError> {
  let error: unknown;
  try {
    await (typeof run === "function" ? run() : run);
  } catch (e) {
    error = e;
  }
  if (error === undefined) throw new Error("expected a ToolError, but the operation succeeded");
  if (!isToolError(error)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
}

/**
 * Returns the `ToolError` a synchronous operation throws, failing the test when it returns or
 * throws anything else.
 *
 * @param run The operation.
 * @returns The error.
 */
export function thrown(run: () => unknown): ToolError {
  let error: unknown;
  try {
    run();
  } catch (e) {
    error = e;
  }
  if (error === undefined) throw new Error("expected a ToolError, but the operation returned");
  if (!isToolError(error)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
}
