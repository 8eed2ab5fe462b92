// The invariants every exchange with a hostile MCP server must keep, shared by the client's
// property tests: operations settle, failures are typed, nothing rejects unhandled, shutdown
// settles once with one outcome.
import { afterAll, beforeAll, expect, vi } from "vitest";
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
 * Under fake timers (see `useVirtualTime`) the clock only moves when nothing else can run: the
 * pending real work (in-memory fetches, streams) is drained first, then the next timer fires.
 * So a deadline never races the work it bounds, and a failing seed replays the same way.
 */
export async function settle<T>(label: string, promise: Promise<T>): Promise<Outcome<T>> {
  let outcome: Outcome<T> | undefined;
  const settled = promise.then(
    (value) => {
      outcome = { ok: true, value };
    },
    (error: unknown) => {
      outcome = { ok: false, error };
    },
  );
  if (!vi.isFakeTimers()) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const hang = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Hang(`${label} did not settle`)), BOUND_MS);
    });
    try {
      await Promise.race([settled, hang]);
    } finally {
      clearTimeout(timer);
    }
    return outcome as Outcome<T>;
  }
  const start = Date.now();
  while (outcome === undefined) {
    await drain();
    if (outcome !== undefined) break;
    if (vi.getTimerCount() === 0 || Date.now() - start > BOUND_MS) {
      throw new Hang(`${label} did not settle`);
    }
    await vi.advanceTimersToNextTimerAsync();
  }
  return outcome;
}

/**
 * Fakes the clock for the calling test file: timers and `Date` are virtual, `setImmediate`
 * stays real so `settle` can let in-memory I/O finish before it moves the clock.
 */
export function useVirtualTime(): void {
  beforeAll(() => {
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"],
    });
  });
  afterAll(() => {
    vi.useRealTimers();
  });
}

// Lets every real macrotask queued by in-memory work run (a few turns, since one may queue
// the next).
async function drain(): Promise<void> {
  for (let turn = 0; turn < 8; turn++) await new Promise((resolve) => setImmediate(resolve));
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
    // turns are enough for it to fire (`setImmediate`: real under `useVirtualTime` too).
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
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
