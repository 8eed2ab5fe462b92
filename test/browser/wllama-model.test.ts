// wllamaModel against the real runtime (@wllama/wllama 3.13, llama.cpp in WebAssembly) in
// headless Chromium, with GGUF models the test writes (test/support/tiny-gguf.ts): nothing is
// downloaded. One model instance per script; each load compiles the 10 MB WebAssembly.
import wasmUrl from "@wllama/wllama/esm/wasm/wllama.wasm?url";
import * as v from "valibot";
import { afterAll, describe, expect, test } from "vitest";
import { Agent, type AgentEvent, type ApprovalRequest } from "../../src/agent/index.ts";
import type { LoadProgressEvent } from "../../src/in-browser/index.ts";
import { wllamaModel } from "../../src/in-browser/index.ts";
import { defineTool, ToolResult } from "../../src/index.ts";
import type { ModelEvent, ModelRequest } from "../../src/models/index.ts";
import { isModelError } from "../../src/models/index.ts";
import { collect, textOf } from "../support/model-collect.ts";
import { tinyGguf } from "../support/tiny-gguf.ts";

const user = (text: string): ModelRequest => ({
  messages: [{ role: "user", content: [{ type: "text", text }] }],
  tools: [],
});

// After a user turn (the prompt ends in "\n") it calls save_note({"text": "save"}); after a
// tool result (the prompt ends in " ") it answers "ok". Where the grammar leaves a choice,
// the bigram ranking picks: `"` opens the note's text with "s", and so on.
const agentScript = {
  default: ["<tool_call>", "</tool_call>", "}", '"', "<|im_end|>"],
  after: {
    "<tool_call>": ["\n"],
    "</tool_call>": ["<|im_end|>"],
    '"': ["s"],
    s: ["a"],
    a: ["v"],
    v: ["e"],
    e: ['"'],
    " ": ["o"],
    o: ["k"],
    k: ["<|im_end|>"],
  },
};

const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
const models: Array<{ unload(): Promise<void> }> = [];
afterAll(async () => {
  for (const model of models) await model.unload();
});

