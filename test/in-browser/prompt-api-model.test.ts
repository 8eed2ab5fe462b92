import * as v from "valibot";
import { afterEach, describe, expect, test } from "vitest";
import { Agent, type ApprovalRequest } from "../../src/agent/index.ts";
import { type LoadProgressEvent, promptApiModel } from "../../src/in-browser/index.ts";
import { defineTool, ToolResult } from "../../src/index.ts";
import { isModelError, type ModelRequest } from "../../src/models/index.ts";
import { collect, textOf } from "../support/model-collect.ts";
import {
  installPromptApi,
  LanguageModelToolCall,
  LanguageModelToolSuccess,
} from "../support/prompt-api-stand-in.ts";

const user = (text: string): ModelRequest => ({
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
});

let remove = () => {};
afterEach(() => remove());

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

describe("promptApiModel", () => {
  test("fails with unsupported naming the Prompt API where the browser has no LanguageModel", async () => {
    const { error } = await collect(promptApiModel().stream(user("hi")));
    expect(isModelError(error, "unsupported")).toBe(true);
    expect(error).toMatchObject({ data: { missing: "the Prompt API" } });
  });

  test("fails with unsupported naming the built-in model when availability() is unavailable, asking with the create options", async () => {
    const stand = installPromptApi(() => ["never"], { availability: "unavailable" });
    remove = stand.remove;
    const model = promptApiModel();
    await expect(model.load()).rejects.toMatchObject({
      type: "unsupported",
      data: { missing: "the built-in model" },
    });
    expect(stand.availabilityCalls).toEqual([
      {
        expectedInputs: [{ type: "text", languages: ["en"] }],
        expectedOutputs: [{ type: "text", languages: ["en"] }],
      },
    ]);
  });

  test("downloads the model with progress events, then streams the answer with usage and the context window", async () => {
    const stand = installPromptApi(() => ["It is ", "sunny."], {
      availability: "downloadable",
      contextWindow: 4096,
    });
    remove = stand.remove;
    const model = promptApiModel();
    const progress: LoadProgressEvent[] = [];
    model.onProgress((event) => progress.push(event));
    const { events, error } = await collect(
      model.stream({ ...user("Weather?"), system: "Be brief." }),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("It is sunny.");
    expect(progress).toEqual([
      { type: "download", loaded: 0, total: 1 },
      { type: "download", loaded: 0, total: 1 },
      { type: "download", loaded: 0.5, total: 1 },
      { type: "download", loaded: 1, total: 1 },
      { type: "initialize" },
      { type: "ready" },
    ]);
    expect(model.contextWindow).toBe(4096);
    expect(events.filter((e) => e.type === "usage")).toEqual([
      { type: "usage", inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    ]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
    const turn = stand.sessions.at(-1);
    expect(turn?.options.initialPrompts).toEqual([{ role: "system", content: "Be brief." }]);
    expect(turn?.inputs).toEqual([[{ role: "user", content: "Weather?" }]]);
    expect(turn?.destroyed).toBe(true);
  });

  test("runs Chromium's open tool loop: the call comes back unexecuted, passes the approval gate, and its result goes back as a tool-response", async () => {
    const stand = installPromptApi(
      (_session, input) => {
        const last = (input as Array<{ content: unknown }>)[0]?.content;
        if (Array.isArray(last) && last[0]?.type === "tool-response") return ["Saved it."];
        return [
          "Saving.",
          {
            type: "tool-call",
            value: new LanguageModelToolCall({
              callID: "",
              name: "save_note",
              arguments: { text: "milk" },
            }),
          },
        ];
      },
      { toolClasses: true },
    );
    remove = stand.remove;
    const saved: string[] = [];
    const asked: ApprovalRequest[] = [];
    const agent = new Agent({
      model: promptApiModel(),
      tools: [saveNoteTool(saved)],
      approver: async (request) => {
        asked.push(request);
        return { type: "allow" };
      },
    });
    const result = await agent.run("Save milk").result;
    expect(asked.map((r) => [r.toolName, r.arguments])).toEqual([["save_note", { text: "milk" }]]);
    expect(saved).toEqual(["milk"]);
    expect(result.text).toBe("Saved it.");
    const [, first, second] = stand.sessions;
    expect(first?.options.tools).toEqual([
      {
        name: "save_note",
        description: "Saves a note. Needs approval.",
        inputSchema: expect.objectContaining({ type: "object" }),
      },
    ]);
    expect(first?.options.expectedOutputs).toEqual([
      { type: "text", languages: ["en"] },
      { type: "tool-call" },
    ]);
    // The second turn replays the call in the history and answers it with a real tool-response.
    const history = second?.options.initialPrompts as Array<{ role: string; content: unknown }>;
    const assistant = history.find((m) => m.role === "assistant")?.content as Array<{
      type: string;
      value: unknown;
    }>;
    expect(assistant[0]).toEqual({ type: "text", value: "Saving." });
    expect(assistant[1]?.type).toBe("tool-call");
    expect(assistant[1]?.value).toBeInstanceOf(LanguageModelToolCall);
    const response = (
      (second?.inputs ?? [])[0] as Array<{
        role: string;
        content: Array<{ type: string; value: unknown }>;
      }>
    )[0];
    expect(response?.role).toBe("user");
    expect(response?.content[0]?.type).toBe("tool-response");
    expect(response?.content[0]?.value).toBeInstanceOf(LanguageModelToolSuccess);
    expect(response?.content[0]?.value).toMatchObject({
      name: "save_note",
      result: [{ type: "text", value: "Saved: milk" }],
    });
  });

  test("without the tool-use classes, describes the tools in the system prompt and reads the fenced call the model writes, streaming no markup", async () => {
    const stand = installPromptApi((session) =>
      session.index === 1
        ? [
            "Let me save it.\n```tool",
            '_call\n{"name": "save_note", "arguments": {"text": "eggs"}}\n```',
          ]
        : ["Done."],
    );
    remove = stand.remove;
    const saved: string[] = [];
    const agent = new Agent({
      model: promptApiModel(),
      tools: [saveNoteTool(saved)],
      approver: async () => ({ type: "allow" }),
    });
    const run = agent.run("Save eggs");
    const deltas: string[] = [];
    for await (const event of run) if (event.type === "text_delta") deltas.push(event.text);
    const result = await run.result;
    expect(saved).toEqual(["eggs"]);
    expect(result.text).toBe("Done.");
    expect(deltas.join("")).not.toContain("```");
    const system = JSON.stringify(stand.sessions[1]?.options.initialPrompts);
    expect(system).toContain('\\"name\\":\\"save_note\\"');
    expect(stand.sessions[1]?.options.tools).toBeUndefined();
    const replay = JSON.stringify(stand.sessions[2]?.options.initialPrompts);
    expect(replay).toContain("tool_call");
    expect(JSON.stringify(stand.sessions[2]?.inputs)).toContain("tool_result");
  });

  test("toolChoice required without the classes constrains the answer to one call's JSON with responseConstraint", async () => {
    const stand = installPromptApi(() => [
      '{"name": "get_weather", ',
      '"arguments": {"city": "Paris"}}',
    ]);
    remove = stand.remove;
    const request: ModelRequest = {
      ...user("Weather in Paris?"),
      tools: [
        {
          name: "get_weather",
          inputSchema: {
            type: "object",
            properties: { city: { type: "string" } },
            required: ["city"],
          },
        },
      ],
      toolChoice: "required",
    };
    const { events } = await collect(promptApiModel().stream(request));
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" } },
    ]);
    expect(textOf(events)).toBe("");
    expect(stand.sessions.at(-1)?.promptOptions[0]?.responseConstraint).toEqual({
      type: "object",
      properties: { name: { const: "get_weather" }, arguments: request.tools[0]?.inputSchema },
      required: ["name", "arguments"],
      additionalProperties: false,
    });
  });

  test("aborting mid-stream reaches the session and fails the turn with cancelled", async () => {
    const stand = installPromptApi(() => Array.from({ length: 1000 }, () => "word "));
    remove = stand.remove;
    const abort = new AbortController();
    const reader = promptApiModel().stream(user("ramble"), { signal: abort.signal }).getReader();
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
    expect(
      (stand.sessions.at(-1)?.promptOptions[0]?.signal as AbortSignal | undefined)?.aborted,
    ).toBe(true);
    expect(stand.sessions.at(-1)?.destroyed).toBe(true);
  });

  test("maps a NotSupportedError from create() to unsupported", async () => {
    const stand = installPromptApi(() => [], {
      createError: new DOMException(
        "The model was available but there was not an execution config available for the feature.",
        "NotSupportedError",
      ),
    });
    remove = stand.remove;
    await expect(promptApiModel().load()).rejects.toMatchObject({
      type: "unsupported",
      data: { missing: "the built-in model" },
    });
  });
});
