/**
 * A Worker module serving a tool that asks a question, with `stateSecret` read from the
 * environment (the handler is built on the first request, when `env` is known).
 * cross-instance.test.ts runs it in two separate Miniflare instances sharing only the secret.
 */
import { defineTool, Toolset } from "../../../src/index.ts";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import { createMcpHandler, type McpHandler } from "../../../src/mcp/index.ts";

const tools = Toolset.local([
  defineTool({
    jsonSchemaValidator,
    name: "greet",
    description: "Asks for a name, then greets",
    input: { jsonSchema: { type: "object", properties: {} } },
    interactions: { form: true },
    call: async (_input, ctx) => {
      const { name } = await ctx.requestForm("Your name?", {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
      });
      return `Hello ${String(name)} from ${navigator.userAgent}`;
    },
  }),
]);

let handler: McpHandler | undefined;

export default {
  fetch(request: Request, env: { MCP_STATE_SECRET: string }): Promise<Response> {
    handler ??= createMcpHandler(tools, {
      name: "toolwire-mrtr-worker",
      version: "1.0.0",
      allowedHosts: ["127.0.0.1", "localhost"],
      stateSecret: env.MCP_STATE_SECRET,
    });
    return handler.fetch(request);
  },
};
