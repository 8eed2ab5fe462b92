// toolwire's client against toolwire's server with MCP Tasks, with the options a user leaves
// out: `connectMcp` picks the protocol itself ("auto"), `mcpTasks()` keeps records in memory.
// A task-only tool can only be answered as a task (without one the server refuses it with
// -32021), so each call here that succeeds went through the Tasks extension end to end: the
// handle, `tasks/get` polling, questions through `tasks/update`, and `tasks/cancel`.
import { afterEach, describe, expect, it } from "vitest";
import { InteractionResponse, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler, mcpTasks } from "../../src/mcp/index.ts";
import { caught } from "../support/caught.ts";
import { tasksTools } from "../support/tasks-tools.ts";

const url = "http://127.0.0.1:3000/mcp";

function serve() {
  const { tools, seen } = tasksTools();
  const handler = createMcpHandler(Toolset.local([tools.report, tools.confirm, tools.wait]), {
    name: "tasks",
    version: "1.0.0",
    // Short intervals keep the test quick; the defaults are 1 s and 200 ms.
    tasks: mcpTasks({ pollIntervalMs: 20, checkIntervalMs: 20 }),
  });
  return { handler, seen };
}

const open: Toolset[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((toolset) => toolset.shutdown()));
});

async function connect() {
  const { handler, seen } = serve();
  const toolset = await connectMcp({ url, fetch: handler.fetch });
  open.push(toolset);
  return { toolset, seen };
}

describe("connectMcp and createMcpHandler with tasks, default options", () => {
  it("lists a task-only tool and returns its result through a task, running it once", async () => {
    const { toolset, seen } = await connect();
    expect((await toolset.listTools()).map((tool) => tool.name)).toContain("report");
    const result = await toolset.call("report", { topic: "tides" });
    expect(result.isError).toBe(false);
    expect(result.content).toEqual([{ type: "text", text: "report on tides" }]);
    expect(seen.reports).toBe(1);
  });

  it("puts a task's question to onInteraction and resumes the task with the answer", async () => {
    const { toolset } = await connect();
    const asked: string[] = [];
    const result = await toolset.call(
      "confirm",
      {},
      {
        onInteraction: async (request) => {
          if (request.kind.type === "form") asked.push(request.prompt);
          return InteractionResponse.submit(request.id, { ok: true });
        },
      },
    );
    expect(asked).toEqual(["Go on?"]);
    expect(result.content).toEqual([{ type: "text", text: "went on" }]);
  });

  it("cancels the task when the caller aborts: the tool's signal aborts", async () => {
    const { toolset, seen } = await connect();
    const controller = new AbortController();
    const call = toolset.call("wait", {}, { signal: controller.signal });
    await seen.started;
    controller.abort();
    const error = await caught(call);
    expect(error).toMatchObject({ type: "cancelled" });
    await expect.poll(() => seen.aborted.length).toBe(1);
  });
});
