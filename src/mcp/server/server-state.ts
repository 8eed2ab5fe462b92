import type { Toolset } from "../../toolset/toolset.ts";
import type { McpLoggingLevel } from "../protocol.ts";
import type { InFlightCalls } from "./in-flight-calls.ts";
import type { AuthInfo, ResolvedOptions } from "./mcp-handler-options.ts";
import type { OriginPolicy } from "./origin-policy.ts";
import type { PendingRequests } from "./pending-requests.ts";
import type { Session, SessionStore } from "./sessions.ts";

/** Server state interface: what one handler keeps between requests. */
export interface ServerState {
  /** The served toolset (never shut down by the server). */
  readonly toolset: Toolset;
  /** The resolved options. */
  readonly options: ResolvedOptions;
  /** Host/Origin checks and CORS. */
  readonly policy: OriginPolicy;
  /** Live sessions, in `memory` mode. */
  readonly sessions: SessionStore | undefined;
  /** Elicitations waiting for the client's answer. */
  readonly pending: PendingRequests;
  /** Running `tools/call` requests. */
  readonly inFlight: InFlightCalls;
  /** The level set by `logging/setLevel` in stateless mode. */
  logLevel: McpLoggingLevel | undefined;
}

/** Request scope interface: what one POST is answered with and on behalf of. */
export interface RequestScope {
  /** The session, in `memory` mode after `initialize`. */
  readonly session: Session | undefined;
  /** The revision in use: the `MCP-Protocol-Version` header, else the session's. */
  readonly protocolVersion: string | undefined;
  /** Headers every response to this POST carries (CORS). */
  readonly headers: Headers;
  /** What `authorize` returned, when it returned details. */
  readonly authInfo: AuthInfo | undefined;
}
