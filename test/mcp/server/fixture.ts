import * as v from "valibot";
import { defineTool, ToolResult, Toolset } from "../../../src/index.ts";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import {
  createMcpHandler,
  type McpHandler,
  type McpHandlerOptions,
} from "../../../src/mcp/index.ts";

/** What the fixture tools saw, for assertions. */
export interface Observed {
  /** Resolves with the abort reason once `wait`'s ctx.signal fires. */
  aborted: Promise<unknown>;
  /** Resolves once `wait` has started. */
  started: Promise<void>;
}

/** Creates the fixture toolset and the observations its tools report. */
export function fixtureToolset(): { toolset: Toolset; observed: Observed } {
  let onAbort: (reason: unknown) => void = () => {};
  let onStart: () => void = () => {};
  const observed: Observed = {
    aborted: new Promise((resolve) => {
      onAbort = resolve;
    }),
    started: new Promise((resolve) => {
      onStart = resolve;
    }),
  };
  const tools = [
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
      call: () => ToolResult.error("boom"),
    }),
    defineTool({
      name: "throws",
      description: "Throws a plain error",
      input: v.object({}),
      call: () => {
        throw new Error("kaput");
      },
    }),
    defineTool({
      name: "slow",
      description: "Reports progress",
      input: v.object({ steps: v.number() }),
      call: async ({ steps }, ctx) => {
        for (let i = 1; i <= steps; i++) {
          ctx.progress({ progress: i, total: steps, message: `step ${i}` });
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        return "done";
      },
    }),
    defineTool({
      name: "wait",
      description: "Waits until cancelled",
      input: v.object({}),
      call: (_, ctx) =>
        new Promise((_resolve, reject) => {
          onStart();
          ctx.signal.addEventListener("abort", () => {
            onAbort(ctx.signal.reason);
            reject(ctx.signal.reason);
          });
        }),
    }),
    defineTool({
      name: "ask",
      description: "Asks for a name",
      input: v.object({}),
      interactions: { form: true },
      call: async (_, ctx) => {
        try {
          const form = await ctx.requestForm("Your name?", {
            type: "object",
            properties: { name: { type: "string" } },
            required: ["name"],
          });
          return `Hello ${String(form.name)}`;
        } catch (error) {
          return `no name: ${(error as Error).message}`;
        }
      },
    }),
    defineTool({
      name: "ask_text",
      description: "Asks for a line of text",
      input: v.object({}),
      interactions: { text: true },
      call: async (_, ctx) => `got ${await ctx.requestText("Say something")}`,
    }),
    defineTool({
      name: "sample",
      description: "Asks the client's model to continue a prompt",
      input: v.object({ prompt: v.string() }),
      interactions: { sampling: true },
      call: async ({ prompt }, ctx) => {
        try {
          const reply = await ctx.requestSampling({
            messages: [{ role: "user", content: { type: "text", text: prompt } }],
            maxTokens: 50,
            systemPrompt: "Be brief.",
            temperature: 0.2,
            stopSequences: ["END"],
          });
          const text = reply.content.type === "text" ? reply.content.text : reply.content.type;
          return `${reply.model} said ${text} (${reply.stopReason ?? "no reason"})`;
        } catch (error) {
          return `no sample: ${(error as Error).message}`;
        }
      },
    }),
    defineTool({
      name: "two_questions",
      description: "Asks for a name, then a colour",
      input: v.object({}),
      interactions: { form: true },
      call: async (_, ctx) => {
        const field = (name: string) => ({
          type: "object",
          properties: { [name]: { type: "string" } },
          required: [name],
        });
        const { name } = await ctx.requestForm("Name?", field("name"));
        const { color } = await ctx.requestForm("Colour?", field("color"));
        return `${String(name)} likes ${String(color)}`;
      },
    }),
    defineTool({
      name: "logs",
      description: "Logs at info and at error",
      input: v.object({}),
      call: (_, ctx) => {
        ctx.log("info", "an info line");
        ctx.log("error", "an error line");
        return "logged";
      },
    }),
    defineTool({
      jsonSchemaValidator,
      name: "region",
      description: "Takes arguments a client mirrors into Mcp-Param headers",
      input: {
        jsonSchema: {
          type: "object",
          properties: {
            region: { type: "string", "x-mcp-header": "Region" },
            priority: { type: "integer", "x-mcp-header": "Priority" },
            note: { type: "string" },
          },
        },
      },
      call: (input) => `region call ${JSON.stringify(input)}`,
    }),
  ];
  return { toolset: Toolset.local(tools), observed };
}

/** Creates a handler over the fixture toolset. */
export function fixtureHandler(options: Partial<McpHandlerOptions> = {}): {
  handler: McpHandler;
  toolset: Toolset;
  observed: Observed;
} {
  const { toolset, observed } = fixtureToolset();
  const handler = createMcpHandler(toolset, { name: "fixture", version: "1.0.0", ...options });
  return { handler, toolset, observed };
}

/** The headers a well-behaved client sends. */
export const CLIENT_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  host: "127.0.0.1:3000",
} as const;

/** Builds a POST of a JSON value (or raw text) to the endpoint. */
export function post(
  body: unknown,
  headers: Record<string, string> = {},
  url = "http://127.0.0.1:3000/mcp",
): Request {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return new Request(url, {
    method: "POST",
    headers: { ...CLIENT_HEADERS, ...headers },
    body: text,
  });
}

/** Builds a JSON-RPC request. */
export function rpc(id: number | string, method: string, params?: Record<string, unknown>) {
  return params === undefined
    ? { jsonrpc: "2.0", id, method }
    : { jsonrpc: "2.0", id, method, params };
}

/**
 * `message` as JSON text with its `"<deep>"` string replaced by `levels` nested values, each
 * level an array (`[`) or an object (`{`), the innermost `0`: nesting this deep cannot be built
 * as an object and stringified without overflowing the stack.
 */
export function nestedText(message: unknown, levels: string | number): string {
  const kinds = typeof levels === "number" ? "[".repeat(levels) : levels;
  let open = "";
  let close = "";
  for (const kind of kinds) {
    open += kind === "{" ? '{"k":' : "[";
    close += kind === "{" ? "}" : "]";
  }
  const reversed = close.split("").reverse().join("");
  return JSON.stringify(message).replace('"<deep>"', () => `${open}0${reversed}`);
}

/**
 * Reads every SSE `data:` payload of a response as JSON; an empty one (a resumable stream's
 * priming event) carries no message and is skipped, as clients do.
 */
export async function sseMessages(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((event) => event.split("\n").find((line) => line.startsWith("data: ")))
    .filter((line): line is string => line !== undefined && line !== "data: ")
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

/** Reads a response's SSE `data:` payloads as JSON, one by one, while the stream stays open. */
export async function* streamEvents(response: Response): AsyncGenerator<Record<string, unknown>> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end >= 0) {
      const data = buffer
        .slice(0, end)
        .split("\n")
        .find((line) => line.startsWith("data: "));
      buffer = buffer.slice(end + 2);
      if (data && data !== "data: ") yield JSON.parse(data.slice(6));
      end = buffer.indexOf("\n\n");
    }
  }
}
