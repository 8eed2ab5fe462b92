/**
 * A Worker serving MCP tasks whose records live in a Durable Object's storage.
 * test/node/mcp-tasks-workerd.test.ts bundles it and runs it in Miniflare as three Workers, each
 * its own isolate: `store` holds the `TaskStore` object; `a` and `b` serve the same toolset over
 * MCP and share nothing but the store. A task created through `a` runs there (kept alive by
 * `ctx.waitUntil`); `b` reads it and cancels it, and `a`'s running tool sees the cancel.
 *
 * - `POST /mcp`: the MCP endpoint.
 * - `GET /aborted`: the abort reasons the `wait` tool saw in this isolate.
 */
import { type Store, Toolset } from "../../src/index.ts";
import { createMcpHandler, type McpHandler, mcpTasks } from "../../src/mcp/index.ts";
import { tasksTools } from "../support/tasks-tools.ts";
import { StoreObject, sharedStore } from "./shared-store.ts";

interface Env {
  STORE: DurableObjectNamespace<TaskStore>;
}

/** The records' store, shared by every isolate (`shared-store.ts`). */
export class TaskStore extends StoreObject {}

function taskStore(env: Env): Store {
  return sharedStore(env.STORE, "tasks");
}

// The tasks tools (test/support/tasks-tools.ts, web standards only), of which this Worker serves
// `wait`. What it saw is kept in memory: once the task's run settles, its `waitUntil` ends and
// any I/O the tool still has under way is cut off.
const { tools, seen } = tasksTools();

function handlerFor(env: Env): McpHandler {
  return createMcpHandler(Toolset.local([tools.wait]), {
    name: "tasks-worker",
    version: "1.0.0",
    tasks: mcpTasks({ store: taskStore(env), checkIntervalMs: 50, pollIntervalMs: 100 }),
  });
}

let handler: McpHandler | undefined;

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> | Response {
    handler ??= handlerFor(env);
    if (new URL(request.url).pathname === "/aborted") {
      return Response.json({ aborted: seen.aborted.map(String) });
    }
    // The Worker's context: the task's run is handed to `ctx.waitUntil`.
    return handler.fetch(request, env, ctx);
  },
};
