// The invariants every exchange with a hostile MCP server must keep, shared by the client's
// property tests: operations settle, failures are typed, nothing rejects unhandled, shutdown
// settles once with one outcome.
import { afterAll, beforeAll, expect } from "vitest";
import { isToolError, type ToolError, type ToolResult, type Toolset } from "../../src/index.ts";
import { VALID_STRUCTURED, VALID_TEXT } from "./hostile-plan.ts";

/** The kinds `connectMcp` documents. */
export const CONNECT_ERRORS = [
  "transport",
  "protocol",
  "timeout",
  "cancelled",
  "invalid_configuration",
  "duplicate_name",
];

/** The kinds a remote call documents (the caller answers every interaction). */
export const CALL_ERRORS = [
  "transport",
  "protocol",
  "timeout",
  "invalid_arguments",
  "invalid_output",
  "cancelled",
  "closed",
  "unknown_tool",
];

// A form reply the caller submits is checked against the server's schema: a reply that
// fails it is `invalid_interaction`, a schema that cannot be read `invalid_configuration`.
/** The kinds a remote call documents when the caller submits replies. */
export const SUBMIT_ERRORS = [...CALL_ERRORS, "invalid_interaction", "invalid_configuration"];

/** The kinds `shutdown` documents. */
export const SHUTDOWN_ERRORS = ["transport"];

// A hang detector, not a timing assertion: every exchange has a deadline far below this (a
// cancel notice one second, DELETE five), so an operation still pending after it never settles.
const BOUND_MS = 8000;

/** How an operation settled. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

class Hang extends Error {}

/**
 * Returns how an operation settled, failing the test when it has not settled within the bound.
 *
 * @param label The operation, named when it hangs.
 * @param promise The operation.
 * @returns Its value or its error.
 */
export async function settle<T>(label: string, promise: Promise<T>): Promise<Outcome<T>> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Hang(`${label} did not settle`)), BOUND_MS);
  });
  try {
    return { ok: true, value: await Promise.race([promise, hang]) };
  } catch (error) {
    if (error instanceof Hang) throw error;
    return { ok: false, error };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Fails unless the error is a `ToolError` of an allowed kind with a message.
 *
 * @param error What was thrown.
 * @param allowed The documented kinds.
 * @param what The operation, for the failure message.
 */
export function expectTyped(error: unknown, allowed: readonly string[], what: string): void {
  if (!isToolError(error)) {
    throw new Error(`${what} failed untyped: ${String(error)}`, { cause: error });
  }
  expect(allowed, `${what}: ${error.message}`).toContain(error.type);
  expect(error.message.length).toBeGreaterThan(0);
}

/**
 * Returns the operation's error, checked as `expectTyped` does; it must have failed.
 *
 * @param outcome How it settled.
 * @param allowed The documented kinds.
 * @param what The operation.
 * @returns The error.
 */
export function failure(
  outcome: Outcome<unknown>,
  allowed: readonly string[],
  what: string,
): ToolError {
  if (outcome.ok) throw new Error(`${what} succeeded; expected a ToolError`);
  expectTyped(outcome.error, allowed, what);
  return outcome.error as ToolError;
}

/**
 * Collects unhandled rejections while the calling test file runs.
 *
 * @returns A check that fails when any arrived since the file started.
 */
export function watchUnhandledRejections(): () => Promise<void> {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  beforeAll(() => void globalThis.process.on("unhandledRejection", onUnhandled));
  afterAll(() => void globalThis.process.off("unhandledRejection", onUnhandled));
  return async () => {
    // Node reports an unhandled rejection once the microtask queue drains; two macrotask
    // turns are enough for it to fire.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(unhandled.map(String)).toEqual([]);
  };
}

/**
 * Shuts the toolset down twice: both settle, with the same outcome, and at most one DELETE.
 *
 * @param toolset The toolset.
 * @param deletes How many DELETE requests the server saw so far.
 */
export async function expectShutdownOnce(toolset: Toolset, deletes: () => number): Promise<void> {
  const first = await settle("shutdown", toolset.shutdown());
  const second = await settle("second shutdown", toolset.shutdown());
  if (first.ok) expect(second.ok).toBe(true);
  else {
    expectTyped(first.error, SHUTDOWN_ERRORS, "shutdown");
    expect(second.ok ? undefined : second.error).toBe(first.error);
  }
  expect(deletes()).toBeLessThanOrEqual(1);
}

/**
 * Fails unless the result is the fake's valid answer for the tool.
 *
 * @param result The result.
 * @param tool `shaped` (with structured content) or another tool.
 */
export function expectGoodResult(result: ToolResult, tool: string): void {
  expect(result.isError).toBe(false);
  expect(result.content[0]).toEqual({ type: "text", text: VALID_TEXT });
  if (tool === "shaped") expect(result.structuredContent).toEqual(VALID_STRUCTURED);
}
