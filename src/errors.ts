/**
 * One problem found in a value, located by a JSON pointer.
 */
export interface ValidationIssue {
  /** JSON pointer (RFC 6901) into the checked value; `""` is the value itself. */
  path: string;
  /** What is wrong, for a person or a model to read. */
  message: string;
  /** The schema keyword or valibot check that failed, when known. */
  keyword?: string;
}

/**
 * The JSON shape of every error kind, discriminated by `type`.
 */
export type ToolErrorData =
  | { type: "invalid_configuration"; message: string }
  | { type: "unknown_tool"; name: string }
  | { type: "duplicate_name"; name: string }
  | { type: "invalid_arguments"; tool: string; message: string; issues: ValidationIssue[] }
  | { type: "invalid_output"; message: string; issues: ValidationIssue[] }
  | { type: "invalid_interaction"; id: string; message: string }
  | { type: "undeclared_interaction"; tool: string; kind: string }
  | { type: "interaction_declined"; tool: string; reason?: string }
  | { type: "cancelled"; tool: string; reason?: string }
  | { type: "transport"; tool?: string; message: string }
  | { type: "protocol"; message: string }
  | { type: "timeout"; tool: string; timeoutMs: number }
  | { type: "unsupported"; operation: string }
  | { type: "closed"; operation: string }
  | { type: "build_cleanup"; primary: ToolErrorData; cleanup: ToolErrorData };

/** The 15 kinds, snake_case as on the wire. */
export type ToolErrorType = ToolErrorData["type"];

/** The 15 error kinds, in declaration order. */
export const TOOL_ERROR_TYPES = [
  "invalid_configuration",
  "unknown_tool",
  "duplicate_name",
  "invalid_arguments",
  "invalid_output",
  "invalid_interaction",
  "undeclared_interaction",
  "interaction_declined",
  "cancelled",
  "transport",
  "protocol",
  "timeout",
  "unsupported",
  "closed",
  "build_cleanup",
] as const satisfies readonly ToolErrorType[];

// A registry-wide symbol, so a ToolError from a second copy of toolwire (another bundle,
// an iframe, a worker) is still recognised.
const BRAND = Symbol.for("toolwire.ToolError");

/** The data of one kind, with `build_cleanup` also taking instances. */
export type ToolErrorInput =
  | Exclude<ToolErrorData, { type: "build_cleanup" }>
  | {
      type: "build_cleanup";
      primary: ToolError | ToolErrorData;
      cleanup: ToolError | ToolErrorData;
    };

/**
 * The one error toolwire throws: "the operation could not be executed or the handler was used
 * incorrectly". A tool's own failure is not a `ToolError` but a result with `isError: true`.
 *
 * The kind's fields are on `error.data` (a union to `switch` on) and, except `name` and
 * `message` which `Error` already owns, directly on the error.
 *
 * Across realms (`postMessage`, a worker) send `error.toJSON()` and rebuild it with
 * `ToolError.fromJSON`: `structuredClone` keeps only a plain `Error`, which `isToolError` rejects.
 *
 * @example
 * ```ts
 * throw new ToolError({ type: "unknown_tool", name: "search" });
 * ```
 */
export class ToolError extends Error {
  /** The error kind. */
  readonly type: ToolErrorType;
  /** The kind's fields exactly as `toJSON()` returns them. */
  readonly data: ToolErrorData;
  /** The tool concerned, for the kinds that name one. */
  declare readonly tool?: string;
  /** Validation issues (`invalid_arguments`, `invalid_output`). */
  declare readonly issues?: ValidationIssue[];
  /** Interaction id (`invalid_interaction`). */
  declare readonly id?: string;
  /** Interaction kind (`undeclared_interaction`). */
  declare readonly kind?: string;
  /** Why it was declined or cancelled, when given. */
  declare readonly reason?: string;
  /** The refused operation (`unsupported`, `closed`). */
  declare readonly operation?: string;
  /** The deadline that elapsed, in milliseconds (`timeout`). */
  declare readonly timeoutMs?: number;
  /** The build failure (`build_cleanup`). */
  declare readonly primary?: ToolError;
  /** The failure of the cleanup that followed it (`build_cleanup`). */
  declare readonly cleanup?: ToolError;

