// 2025 sessions on Workers, each with one home (docs/design.md, "Serving MCP", S30): a Worker's
// isolates share no memory, so a `memory` session, and a tool's question waiting in it, lives
// in whichever isolate took its `initialize`. With `durableSessions`, the handler is only a
// router for the 2025 revisions: each session lives in one Durable Object (which serves it with
// a `sessions: "memory"` handler) and every request of that session is sent there, whichever
// isolate took it. 2026-07-28 requests need no home and are served where they land.
//
// The router keeps nothing. A new session gets a fresh object name, and the id the client sees
// is `<object name>.<the object's own session id>`, so a later request names its object; the
// object sees its own id, as if it were called directly.

import { type Answer, httpError, type IncomingRequest, readBody } from "./http.ts";

/**
 * The part of a Workers Durable Object namespace binding (`env.MCP_SESSIONS`) the router uses:
 * the object named by a session, and its `fetch`.
 */
export interface DurableSessionNamespace {
  idFromName(name: string): unknown;
  get(id: never): { fetch(request: Request): Promise<Response> };
}

/** Sends one 2025 request (its body already read, as `text`) to its session's object. */
export type SessionRouter = (
  request: IncomingRequest,
  text: string | null,
  headers: Headers,
) => Promise<Answer>;

const SEPARATOR = ".";

/** Creates the router over `namespace`. */
export function createSessionRouter(namespace: DurableSessionNamespace): SessionRouter {
  return async (request, text, headers) => {
    const outer = request.headers.get("mcp-session-id");
    let name: string;
    let inner: string | null = null;
    if (outer === null) {
      // A new session (or a request the object will refuse for want of one, as `memory` does).
      name = crypto.randomUUID();
    } else {
      const at = outer.indexOf(SEPARATOR);
      if (at <= 0) return httpError(404, "Session not found", headers);
      name = outer.slice(0, at);
      inner = outer.slice(at + 1);
    }
    const original = request.toRequest();
    const forwarded = new Headers(original.headers);
    if (inner === null) forwarded.delete("mcp-session-id");
    else forwarded.set("mcp-session-id", inner);
    const home = namespace.get(namespace.idFromName(name) as never);
    const answer = await home.fetch(
      new Request(original.url, { method: request.method, headers: forwarded, body: text }),
    );
    const session = answer.headers.get("mcp-session-id");
    if (session === null) return answer;
    const answered = new Headers(answer.headers);
    answered.set("mcp-session-id", `${name}${SEPARATOR}${session}`);
    return new Response(answer.body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answered,
    });
  };
}

/**
 * Reads a POST's body once, for a router that must both parse it and send it on: returns the
 * text (or `null` when it could not be read) and the request reading as that same outcome.
 */
export async function bufferBody(
  request: IncomingRequest,
  maxBytes: number,
): Promise<{ request: IncomingRequest; text: string | null }> {
  const read = await readBody(request, maxBytes);
  return {
    request: {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: async () => read,
      onAbort: (listener) => request.onAbort(listener),
      toRequest: () => request.toRequest(),
    },
    text: read.type === "text" ? read.text : null,
  };
}
