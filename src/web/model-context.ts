// The browser's WebMCP API as toolwire uses it (see `docs/design.md`, "WebMCP"), and the one
// place that finds it. The types describe the W3C Web Machine Learning draft plus what Chromium
// 156 adds (`getTools`, `executeTool`, `consequentialHint`); every member toolwire does not
// need is optional, so a polyfill or a test double fits.

import { ToolError } from "../errors.ts";

/** WebMCP's tool hints. Chromium fills in `false` for the hints a page leaves out. */
export interface WebMcpAnnotations {
  /** The tool only reads. */
  readOnlyHint?: boolean;
  /** Its output holds data the registering page does not vouch for. */
  untrustedContentHint?: boolean;
  /** Chromium's extension: calling it has consequences worth a confirmation. */
  consequentialHint?: boolean;
  [hint: string]: unknown;
}

/** What the browser passes to `execute` beside the input (Chromium 156: the call's signal). */
export interface WebMcpClient {
  /** Aborts when the agent cancels the call. */
  signal?: AbortSignal;
  /**
   * Runs `callback` while the browser shows the page to the user. In earlier drafts only; the
   * current draft and Chromium 156 have no such hook.
   */
  requestUserInteraction?<T>(callback: () => Promise<T>): Promise<T>;
}

/** The tool a page registers: `registerTool`'s first argument. */
export interface WebMcpToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema?: Record<string, unknown>;
  annotations?: WebMcpAnnotations;
  execute(input: Record<string, unknown>, client?: WebMcpClient): Promise<unknown>;
}

/** A tool as `getTools` reports it. */
export interface WebMcpRegisteredTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: WebMcpAnnotations;
  /** The origin of the document that registered it. */
  origin?: string;
}

/** A page's model context: `document.modelContext` (Chromium) or `navigator.modelContext`. */
export interface WebMcpModelContext {
  registerTool(
    tool: WebMcpToolDefinition,
    options?: { signal?: AbortSignal; exposedTo?: string[] },
  ): Promise<void> | void;
  getTools?(options?: { fromOrigins?: string[] }): Promise<WebMcpRegisteredTool[]>;
  executeTool?(
    tool: WebMcpRegisteredTool,
    input: Record<string, unknown>,
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
  addEventListener?(type: "toolchange", listener: () => void): void;
  removeEventListener?(type: "toolchange", listener: () => void): void;
}

/**
 * Returns the model context to use: the one given, else `document.modelContext`, else
 * `navigator.modelContext`.
 *
 * @param given The caller's `modelContext` option.
 * @param needs The methods the caller needs beyond `registerTool`.
 * @throws ToolError `unsupported` when there is none (or it lacks `needs`), naming how to turn
 * WebMCP on.
 */
export function findModelContext(
  given: WebMcpModelContext | undefined,
  needs: readonly ("getTools" | "executeTool")[] = [],
): WebMcpModelContext {
  const scope = globalThis as {
    document?: { modelContext?: WebMcpModelContext };
    navigator?: { modelContext?: WebMcpModelContext };
  };
  const found = given ?? scope.document?.modelContext ?? scope.navigator?.modelContext;
  if (typeof found?.registerTool !== "function") {
    throw new ToolError({
      type: "unsupported",
      operation:
        "WebMCP (no document.modelContext or navigator.modelContext here): in Chromium start the " +
        "browser with --enable-features=WebMCP or join the WebMCP origin trial, serve the page " +
        "from a secure context (https, http://localhost or http://127.0.0.1), or pass modelContext",
    });
  }
  const missing = needs.filter((method) => typeof found[method] !== "function");
  if (missing.length > 0) {
    throw new ToolError({
      type: "unsupported",
      operation: `WebMCP ${missing.join(" and ")} (this model context only registers tools)`,
    });
  }
  return found;
}