  /**
   * Creates a tool error from the shape `toJSON()` returns, keeping only the kind's own fields.
   * Field types are trusted; use `ToolError.fromJSON` for untrusted data.
   *
   * @param input The kind and its fields.
   * @param options `cause`, kept for debugging and never serialised.
   * @throws ToolError `invalid_configuration` for an unknown `type`.
   */
  constructor(input: ToolErrorInput, options?: { cause?: unknown }) {
    const data = toData(input);
    super(messageOf(data), options);
    this.name = "ToolError";
    this.type = data.type;
    this.data = data;
    Object.defineProperty(this, BRAND, { value: true });
    for (const [key, value] of Object.entries(data)) {
      if (key === "name" || key === "message" || key === "type" || value === undefined) continue;
      (this as Record<string, unknown>)[key] = value;
    }
    if (data.type === "build_cleanup") {
      this.primary = asError(input.type === "build_cleanup" ? input.primary : data.primary);
      this.cleanup = asError(input.type === "build_cleanup" ? input.cleanup : data.cleanup);
    }
  }

  /**
   * Returns the JSON shape `{ type, ...fields }`.
   *
   * @returns A plain object that `ToolError.fromJSON` turns back into an equal error.
   */
  toJSON(): ToolErrorData {
    return structuredClone(this.data);
  }

  /**
   * Creates a tool error from its JSON shape.
   *
   * @param value Parsed JSON, as produced by `toJSON()`, or a `ToolError` (from any copy).
   * @returns The error.
   * @throws ToolError `protocol` when the value is not a tool error's JSON shape.
   */
  static fromJSON(value: unknown): ToolError {
    return new ToolError(parseData(isToolError(value) ? value.toJSON() : value));
  }
}

/**
 * Checks whether a value is a `ToolError` (from any copy of toolwire), optionally of one kind.
 *
 * @param value The value to check.
 * @param type The kind it must have.
 * @returns Whether it is.
 */
export function isToolError(value: unknown): value is ToolError;
export function isToolError<T extends ToolErrorType>(
  value: unknown,
  type: T,
): value is ToolError & { type: T; data: Extract<ToolErrorData, { type: T }> };
export function isToolError(value: unknown, type?: ToolErrorType): boolean {
  if (typeof value !== "object" || value === null || !(BRAND in value)) return false;
  return type === undefined || (value as unknown as ToolError).type === type;
}

function asError(value: ToolError | ToolErrorData): ToolError {
  return isToolError(value) ? value : new ToolError(value as ToolErrorInput);
}

function toData(input: ToolErrorInput): ToolErrorData {
  const type = input?.type;
  if (!isKind(type)) {
    const message = `unknown ToolError type ${JSON.stringify(type)}`;
    throw new ToolError({ type: "invalid_configuration", message });
  }
  if (input.type === "build_cleanup")
    return {
      type: "build_cleanup",
      primary: dataOf(input.primary),
      cleanup: dataOf(input.cleanup),
    };
  // Copy only the kind's fields, so stray keys from untyped callers never reach toJSON().
  const data: Record<string, unknown> = { type };
  const source = input as unknown as Record<string, unknown>;
  for (const key in FIELDS[type]) if (source[key] !== undefined) data[key] = source[key];
  return data as ToolErrorData;
}

function isKind(type: unknown): type is ToolErrorType {
  return typeof type === "string" && Object.hasOwn(FIELDS, type);
}

function dataOf(value: ToolError | ToolErrorData): ToolErrorData {
  return isToolError(value) ? value.data : (value as ToolErrorData);
}