describe("wllamaModel", () => {
  test("loads a GGUF from a URL with download, initialize and ready events, streams the answer with usage, and keeps the file cached for the next visit", async () => {
    const bytes = tinyGguf({ script: { default: ["o"], after: { o: ["k"], k: ["<|im_end|>"] } } });
    // The model's host, answered in the page: wllama asks for the size (HEAD), then the file.
    const url = `https://models.example/tiny-${Date.now()}.gguf`;
    const gets: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const target = input instanceof Request ? input.url : String(input);
      if (target !== url) return realFetch(input, init);
      const headers = {
        "content-length": String(bytes.length),
        "content-type": "application/octet-stream",
      };
      if (init?.method === "HEAD") return new Response(null, { headers });
      gets.push(target);
      return new Response(blob(bytes), { headers });
    };
    try {
      const model = wllamaModel({ model: url, wasmUrl });
      models.push(model);
      expect(model.id).toMatch(/^tiny-\d+$/);
      const progress: LoadProgressEvent[] = [];
      model.onProgress((event) => progress.push(event));
      const { events, error } = await collect(model.stream(user("hi")));
      expect(error).toBeUndefined();
      expect(textOf(events)).toBe("ok");
      expect(events.at(-1)).toEqual({ type: "finish", reason: "stop" });
      const usage = events.find((e) => e.type === "usage");
      expect(usage && usage.type === "usage" && usage.inputTokens).toBeGreaterThan(0);
      expect(usage && usage.type === "usage" && usage.outputTokens).toBeGreaterThan(0);
      const downloads = progress.filter((e) => e.type === "download");
      expect(downloads.at(-1)).toEqual({
        type: "download",
        loaded: bytes.length,
        total: bytes.length,
      });
      expect(progress.map((e) => e.type).filter((t, i, all) => t !== all[i - 1])).toEqual([
        "download",
        "initialize",
        "ready",
      ]);
      // A second turn reuses the loaded model: no new progress.
      const before = progress.length;
      expect(textOf((await collect(model.stream(user("again")))).events)).toBe("ok");
      expect(progress.length).toBe(before);
      expect(gets).toHaveLength(1);
      // The next visit (a new model object) reads the file from the browser's cache.
      await model.unload();
      const again = wllamaModel({ model: url, wasmUrl });
      models.push(again);
      expect(textOf((await collect(again.stream(user("hi")))).events)).toBe("ok");
      expect(gets).toHaveLength(1);
    } finally {
      globalThis.fetch = realFetch;
    }
  }, 90_000);

  test("streams a rambling model token by token, stops mid-stream on abort with ModelError cancelled, and answers the next turn", async () => {
    // "ababab…" until the bound: it never ends by itself.
    const endless = { default: ["a"], after: { a: ["b"], b: ["a"] } };
    const model = wllamaModel({
      model: blob(tinyGguf({ script: endless })),
      wasmUrl,
      maxTokens: 4000,
    });
    models.push(model);
    const abort = new AbortController();
    const reader = model.stream(user("ramble"), { signal: abort.signal }).getReader();
    const seen: ModelEvent[] = [];
    while (seen.filter((e) => e.type === "text_delta").length < 5) {
      const { value, done } = await reader.read();
      expect(done).toBe(false);
      if (value) seen.push(value);
    }
    abort.abort();
    const error = await reader.read().then(
      async function drain(r): Promise<unknown> {
        return r.done ? undefined : reader.read().then(drain);
      },
      (e: unknown) => e,
    );
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(seen.some((e) => e.type === "finish")).toBe(false);
    expect(textOf(seen).slice(0, 5)).toBe("ababa");
    // The runtime is still usable: a short bounded turn completes.
    const next = await collect(model.stream({ ...user("again"), maxTokens: 3 }));
    expect(next.error).toBeUndefined();
    expect(next.events.at(-1)).toEqual({ type: "finish", reason: "length" });
  }, 60_000);

  test("a pre-aborted signal fails the turn with cancelled before anything loads", async () => {
    const model = wllamaModel({ model: blob(tinyGguf()), wasmUrl });
    const progress: LoadProgressEvent[] = [];
    model.onProgress((event) => progress.push(event));
    const { events, error } = await collect(
      model.stream(user("hi"), { signal: AbortSignal.abort() }),
    );
    expect(events).toEqual([]);
    expect(isModelError(error, "cancelled")).toBe(true);
    await expect(model.load({ signal: AbortSignal.abort() })).rejects.toMatchObject({
      type: "cancelled",
    });
    expect(progress).toEqual([]);
  });

  test("toolChoice required makes even a random-weight model answer with one call that fits the tool's schema", async () => {
    const model = wllamaModel({ model: blob(tinyGguf({ seed: 3 })), wasmUrl, temperature: 0 });
    models.push(model);
    const request: ModelRequest = {
      ...user("What is the weather?"),
      tools: [
        {
          name: "get_weather",
          description: "Weather for a city",
          inputSchema: {
            type: "object",
            properties: {
              city: { type: "string", enum: ["Paris", "Tokyo"] },
              days: { type: "integer", minimum: 1, maximum: 7 },
            },
            required: ["city", "days"],
          },
        },
        { name: "get_time", inputSchema: { type: "object", properties: {}, required: [] } },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
    };
    const { events, error } = await collect(model.stream(request));
    expect(error).toBeUndefined();
    const calls = events.filter((e) => e.type === "tool_call");
    expect(calls).toHaveLength(1);
    const call = calls[0] as Extract<ModelEvent, { type: "tool_call" }>;
    expect(call.name).toBe("get_weather");
    const args = call.arguments as { city: string; days: number };
    expect(["Paris", "Tokyo"]).toContain(args.city);
    expect(Number.isInteger(args.days) && args.days >= 1 && args.days <= 7).toBe(true);
    expect(textOf(events)).toBe("");
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool_calls" });
  }, 60_000);

  test("drives an Agent through a grammar-constrained call, the approval gate, the tool and the answer", async () => {
    const model = wllamaModel({ model: blob(tinyGguf({ script: agentScript })), wasmUrl });
    models.push(model);
    const saved: string[] = [];
    const saveNote = defineTool({
      name: "save_note",
      description: "Saves a note. Needs approval.",
      input: v.object({ text: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) }),
      call: ({ text }) => {
        saved.push(text);
        return ToolResult.text(`Saved: ${text}`);
      },
    });
    const clock = defineTool({
      name: "clock",
      description: "The time",
      readOnly: true,
      input: v.object({}),
      call: () => "noon",
    });
    const asked: ApprovalRequest[] = [];
    const agent = new Agent({
      model,
      tools: [clock, saveNote],
      approver: async (request) => {
        asked.push(request);
        return { type: "allow" };
      },
    });
    const run = agent.run("Save a note");
    const events: AgentEvent[] = [];
    for await (const event of run) events.push(event);
    const result = await run.result;
    expect(asked.map((r) => [r.toolName, r.arguments])).toEqual([["save_note", { text: "save" }]]);
    expect(saved).toEqual(["save"]);
    expect(result.stop).toBe("done");
    expect(result.text).toBe("ok");
    expect(events.map((e) => e.type)).toContain("tool_result");
  }, 60_000);

  test("a failed download is ModelError http, with no token from the model URL in it", async () => {
    const url = "https://user:pa55word@models.example/private.gguf?token=hf_s3cret";
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const target = input instanceof Request ? input.url : String(input);
      if (!target.startsWith("https://user:") && !target.includes("models.example")) {
        return realFetch(input, init);
      }
      return new Response("no", { status: 401 });
    };
    try {
      const model = wllamaModel({ model: url, wasmUrl, cache: false });
      const error = await model.load().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isModelError(error, "http")).toBe(true);
      const text = JSON.stringify(error) + String((error as Error).message);
      expect(text).not.toContain("hf_s3cret");
      expect(text).not.toContain("pa55word");
    } finally {
      globalThis.fetch = realFetch;
    }
  }, 60_000);

  test("a prompt longer than the context window fails the turn with context_overflow, which compaction can act on", async () => {
    const model = wllamaModel({ model: blob(tinyGguf()), wasmUrl, contextWindow: 256 });
    models.push(model);
    expect(model.contextWindow).toBe(256);
    const { events, error } = await collect(model.stream(user("x".repeat(1000))));
    expect(events).toEqual([]);
    expect(isModelError(error, "context_overflow")).toBe(true);
  }, 60_000);

  test("fails with unsupported naming JSPI where WebAssembly.Suspending is missing", async () => {
    const wasm = WebAssembly as unknown as Record<string, unknown>;
    const suspending = wasm.Suspending;
    delete wasm.Suspending;
    try {
      const model = wllamaModel({ model: blob(tinyGguf()), wasmUrl });
      const { error } = await collect(model.stream(user("hi")));
      expect(isModelError(error, "unsupported")).toBe(true);
      expect(error).toMatchObject({ data: { missing: "WebAssembly JSPI" } });
    } finally {
      wasm.Suspending = suspending;
    }
  });
});
