import type { ToolName } from "../declaration/tool-name.ts";
import type { ToolLogLevel, ToolProgress } from "../execution/handler-io.ts";
import type { SamplingRequest, SamplingResult } from "../interaction/sampling.ts";

/**
 * Tool context interface: what a running local tool can use besides its arguments.
 */
export interface ToolContext {
  /** Aborted when the call is cancelled or its toolset shuts down. */
  signal: AbortSignal;
  /** The caller's correlation id for this call. */
  callId?: string;
  /** This tool's name. */
  toolName: ToolName;
  /**
   * Who is calling: what the host passed as `CallOptions.auth` (for an MCP server, what its
   * `authorize` returned). `undefined` when the host knows no identity.
   */
  auth?: unknown;
  /** Reports progress to whoever drives the call. */
  progress(update: ToolProgress): void;
  /**
   * Logs a message to whoever drives the call (an MCP server sends it as
   * `notifications/message`, filtered by the client's `logging/setLevel`). Nobody listening is
   * fine: the message is dropped.
   *
   * @param level How severe it is.
   * @param data A string or any JSON-serializable value.
   * @param logger The name of the logger, e.g. a component of the tool.
   */
  log(level: ToolLogLevel, data: unknown, logger?: string): void;
  /**
   * Asks the caller for text; needs `interactions: { text: true }` (or `multilineText`).
   *
   * @throws ToolError `interaction_declined` when the caller declines, `undeclared_interaction`
   * when the tool did not declare the kind.
   */
  requestText(prompt: string, options?: { multiline?: boolean }): Promise<string>;
  /**
   * Asks the caller for a JSON object described by `schema`; needs `interactions: { form: true }`.
   *
   * @throws ToolError `interaction_declined` or `undeclared_interaction`.
   */
  requestForm(prompt: string, schema: Record<string, unknown>): Promise<Record<string, unknown>>;
  /**
   * Asks the caller's model for a reply (MCP sampling); needs `interactions: { sampling: true }`.
   * The caller picks the model and should let a person see and approve the request; the prompt
   * it shows is the text of the last text message.
   *
   * @throws ToolError `interaction_declined` when the caller declines, `undeclared_interaction`
   * when the tool did not declare sampling, `invalid_configuration` for a malformed request.
   */
  requestSampling(request: SamplingRequest): Promise<SamplingResult>;
}
