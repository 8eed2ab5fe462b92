// The toolset the MCP round-trip tests serve with createMcpHandler and call back through
// connectMcp. Web standards only: the portable suite uses it in every runtime.
import * as v from "valibot";
import { defineTool, type TaskSupport, type Tool, ToolResult, Toolset } from "../../src/index.ts";
import { createMcpHandler, type McpHandler, type McpHandlerOptions } from "../../src/mcp/index.ts";

/** What the served tools saw, for assertions. */
export interface RoundTripObserved {
  /** Resolves once `wait` runs. */
  readonly started: Promise<void>;
  /** Resolves with `ctx.signal.reason` once `wait`'s signal fires on the server. */
  readonly aborted: Promise<unknown>;
}

/** The round-trip server: its handler and what its tools observed. */
export interface RoundTripServer {
  readonly handler: McpHandler;
  readonly observed: RoundTripObserved;
}

/** What `waitTool` takes: how the tool runs as a task, and what to tell when. */
export interface WaitToolOptions {
  /** The tool's `taskSupport`; none by default. */
  taskSupport?: TaskSupport;
  /** Called each time the tool starts running, once it listens for the abort. */
  onStart?: () => void;
  /** Called with `ctx.signal.reason` when the running tool's signal aborts. */
  onAbort?: (reason: unknown) => void;
}

/**
 * Creates `wait`: it runs until its signal aborts, then rejects with the signal's reason. The
 * tool a cancel has to reach, in the round trip and in the tasks tests (`tasks-tools.ts`).
 *
 * @param options Its task support and the callbacks that observe it.
 * @returns The tool.
 */
export function waitTool(options: WaitToolOptions = {}): Tool<Record<string, never>> {
  return defineTool({
    name: "wait",
    description: "Waits until cancelled",
    ...(options.taskSupport ? { taskSupport: options.taskSupport } : {}),
    input: v.object({}),
    call: (_input, ctx) =>
      new Promise((_resolve, reject) => {
        ctx.signal.addEventListener(
          "abort",
          () => {
            options.onAbort?.(ctx.signal.reason);
            reject(ctx.signal.reason);
          },
          { once: true },
        );
        options.onStart?.();
      }),
  });
}

/**
 * Creates the round-trip server: `echo`, `add` (with an output schema), `fail` (an `isError`
 * result), `work` (progress and logs), `wait` (until cancelled) and `ask` (a form question).
 *
 * @param options Handler options over the defaults (`interactionPolicy: "elicit"`).
 * @returns The server.
 */
export function roundTripServer(options: Partial<McpHandlerOptions> = {}): RoundTripServer {
  let onStart: () => void = () => {};
  let onAbort: (reason: unknown) => void = () => {};
  const observed: RoundTripObserved = {
    started: new Promise((resolve) => {
      onStart = resolve;
    }),
    aborted: new Promise((resolve) => {
      onAbort = resolve;
    }),
  };
  const toolset = Toolset.local([
    defineTool({
      name: "echo",
      description: "Echoes a message",
      readOnly: true,
      input: v.object({ message: v.string() }),
      call: ({ message }) => `echo: ${message}`,
    }),
    defineTool({
      name: "add",
      description: "Adds two numbers",
      readOnly: true,
      input: v.object({ a: v.number(), b: v.number() }),
      output: v.object({ sum: v.number() }),
      call: ({ a, b }) => ({ sum: a + b }),
    }),
    defineTool({
      name: "fail",
      description: "Fails as a tool",
      input: v.object({}),
      call: () => ToolResult.error("record not found"),
    }),
    defineTool({
      name: "work",
      description: "Reports progress and logs",
      input: v.object({ steps: v.number() }),
      call: async ({ steps }, ctx) => {
        for (let step = 1; step <= steps; step++) {
          ctx.progress({ progress: step, total: steps });
          ctx.log("info", `step ${step}`, "work");
          await Promise.resolve();
        }
        return `worked ${steps}`;
      },
    }),
    waitTool({ onStart, onAbort }),
    defineTool({
      name: "ask",
      description: "Asks for a name",
      input: v.object({}),
      interactions: { form: true },
      call: async (_input, ctx) => {
        const form = await ctx.requestForm("Your name?", {
          type: "object",
          properties: { name: { type: "string" } },
          required: ["name"],
        });
        return `Hello ${String(form.name)}`;
      },
    }),
  ]);
  const handler = createMcpHandler(toolset, {
    name: "round-trip",
    version: "1.0.0",
    interactionPolicy: "elicit",
    ...options,
  });
  return { handler, observed };
}
