import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { Agent } from "../../src/agent/index.ts";
import { type LoadProgressEvent, webLlmModel } from "../../src/in-browser/index.ts";
import { defineTool, ToolResult } from "../../src/index.ts";
import { isModelError, type ModelRequest } from "../../src/models/index.ts";
import { collect, textOf } from "../support/model-collect.ts";
import { webLlmStandIn } from "../support/web-llm-stand-in.ts";

const user = (text: string): ModelRequest => ({
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
});

const weather = {
  name: "get_weather",
  description: "Weather for a city",
  inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function saveNoteTool(saved: string[]) {
  return defineTool({
    name: "save_note",
    description: "Saves a note. Needs approval.",
    input: v.object({ text: v.string() }),
    call: ({ text }) => {
      saved.push(text);
      return ToolResult.text(`Saved: ${text}`);
    },
  });
}

describe("webLlmModel", () => {
  test("fails with unsupported naming WebGPU where the browser has none", async () => {
    const { error } = await collect(
      webLlmModel({ model: "Qwen3-0.6B-q4f32_1-MLC" }).stream(user("hi")),
    );
    expect(isModelError(error, "unsupported")).toBe(true);
    expect(error).toMatchObject({ data: { missing: "WebGPU" } });
  });

  test("loads the model into the engine with download then initialize progress, and streams text and usage", async () => {
    const stand = webLlmStandIn(() => ({ text: ["Hello", " there"] }));
    const model = webLlmModel({ model: "Qwen3-0.6B-q4f32_1-MLC", engine: stand.engine });
    const progress: LoadProgressEvent[] = [];
    model.onProgress((event) => progress.push(event));
    const { events, error } = await collect(model.stream({ ...user("hi"), system: "Be brief." }));
    expect(error).toBeUndefined();
    expect(stand.reloads).toEqual(["Qwen3-0.6B-q4f32_1-MLC"]);
    expect(progress.map((e) => e.type)).toEqual([
      "download",
      "download",
      "initialize",
      "initialize",
      "ready",
    ]);
    expect(progress[1]).toEqual({ type: "download", loaded: 0.5, total: 1 });
    expect(textOf(events)).toBe("Hello there");
    expect(events.slice(-2)).toEqual([
      { type: "usage", inputTokens: 12, outputTokens: 5 },
      { type: "finish", reason: "stop" },
    ]);
    expect(stand.requests[0]).toMatchObject({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  test("a Qwen3 model learns the tools from the system prompt; its <tool_call> text becomes a call through the approval gate, and the result goes back as <tool_response>", async () => {
    const stand = webLlmStandIn((_, call) =>
      call === 0
        ? {
            text: [
              "<think>\n\n</think>\n\n",
              "<tool_",
              'call>\n{"name": "save_note", ',
              '"arguments": {"text": "milk"}}\n</tool_call>',
            ],
          }
        : { text: ["Saved."] },
    );
    const saved: string[] = [];
    const approvals: string[] = [];
    const agent = new Agent({
      model: webLlmModel({ model: "Qwen3-0.6B-q4f32_1-MLC", engine: stand.engine }),
      tools: [saveNoteTool(saved)],
      approver: async (request) => {
        approvals.push(request.toolName);
        return { type: "allow" };
      },
    });
    const run = agent.run("Save milk");
    const texts: string[] = [];
    for await (const event of run) if (event.type === "text_delta") texts.push(event.text);
    const result = await run.result;
    expect(approvals).toEqual(["save_note"]);
    expect(saved).toEqual(["milk"]);
    expect(result.text).toBe("Saved.");
    expect(texts.join("")).not.toContain("tool_call");
    expect(stand.requests[0]?.tools).toBeUndefined();
    const messages = stand.requests[1]?.messages as Array<{ role: string; content: string }>;
    expect(messages[0]?.content).toContain("<tools>");
    expect(messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "user"]);
    expect(messages[2]?.content).toContain(
      '<tool_call>\n{"name":"save_note","arguments":{"text":"milk"}}\n</tool_call>',
    );
    expect(messages[3]?.content).toBe("<tool_response>\nSaved: milk\n</tool_response>");
  });

  test("a Hermes model uses WebLLM's native tools, with the system prompt folded into the first user turn", async () => {
    const stand = webLlmStandIn(() => ({
      toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }],
    }));
    const model = webLlmModel({ model: "Hermes-3-Llama-3.1-8B-q4f32_1-MLC", engine: stand.engine });
    const { events } = await collect(
      model.stream({ ...user("Weather?"), system: "Be brief.", tools: [weather] }),
    );
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "call_0", name: "get_weather", arguments: { city: "Paris" } },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
    expect(stand.requests[0]).toMatchObject({
      messages: [{ role: "user", content: "Be brief.\n\nWeather?" }],
      tools: [
        { type: "function", function: { name: "get_weather", parameters: weather.inputSchema } },
      ],
      tool_choice: "auto",
    });
  });

  test("toolChoice required constrains a prompted model's answer with a json_object schema of the call", async () => {
    const stand = webLlmStandIn(() => ({
      text: ['{"name": "get_weather", "arguments": {"city": "Oslo"}}'],
    }));
    const model = webLlmModel({ model: "Llama-3.2-1B-Instruct-q4f32_1-MLC", engine: stand.engine });
    const { events } = await collect(
      model.stream({ ...user("Weather?"), tools: [weather], toolChoice: "required" }),
    );
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    const format = stand.requests[0]?.response_format as { type: string; schema: string };
    expect(format.type).toBe("json_object");
    expect(JSON.parse(format.schema)).toEqual({
      type: "object",
      properties: { name: { const: "get_weather" }, arguments: weather.inputSchema },
      required: ["name", "arguments"],
      additionalProperties: false,
    });
  });

  test("aborting mid-stream interrupts the engine and fails the turn with cancelled", async () => {
    const stand = webLlmStandIn(() => ({ text: Array.from({ length: 500 }, () => "word ") }));
    const model = webLlmModel({ model: "Qwen3-0.6B-q4f32_1-MLC", engine: stand.engine });
    const abort = new AbortController();
    const reader = model.stream(user("ramble"), { signal: abort.signal }).getReader();
    await reader.read();
    abort.abort();
    const error = await (async () => {
      try {
        for (let r = await reader.read(); !r.done; r = await reader.read()) {}
      } catch (e) {
        return e;
      }
    })();
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(stand.interrupts()).toBe(1);
  });
});
