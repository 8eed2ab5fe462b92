import { isJsonObject } from "../../schema/is-json-object.ts";
import { jsonRpcNotification } from "../json-rpc.ts";
import {
  isSupportedProtocolVersion,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../protocol.ts";
import type { McpSession } from "./mcp-session.ts";
import { protocolError } from "./session-error.ts";
import { withDeadline } from "./with-deadline.ts";

// Hint: the package version; the clientInfo a server logs to tell its clients apart.
const CLIENT_INFO = { name: "toolwire", version: "0.1.0" } as const;

/** Server summary interface: what `initialize` told the client. */
export interface ServerSummary {
  /** The negotiated protocol revision. */
  protocolVersion: string;
  /** Whether the server offers tools at all. */
  tools: boolean;
}

/**
 * Runs the MCP lifecycle's initialization: `initialize` (advertising elicitation only with form
 * interactions, as `elicitation: {}`, the shape both 2025-06-18 and 2025-11-25 read as form
 * support, and `sampling: {}` only with sampling interactions), a check that the server
 * answered with a revision toolwire speaks, then `notifications/initialized`. Each exchange has
 * its own deadline.
 *
 * @param session The fresh session.
 * @param options The deadline, whether form and sampling interactions are enabled, and the
 * caller's signal.
 * @returns The negotiated revision and whether the server has tools.
 * @throws ToolError `protocol` for an unsupported revision or a malformed answer, `transport`,
 * `timeout` or `cancelled`.
 * @see https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle
 */
export async function initializeSession(
  session: McpSession,
  options: {
    timeoutMs: number;
    formInteractions: boolean;
    samplingInteractions?: boolean;
    signal?: AbortSignal;
  },
): Promise<ServerSummary> {
  const { timeoutMs, signal } = options;
  const outer = signal ? { signal } : {};
  const params = {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {
      ...(options.formInteractions ? { elicitation: {} } : {}),
      ...(options.samplingInteractions ? { sampling: {} } : {}),
    },
    clientInfo: { ...CLIENT_INFO },
  };
  const result = await withDeadline(
    "initialize",
    timeoutMs,
    (inner) =>
      session.request(session.newRequestId(), "initialize", params, {
        signal: inner,
        label: "initialize",
      }),
    outer,
  );
  const version = result.protocolVersion;
  if (!isSupportedProtocolVersion(version)) {
    throw protocolError(
      `the server speaks MCP ${JSON.stringify(version)}; toolwire speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    );
  }
  session.useProtocolVersion(version);
  await withDeadline(
    "notifications/initialized",
    timeoutMs,
    (inner) =>
      session.send(jsonRpcNotification("notifications/initialized"), {
        signal: inner,
        label: "notifications/initialized",
      }),
    outer,
  );
  const capabilities = isJsonObject(result.capabilities) ? result.capabilities : {};
  return { protocolVersion: version, tools: isJsonObject(capabilities.tools) };
}
