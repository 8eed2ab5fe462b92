// The tools the MCP Tasks tests serve, one set for all of them: the handler's own tests
// (test/mcp/server/tasks.test.ts), toolwire's client against it (test/mcp/tasks-round-trip.test.ts),
// the official SDK's client against it (test/mcp/server/tasks-interop.test.ts), a Worker whose
// isolates share the records (test/workerd/mcp-tasks-worker.ts) and a server process killed
// mid-task (test/node/fixtures/tasks-server.ts, test/node/mcp-tasks-restart.test.ts). Each
// serves the tools it needs. Web standards only: the Worker is bundled for workerd, which runs
// it without Node's APIs.
import * as v from "valibot";
import { defineTool, ToolError, ToolResult } from "../../src/index.ts";
import { waitTool } from "./round-trip-tools.ts";

/** What the tasks tools saw, for assertions. */
export interface TasksToolsSeen {
  /** How many times `report` ran. */
  reports: number;
  /** How many progress updates `quick` reported. */
  progressSent: number;
  /** How many times `asks_then_task` ran its `ctx.once` effect (a retry replays it). */
  onceRuns: number;
  /** The reasons `wait`'s signal aborted with, in order. */
  readonly aborted: unknown[];
  /** Resolves once `wait` first starts. */
  readonly started: Promise<void>;
}

/**
 * Creates the tasks tools, keyed by their names, and what they saw. Task support: `plain` none,
 * `only_task`, `wait`, `report` and `confirm` required, the others optional.
 *
 * - `quick`: reports progress and a log, then answers `quick: <text>` (`text` defaults to "done").
 * - `plain`: answers "plain".
 * - `only_task`: answers "ran as a task".
 * - `tool_error`: an `isError` result, "the tool failed".
 * - `protocol_error`: throws `unknown_tool` ("Unknown tool: upstream", JSON-RPC -32602).
 * - `wait`: runs until cancelled (`waitTool`).
 * - `two_questions`: asks "First?" and "Second?" at once, then "First?" again; answers the three
 *   `value`s joined by spaces.
 * - `asks_then_task`: runs a `ctx.once` effect, asks "Your name?", answers
 *   `Hello <name> after 1 step`.
 * - `huge`: answers 5000 characters.
 * - `report`: takes a moment (50 ms), then answers `report on <topic>`.
 * - `confirm`: asks "Go on?" (`ok`, a boolean); answers "went on" when it is true, else "stopped".
 *
 * @returns The tools and what they saw.
 */
export function tasksTools() {
  let started = () => {};
  const seen: TasksToolsSeen = {
    reports: 0,
    progressSent: 0,
    onceRuns: 0,
    aborted: [],
    started: new Promise<void>((resolve) => {
      started = resolve;
    }),
  };
  const tools = {
    quick: defineTool({
      name: "quick",
      description: "Answers at once; a task when the client takes one",
      taskSupport: "optional",
      input: v.object({ text: v.optional(v.string(), "done") }),
      call: ({ text }, ctx) => {
        ctx.progress({ progress: 1, total: 1 });
        ctx.log("info", "working");
        seen.progressSent++;
        return `quick: ${text}`;
      },
    }),
    plain: defineTool({
      name: "plain",
      description: "Never a task",
      input: v.object({}),
      call: () => "plain",
    }),
    only_task: defineTool({
      name: "only_task",
      description: "Runs only as a task",
      taskSupport: "required",
      input: v.object({}),
      call: () => "ran as a task",
    }),
    tool_error: defineTool({
      name: "tool_error",
      description: "Fails as a tool",
      taskSupport: "optional",
      input: v.object({}),
      call: () => ToolResult.error("the tool failed"),
    }),
    protocol_error: defineTool({
      name: "protocol_error",
      description: "Fails with a JSON-RPC error",
      taskSupport: "optional",
      input: v.object({}),
      call: () => {
        throw new ToolError({ type: "unknown_tool", name: "upstream" });
      },
    }),
    wait: waitTool({
      taskSupport: "required",
      onStart: () => started(),
      onAbort: (reason) => seen.aborted.push(reason),
    }),
    two_questions: defineTool({
      name: "two_questions",
      description: "Asks two questions at once, then a third",
      taskSupport: "optional",
      input: v.object({}),
      interactions: { form: true },
      call: async (_input, ctx) => {
        const form = { type: "object", properties: { value: { type: "string" } } };
        const [a, b] = await Promise.all([
          ctx.requestForm("First?", form),
          ctx.requestForm("Second?", form),
        ]);
        const c = await ctx.requestForm("First?", form);
        return `${String(a.value)} ${String(b.value)} ${String(c.value)}`;
      },
    }),
    asks_then_task: defineTool({
      name: "asks_then_task",
      description: "Asks a name in the request, then continues as a task",
      taskSupport: "optional",
      input: v.object({}),
      interactions: { form: true },
      call: async (_input, ctx) => {
        const steps = await ctx.once("count", () => {
          seen.onceRuns++;
          return 1;
        });
        const { name } = await ctx.requestForm("Your name?", {
          type: "object",
          properties: { name: { type: "string" } },
        });
        return `Hello ${String(name)} after ${steps} step`;
      },
    }),
    huge: defineTool({
      name: "huge",
      description: "Returns a large result",
      taskSupport: "optional",
      input: v.object({}),
      call: () => "x".repeat(5000),
    }),
    report: defineTool({
      name: "report",
      description: "Writes a report; runs only as a task",
      taskSupport: "required",
      input: v.object({ topic: v.string() }),
      call: async ({ topic }) => {
        seen.reports++;
        // A moment of work, as a real report takes: a client may poll the task while it works.
        await new Promise((resolve) => setTimeout(resolve, 50));
        return `report on ${topic}`;
      },
    }),
    confirm: defineTool({
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
  };
  return { tools, seen };
}
