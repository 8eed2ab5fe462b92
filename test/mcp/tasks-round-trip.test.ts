// toolwire's client against toolwire's server with MCP Tasks, with the options a user leaves
// out: `connectMcp` picks the protocol itself ("auto"), `mcpTasks()` keeps records in memory.
// A task-only tool can only be answered as a task (without one the server refuses it with
// -32021), so each call here that succeeds went through the Tasks extension end to end: the
// handle, `tasks/get` polling, questions through `tasks/update`, and `tasks/cancel`.
import * as v from "valibot";
import { afterEach, describe, expect, it } from "vitest";
import { defineTool, InteractionResponse, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler, mcpTasks } from "../../src/mcp/index.ts";
import { caught } from "../support/caught.ts";

const url = "http://127.0.0.1:3000/mcp";

function serve() {
  let started = () => {};
  const seen = {
    runs: 0,
    aborted: [] as unknown[],
    started: new Promise<void>((resolve) => {
      started = resolve;
    }),
  };
  const tools = [
    defineTool({
      name: "report",
      description: "Writes a report; runs only as a task",
      taskSupport: "required",
      input: v.object({ topic: v.string() }),
      call: ({ topic }) => {
        seen.runs++;
        return `report on ${topic}`;
      },
    }),
    defineTool({
      name: "confirm",
      description: "Asks before it goes on; runs only as a task",
      taskSupport: "required",
      input: v.object({}),
      interactions: { form: true },
      call: async (_input, ctx) => {
        const { ok } = await ctx.requestForm("Go on?", {
          type: "object",
          properties: { ok: { type: "boolean" } },
        });
        return ok === true ? "went on" : "stopped";
      },
    }),
    defineTool({
      name: "crawl",
      description: "Runs until cancelled; runs only as a task",
      taskSupport: "required",
      input: v.object({}),
      call: (_input, ctx) =>
        new Promise((_resolve, reject) => {
          started();
          ctx.signal.addEventListener("abort", () => {
            seen.aborted.push(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
        }),
    }),
  ];
  const handler = createMcpHandler(Toolset.local(tools), {
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
    expect(seen.runs).toBe(1);
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
    const call = toolset.call("crawl", {}, { signal: controller.signal });
    await seen.started;
    controller.abort();
    const error = await caught(call);
    expect(error).toMatchObject({ type: "cancelled" });
    await expect.poll(() => seen.aborted.length).toBe(1);
  });
});
