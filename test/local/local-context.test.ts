import * as v from "valibot";
import { describe, expect, test } from "vitest";
import type { ToolName } from "../../src/declaration/tool-name.ts";
import type { ToolLog, ToolProgress } from "../../src/execution/handler-io.ts";
import type { ToolInteractionKind } from "../../src/interaction/interaction-request.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { type ContextPort, LocalContext } from "../../src/local/local-context.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import type { ToolContext } from "../../src/local/tool-context.ts";
import { caught } from "../support/caught.ts";

const REPLY = { role: "assistant", content: { type: "text", text: "Hi" }, model: "m" } as const;

// A port that records what the context asks of its handler.
function recordingPort() {
  const seen = {
    signals: 0,
    progress: [] as ToolProgress[],
    logs: [] as ToolLog[],
    asks: [] as { prompt: string; kind: ToolInteractionKind }[],
  };
  const controller = new AbortController();
  const port: ContextPort = {
    "~signal": () => {
      seen.signals += 1;
      return controller.signal;
    },
    "~progress": (update) => seen.progress.push(update),
    "~log": (log) => seen.logs.push(log),
    "~ask": async (prompt, kind) => {
      seen.asks.push({ prompt, kind });
      if (kind.type === "sampling") return { ...REPLY, extra: "dropped" };
      return kind.type === "text" ? "answer" : { ok: true };
    },
  };
  return { port, seen, controller };
}

const name = "probe" as ToolName;

describe("LocalContext", () => {
  test("its functions work when destructured, detached from the context", async () => {
    const { port, seen } = recordingPort();
    const { progress, log, requestText, requestForm } = new LocalContext(port, name, "c-1", true);
    progress({ progress: 1, total: 2 });
    log("info", "hello");
    log("warning", { left: 1 }, "quota");
    expect(await requestText("City?")).toBe("answer");
    expect(await requestForm("Who?", { type: "object" })).toEqual({ ok: true });
    expect(seen.progress).toEqual([{ progress: 1, total: 2 }]);
    expect(seen.logs).toEqual([
      { level: "info", data: "hello" },
      { level: "warning", data: { left: 1 }, logger: "quota" },
    ]);
    expect(seen.asks).toEqual([
      { prompt: "City?", kind: { type: "text", multiline: false } },
      {
        prompt: "Who?",
        kind: { type: "form", schema: { type: "object" }, schemaValidation: true },
      },
    ]);
  });

  test("asks for multiline text only when told, and forms without validation when undeclared", async () => {
    const { port, seen } = recordingPort();
    const ctx = new LocalContext(port, name, undefined, false);
    await ctx.requestText("Notes?", { multiline: true });
    await ctx.requestText("Line?", { multiline: "yes" as never });
    await ctx.requestForm("Form?", {});
    expect(seen.asks.map((a) => a.kind)).toEqual([
      { type: "text", multiline: true },
      { type: "text", multiline: false },
      { type: "form", schema: {}, schemaValidation: false },
    ]);
  });

  test("requestSampling works detached, asks with the last text as prompt, returns a clean reply", async () => {
    const { port, seen } = recordingPort();
    const { requestSampling } = new LocalContext(port, name, undefined, false);
    const messages = [
      { role: "user", content: { type: "text", text: "Summarise this" } },
      { role: "user", content: { type: "image", mimeType: "image/png", data: "AA==" } },
    ] as const;
    const reply = await requestSampling({
      messages: messages.slice(),
      maxTokens: 20,
      temperature: undefined as unknown as number,
      stopSequences: ["END"],
    });
    expect(reply).toEqual(REPLY);
    expect(seen.asks).toEqual([
      {
        prompt: "Summarise this",
        kind: { type: "sampling", messages, maxTokens: 20, stopSequences: ["END"] },
      },
    ]);
    // Hint: unset optional fields stay absent, so a caller sees only what the tool asked.
    expect("temperature" in (seen.asks[0]?.kind ?? {})).toBe(false);
    expect("systemPrompt" in (seen.asks[0]?.kind ?? {})).toBe(false);
  });

  test("hands out the same function on every read", () => {
    const ctx = new LocalContext(recordingPort().port, name, undefined, false);
    expect(ctx.progress).toBe(ctx.progress);
    expect(ctx.log).toBe(ctx.log);
    expect(ctx.requestText).toBe(ctx.requestText);
    expect(ctx.requestForm).toBe(ctx.requestForm);
    expect(ctx.requestSampling).toBe(ctx.requestSampling);
  });

  test("reads the signal from the handler only when the tool reads it", () => {
    const { port, seen, controller } = recordingPort();
    const ctx = new LocalContext(port, name, undefined, false);
    expect(seen.signals).toBe(0);
    expect(ctx.signal).toBe(controller.signal);
    expect(seen.signals).toBe(1);
  });

  test("carries the tool's name, and a call id only when there is one", () => {
    const { port } = recordingPort();
    const withId = new LocalContext(port, name, "c-9", false);
    const withoutId = new LocalContext(port, name, undefined, false);
    expect(withId.toolName).toBe("probe");
    expect(withId.callId).toBe("c-9");
    expect("callId" in withoutId).toBe(false);
  });

  test("its signal, read late through a real handler, is already aborted after a cancel", async () => {
    let ctx: ToolContext | undefined;
    let release: () => void = () => {};
    let started: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler = new LocalHandler(
      defineTool({
        name: "late",
        description: "Reads its signal only after being cancelled",
        input: v.object({}),
        call: async (_input, context) => {
          ctx = context;
          started();
          await held;
          return "done";
        },
      }),
    );
    const invoke = handler.step({ type: "invoke", arguments: {} });
    await running;
    const cancel = handler.step({ type: "cancel", reason: "stop" });
    expect((await caught(invoke)).type).toBe("cancelled");
    expect((await caught(cancel)).type).toBe("cancelled");
    release();
    expect(ctx?.signal.aborted).toBe(true);
    expect(ctx?.signal.reason).toMatchObject({ type: "cancelled", reason: "stop" });
  });

  test("forwards progress and logs to the step's listeners through a real handler", async () => {
    const progress: ToolProgress[] = [];
    const logs: ToolLog[] = [];
    const handler = new LocalHandler(
      defineTool({
        name: "reports",
        description: "Reports while it runs",
        input: v.object({}),
        call: (_input, { progress: report, log }) => {
          report({ progress: 1, message: "half" });
          log("debug", "detail", "inner");
          return "ok";
        },
      }),
    );
    await handler.step(
      { type: "invoke", arguments: {} },
      { onProgress: (p) => progress.push(p), onLog: (l) => logs.push(l) },
    );
    expect(progress).toEqual([{ progress: 1, message: "half" }]);
    expect(logs).toEqual([{ level: "debug", data: "detail", logger: "inner" }]);
  });
});
