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
  | { type: "unknown_tool"; name: string; suggestion?: string }
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
      // `toData` left out undefined fields; `name` and `message` belong to `Error`.
      if (key === "name" || key === "message" || key === "type") continue;
      (this as Record<string, unknown>)[key] = value;
    }
    // `toData` kept the type, so the input is a `build_cleanup` too; its instances are kept.
    if (input.type === "build_cleanup") {
      this.primary = asError(input.primary);
      this.cleanup = asError(input.cleanup);
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
    const bad = (why: string) =>
      new ToolError({ type: "protocol", message: `not a ToolError: ${why}` });
    return new ToolError(
      toData(isToolError(value) ? value.toJSON() : value, bad) as ToolErrorInput,
    );
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
  if (typeof value !== "object" || value === null) return false;
  try {
    if (!(BRAND in value)) return false;
    return type === undefined || (value as unknown as ToolError).type === type;
  } catch {
    // A revoked Proxy, or one whose traps throw, is no ToolError.
    return false;
  }
}

function asError(value: ToolError | ToolErrorData): ToolError {
  return isToolError(value) ? value : new ToolError(value as ToolErrorInput);
}

// Reads a kind's own fields, so stray keys never reach toJSON(). For the constructor (no `bad`)
// the input is typed: fields are copied and a joined error's data kept. For `fromJSON` it is
// untrusted JSON: with `bad` every field is checked and a stray key rejected. (One reader for
// both rather than a second parser: `fromJSON` is a static member, so every bundle has it.)
function toData(input: unknown, bad?: (why: string) => ToolError): ToolErrorData {
  if (bad && (typeof input !== "object" || input === null)) throw bad("expected an object");
  const source = input as Record<string, unknown>;
  const type = source?.type;
  if (!isKind(type)) {
    if (bad) throw bad(`unknown type ${JSON.stringify(type)}`);
    const message = `unknown ToolError type ${JSON.stringify(type)}`;
    throw new ToolError({ type: "invalid_configuration", message });
  }
  const fields = KINDS[type][0];
  for (const key of bad ? Object.keys(source) : []) {
    if (key !== "type" && !(key in fields)) throw bad?.(`unexpected field \`${key}\` for ${type}`);
  }
  const data: Record<string, unknown> = { type };
  for (const [key, kind] of Object.entries(fields)) {
    const value = source[key];
    if (value === undefined && (!bad || kind.endsWith("?"))) continue;
    if (kind === "error") data[key] = bad ? toData(value, bad) : dataOf(value as ToolError);
    else if (!bad) data[key] = value;
    else if (kind === "issues") data[key] = parseIssues(value, bad);
    else if (typeof value !== kind.replace("?", "")) throw bad(`\`${key}\` must be a ${kind}`);
    else data[key] = value;
  }
  return data as ToolErrorData;
}

function isKind(type: unknown): type is ToolErrorType {
  return typeof type === "string" && Object.hasOwn(KINDS, type);
}

function dataOf(value: ToolError | ToolErrorData): ToolErrorData {
  return isToolError(value) ? value.data : (value as ToolErrorData);
}

function messageOf(data: ToolErrorData): string {
  return (KINDS[data.type][1] as (data: ToolErrorData) => string)(data);
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

// Per kind, in one row: field name → the JSON type it must have (`?` marks optional fields),
// and the message. One table instead of a field table plus a message switch: 50 bytes gzip.
const KINDS: {
  [K in ToolErrorType]: [
    fields: Record<string, string>,
    message: (data: Extract<ToolErrorData, { type: K }>) => string,
  ];
} = {
  invalid_configuration: [{ message: "string" }, (d) => `invalid configuration: ${d.message}`],
  unknown_tool: [
    { name: "string", suggestion: "string?" },
    (d) =>
      `tool \`${d.name}\` was not found${d.suggestion ? `; did you mean \`${d.suggestion}\`?` : ""}`,
  ],
  duplicate_name: [{ name: "string" }, (d) => `duplicate tool name \`${d.name}\``],
  invalid_arguments: [
    { tool: "string", message: "string", issues: "issues" },
    (d) => `invalid tool arguments for \`${d.tool}\`: ${d.message}`,
  ],
  invalid_output: [
    { message: "string", issues: "issues" },
    (d) => `invalid tool output: ${d.message}`,
  ],
  invalid_interaction: [
    { id: "string", message: "string" },
    (d) => `invalid interaction \`${d.id}\`: ${d.message}`,
  ],
  undeclared_interaction: [
    { tool: "string", kind: "string" },
    (d) => `tool \`${d.tool}\` requested an undeclared ${d.kind} interaction`,
  ],
  interaction_declined: [
    { tool: "string", reason: "string?" },
    (d) => `interaction for \`${d.tool}\` was declined${d.reason ? `: ${d.reason}` : ""}`,
  ],
  cancelled: [
    { tool: "string", reason: "string?" },
    (d) => `call to \`${d.tool}\` was cancelled${d.reason ? `: ${d.reason}` : ""}`,
  ],
  transport: [
    { tool: "string?", message: "string" },
    (d) => `transport failure${d.tool ? ` calling \`${d.tool}\`` : ""}: ${d.message}`,
  ],
  protocol: [{ message: "string" }, (d) => `protocol error: ${d.message}`],
  timeout: [
    { tool: "string", timeoutMs: "number" },
    (d) => `call to \`${d.tool}\` timed out after ${d.timeoutMs} ms`,
  ],
  unsupported: [{ operation: "string" }, (d) => `unsupported: ${d.operation}`],
  closed: [{ operation: "string" }, (d) => `closed: ${d.operation} after shutdown`],
  build_cleanup: [
    { primary: "error", cleanup: "error" },
    (d) => `${messageOf(d.primary)}; cleanup also failed: ${messageOf(d.cleanup)}`,
  ],
};

function parseIssues(value: unknown, bad: (why: string) => ToolError): ValidationIssue[] {
  const expected = "`issues` must be an array of { path: string, message: string }";
  if (!Array.isArray(value)) throw bad(expected);
  return value.map((issue: unknown) => {
    const { path, message, keyword } = (issue ?? {}) as Record<string, unknown>;
    if (typeof path !== "string" || typeof message !== "string") throw bad(expected);
    return typeof keyword === "string" ? { path, message, keyword } : { path, message };
  });
}

/**
 * The text to show for any thrown value: an `Error`'s message, anything else as a string. It
 * never throws: a value that cannot be read (a revoked Proxy, a throwing `message` getter or
 * `toString`, an object without a prototype) gets a fixed text, so a hostile throw still
 * becomes an error result rather than a raw rejection.
 */
export function errorText(error: unknown): string {
  try {
    return String(error instanceof Error ? error.message : error);
  } catch {
    return "a thrown value that cannot be shown as text";
  }
}
