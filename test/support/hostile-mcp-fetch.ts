// A hostile MCP server as a `fetch` function: every answer is described by plain data (so
// fast-check can generate, shrink and print it) and can be valid, malformed, late or never.
import { answer, noticeAnswer } from "./hostile-answer.ts";
import {
  type HostilePlan,
  type Json,
  type Misbehaviour,
  VALID_STRUCTURED,
  VALID_TEXT,
} from "./hostile-plan.ts";

/** A hostile server. */
export interface HostileMcp {
  /** Pass as `connectMcp({ fetch })`. */
  fetch: typeof fetch;
  /** The JSON-RPC method (or `DELETE`) of every request, in order. */
  log: string[];
  /** The client's replies to the server's requests, in order. */
  replies: Json[];
  /**
   * Requests refused with 404 because their `Mcp-Session-Id` is not the one issued with the
   * `initialize` answer (or is present when none was issued), as a real server refuses them.
   */
  strangers: string[];
}

/**
 * Creates a hostile MCP server.
 *
 * @param plan What to answer to each request.
 * @returns The fake.
 */
export function createHostileMcp(plan: HostilePlan): HostileMcp {
  const log: string[] = [];
  const strangers: string[] = [];
  const replies: Json[] = [];
  let notice = 0;
  let issued: string | null = null;
  const handle = async (request: Request): Promise<Response> => {
    const text = await request.text();
    const message = (text === "" ? {} : JSON.parse(text)) as Json;
    const method =
      request.method === "DELETE" || request.method === "GET"
        ? request.method
        : typeof message.method === "string"
          ? message.method
          : "reply";
    log.push(method);
    if (method === "reply") replies.push(message);
    // No standalone stream here.
    if (method === "GET") return new Response(null, { status: 405 });
    if (method !== "initialize" && request.headers.get("mcp-session-id") !== issued) {
      strangers.push(method);
      return new Response("unknown session", { status: 404 });
    }
    if (method === "DELETE") return noticeAnswer(plan.delete, 200);
    if (message.id === undefined || method === "reply") {
      const behaviour = plan.notices[notice++ % Math.max(plan.notices.length, 1)];
      return noticeAnswer(behaviour ?? { type: "valid" }, 202);
    }
    const id = message.id as number;
    const params = (message.params ?? {}) as Json;
    const valid = validResult(plan, method, params);
    const headers: Record<string, string> = {};
    if (method === "initialize" && plan.sessionId !== undefined) {
      headers["mcp-session-id"] = plan.sessionId;
    }
    const behaviour: Misbehaviour =
      method === "initialize"
        ? plan.initialize
        : method === "tools/list"
          ? plan.list
          : method === "tools/call"
            ? (plan.calls[Number((params.arguments as Json | undefined)?.case)] ?? {
                type: "valid",
              })
            : { type: "valid" };
    const token = (params._meta as Json | undefined)?.progressToken;
    const response = await answer(behaviour, { id, valid, headers, token, signal: request.signal });
    // The session is the one named by the answer to initialize, whatever its shape.
    if (method === "initialize" && response.ok) issued = response.headers.get("mcp-session-id");
    return response;
  };
  return { fetch: (input, init) => handle(new Request(input, init)), log, replies, strangers };
}

function validResult(plan: HostilePlan, method: string, params: Json): Json {
  if (method === "initialize") {
    return {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "hostile", version: "1.0.0" },
    };
  }
  if (method === "tools/list") return { tools: plan.tools };
  if (method === "tools/call") {
    const shaped = params.name === "shaped";
    return {
      content: [{ type: "text", text: VALID_TEXT }],
      ...(shaped ? { structuredContent: VALID_STRUCTURED } : {}),
    };
  }
  return {};
}
