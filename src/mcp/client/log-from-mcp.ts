import type { ToolLog } from "../../execution/handler-io.ts";
import type { JsonRpcParams } from "../json-rpc.ts";
import { LOGGING_LEVELS } from "../protocol.ts";

/**
 * Returns the tool log a `notifications/message` carries, or `undefined` when its level is not
 * one of the MCP logging levels.
 *
 * @param params The notification's params.
 * @returns The log message.
 */
export function logFromMcp(params: JsonRpcParams): ToolLog | undefined {
  const { level, data, logger } = params;
  if (!(LOGGING_LEVELS as readonly unknown[]).includes(level)) return undefined;
  const log: ToolLog = { level: level as ToolLog["level"], data };
  if (typeof logger === "string") log.logger = logger;
  return log;
}
