/**
 * A Worker serving MCP whose 2025 sessions each live in one Durable Object (`durableSessions`,
 * design.md S23). test/node/mcp-sessions-workerd.test.ts runs it in Miniflare as three Workers,
 * each its own isolate: `home` holds the `McpSession` objects; `front-a` and `front-b` take the
 * requests, and a client's requests alternate between them, as a load balancer may send them.
 * `plain-a` and `plain-b` serve the same tools with `sessions: "memory"` and no home.
 */
import * as v from "valibot";
import { defineTool, Toolset } from "../../src/index.ts";
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from "../../src/mcp/index.ts";

interface Env {
  MCP_SESSIONS: DurableObjectNamespace;
  PLAIN?: string;
}

const tools = Toolset.local([
  defineTool({
    name: "greet",
    description: "Asks for a name, then greets",
    input: v.object({}),
    interactions: { text: true },
    call: async (_input, ctx) => `Hello ${await ctx.requestText("Your name?")}`,
  }),
]);

const options: McpHandlerOptions = {
  name: "greeter",
  version: "1.0.0",
  allowedHosts: ["worker"],
  interactionPolicy: "elicit",
};

/**
 * One 2025 session's home: the same tools, served with in-memory sessions. A plain class, as
 * docs/deploy.md shows it: a Durable Object reached only by `fetch` needs no base class.
 */
export class McpSession {
  readonly handler = createMcpHandler(tools, { ...options, sessions: "memory" });

  fetch(request: Request): Promise<Response> {
    return this.handler.fetch(request);
  }
}

let front: McpHandler | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    front ??= env.PLAIN
      ? createMcpHandler(tools, { ...options, sessions: "memory" })
      : createMcpHandler(tools, { ...options, durableSessions: env.MCP_SESSIONS });
    return front.fetch(request);
  },
};