function messageOf(data: ToolErrorData): string {
  switch (data.type) {
    case "invalid_configuration":
      return `invalid configuration: ${data.message}`;
    case "unknown_tool":
      return `tool \`${data.name}\` was not found`;
    case "duplicate_name":
      return `duplicate tool name \`${data.name}\``;
    case "invalid_arguments":
      return `invalid tool arguments for \`${data.tool}\`: ${data.message}`;
    case "invalid_output":
      return `invalid tool output: ${data.message}`;
    case "invalid_interaction":
      return `invalid interaction \`${data.id}\`: ${data.message}`;
    case "undeclared_interaction":
      return `tool \`${data.tool}\` requested an undeclared ${data.kind} interaction`;
    case "interaction_declined":
      return `interaction for \`${data.tool}\` was declined${data.reason ? `: ${data.reason}` : ""}`;
    case "cancelled":
      return `call to \`${data.tool}\` was cancelled${data.reason ? `: ${data.reason}` : ""}`;
    case "transport":
      return `transport failure${data.tool ? ` calling \`${data.tool}\`` : ""}: ${data.message}`;
    case "protocol":
      return `protocol error: ${data.message}`;
    case "timeout":
      return `call to \`${data.tool}\` timed out after ${data.timeoutMs} ms`;
    case "unsupported":
      return `unsupported: ${data.operation}`;
    case "closed":
      return `closed: ${data.operation} after shutdown`;
    case "build_cleanup":
      return `${messageOf(data.primary)}; cleanup also failed: ${messageOf(data.cleanup)}`;
    default:
      return unreachable(data);
  }
}

/**
 * Marks a switch arm the compiler has proven impossible.
 *
 * @param value The value whose type is `never` here.
 * @throws Error always, should a caller bypass the types.
 */
export function unreachable(value: never): never {
  throw new Error(`unreachable: ${JSON.stringify(value)}`);
}

// Field name → the JSON type it must have, per kind; `?` marks optional fields.
const FIELDS: Record<ToolErrorType, Record<string, string>> = {
  invalid_configuration: { message: "string" },
  unknown_tool: { name: "string" },
  duplicate_name: { name: "string" },
  invalid_arguments: { tool: "string", message: "string", issues: "issues" },
  invalid_output: { message: "string", issues: "issues" },
  invalid_interaction: { id: "string", message: "string" },
  undeclared_interaction: { tool: "string", kind: "string" },
  interaction_declined: { tool: "string", reason: "string?" },
  cancelled: { tool: "string", reason: "string?" },
  transport: { tool: "string?", message: "string" },
  protocol: { message: "string" },
  timeout: { tool: "string", timeoutMs: "number" },
  unsupported: { operation: "string" },
  closed: { operation: "string" },
  build_cleanup: { primary: "error", cleanup: "error" },
};

function parseData(value: unknown): ToolErrorData {
  const bad = (why: string) =>
    new ToolError({ type: "protocol", message: `not a ToolError: ${why}` });
  if (typeof value !== "object" || value === null) throw bad("expected an object");
  const record = value as Record<string, unknown>;
  const type = record.type;
  if (!isKind(type)) throw bad(`unknown type ${JSON.stringify(type)}`);
  const fields = FIELDS[type];
  const out: Record<string, unknown> = { type };
  for (const key of Object.keys(record)) {
    if (key !== "type" && !(key in fields)) throw bad(`unexpected field \`${key}\` for ${type}`);
  }
  for (const [key, kind] of Object.entries(fields)) {
    const field = record[key];
    if (field === undefined && kind.endsWith("?")) continue;
    if (kind === "error") out[key] = parseData(field);
    else if (kind === "issues") out[key] = parseIssues(field, bad);
    else if (typeof field !== kind.replace("?", "")) throw bad(`\`${key}\` must be a ${kind}`);
    else out[key] = field;
  }
  return out as ToolErrorData;
}

function parseIssues(value: unknown, bad: (why: string) => ToolError): ValidationIssue[] {
  if (!Array.isArray(value)) throw bad("`issues` must be an array");
  return value.map((issue: unknown) => {
    const { path, message, keyword } = (issue ?? {}) as Record<string, unknown>;
    if (typeof path !== "string" || typeof message !== "string") {
      throw bad("each issue needs a string `path` and `message`");
    }
    return typeof keyword === "string" ? { path, message, keyword } : { path, message };
  });
}

/** The text to show for any thrown value: an `Error`'s message, anything else as a string. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
