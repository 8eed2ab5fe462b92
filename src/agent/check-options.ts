import { ToolError } from "../errors.ts";
import { Toolset } from "../toolset/toolset.ts";
import { INTERLOCK_POLICIES } from "./interlock.ts";

/**
 * Checks an `Agent`'s options, so a mistake fails at construction with a message naming the
 * option, rather than in the middle of a run, or never (a bad `keepRecent` would otherwise
 * only turn compaction off).
 *
 * Hint: the options are read as `unknown`, because they often come from JavaScript callers or
 * parsed settings that the type checker never saw.
 *
 * @param options The options given to the constructor.
 * @throws ToolError `invalid_configuration` naming the first bad option.
 */
export function checkAgentOptions(options: unknown): void {
  if (!isRecord(options)) fail(`options must be an object, got ${describe(options)}`);
  const model = options.model;
  if (!isRecord(model) || typeof model.stream !== "function") {
    fail(`model must be a Model (an object with a stream() method), got ${describe(model)}`);
  }
  if (model.contextWindow !== undefined && !isPositive(model.contextWindow)) {
    fail(`model.contextWindow must be a positive number, got ${describe(model.contextWindow)}`);
  }
  checkToolsets(options.toolsets);
  if (options.tools !== undefined && !Array.isArray(options.tools)) {
    fail(`tools must be an array of tools from defineTool, got ${describe(options.tools)}`);
  }
  optional(options, "instructions", "a string", (value) => typeof value === "string");
  optional(options, "approver", "a function", isFunction);
  optional(options, "onInteraction", "a function", isFunction);
  optional(options, "markUntrustedOutput", "a boolean", isBoolean);
  // Hint: 0 is allowed: no tool turns, only the final tool-less answer.
  optional(options, "maxTurns", "a non-negative integer", (value) => isCount(value));
  optional(
    options,
    "interlock",
    `one of ${INTERLOCK_POLICIES.map((policy) => JSON.stringify(policy)).join(", ")}`,
    (value) => (INTERLOCK_POLICIES as readonly unknown[]).includes(value),
  );
  optional(
    options,
    "concurrency",
    '"sequential", "read-only-parallel" or a positive integer',
    (value) => value === "sequential" || value === "read-only-parallel" || isCount(value, 1),
  );
  checkCompaction(options.compaction);
}

function checkToolsets(toolsets: unknown): void {
  if (toolsets === undefined) return;
  if (!Array.isArray(toolsets))
    fail(`toolsets must be an array of Toolsets, got ${describe(toolsets)}`);
  toolsets.forEach((toolset, index) => {
    if (isToolset(toolset)) return;
    fail(
      `toolsets[${index}] is not a Toolset (got ${describe(toolset)}): wrap a backend with Toolset.fromBackend, or pass local tools as tools`,
    );
  });
}

function checkCompaction(compaction: unknown): void {
  if (compaction === undefined || compaction === false) return;
  if (!isRecord(compaction)) {
    fail(`compaction must be false or an object of settings, got ${describe(compaction)}`);
  }
  const settings = { compaction };
  optional(settings, "compaction.contextWindow", "a positive number", isPositive);
  optional(settings, "compaction.thresholdTokens", "a positive number", isPositive);
  optional(settings, "compaction.keepRecent", "a non-negative integer", (value) => isCount(value));
  optional(settings, "compaction.summarizer", "a function", isFunction);
  optional(settings, "compaction.validate", "a boolean", isBoolean);
  optional(settings, "compaction.compactTool", "a boolean", isBoolean);
  optional(settings, "compaction.keepRewritten", "a boolean", isBoolean);
}

/** Fails unless the option at `path` (dotted, from `root`) is absent or passes `check`. */
function optional(
  root: Record<string, unknown>,
  path: string,
  expected: string,
  check: (value: unknown) => boolean,
): void {
  let value: unknown = root;
  for (const key of path.split(".")) value = (value as Record<string, unknown>)[key];
  if (value !== undefined && !check(value))
    fail(`${path} must be ${expected}, got ${describe(value)}`);
}

/**
 * Checks whether a value is a Toolset: this copy's class, or one from another copy of the
 * package (two installed versions) that has the methods the loop calls.
 */
function isToolset(value: unknown): boolean {
  if (value instanceof Toolset) return true;
  return (
    isRecord(value) &&
    isFunction(value.listTools) &&
    isFunction(value.call) &&
    isFunction(value.carriedState)
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isFunction(value: unknown): boolean {
  return typeof value === "function";
}

function isBoolean(value: unknown): boolean {
  return typeof value === "boolean";
}

function isPositive(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

function isCount(value: unknown, least = 0): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= least;
}

function describe(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "function") return "a function";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  return String(value);
}

function fail(message: string): never {
  throw new ToolError({ type: "invalid_configuration", message });
}
