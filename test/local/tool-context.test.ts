import * as v from "valibot";
import { describe, expect, test } from "vitest";
import type { ToolHandlerOutput, ToolLog, ToolProgress } from "../../src/execution/handler-io.ts";
import type { ToolInteractionRequest } from "../../src/interaction/interaction-request.ts";
import { InteractionResponse } from "../../src/interaction/interaction-response.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import {
  type DefineToolOptions,
  defineTool,
  type ToolContext,
} from "../../src/local/define-tool.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import type { SchemaInput } from "../../src/schema/schema-input.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";

// What a running local tool sees in its context (design.md T7, T8).

type Options = Partial<DefineToolOptions<SchemaInput>>;

function handlerFor(call: DefineToolOptions<SchemaInput>["call"], extra: Options = {}) {
  return new LocalHandler(
    defineTool({
      name: "probe",
      description: "d",
      input: v.unknown(),
      jsonSchemaValidator,
      ...extra,
      call,
    }),
  );
}

function asked(output: ToolHandlerOutput): ToolInteractionRequest {
  if (output.type !== "interaction") throw new Error(`expected an interaction, got ${output.type}`);
  return output.request;
}

const submit = (request: ToolInteractionRequest, content: unknown) =>
  ({ type: "interaction", response: InteractionResponse.submit(request.id, content) }) as const;

describe("ToolContext", () => {
  test("its functions work when destructured, detached from the context", async () => {
    const progress: ToolProgress[] = [];
    const logs: ToolLog[] = [];
    const handler = handlerFor(
      async (_input, { progress: report, log, requestText, requestForm }) => {
        report({ progress: 1, total: 2 });
        log("info", "hello");
        log("warning", { left: 1 }, "quota");
        const city = await requestText("City?");
        const form = await requestForm("Who?", { type: "object" });
        return `${city}/${JSON.stringify(form)}`;
      },
      { interactions: { text: true, form: true, formSchemaValidation: true } },
    );
    const listeners = {
      onProgress: (p: ToolProgress) => progress.push(p),
      onLog: (l: ToolLog) => logs.push(l),
    };
    const text = asked(await handler.step({ type: "invoke", arguments: {} }, listeners));
    expect(text).toMatchObject({ prompt: "City?", kind: { type: "text", multiline: false } });
    const form = asked(await handler.step(submit(text, "Oslo")));
    expect(form).toMatchObject({
      prompt: "Who?",
      kind: { type: "form", schema: { type: "object" }, schemaValidation: true },
    });
    const done = await handler.step(submit(form, { ok: true }));
    expect(done).toMatchObject({
      type: "completed",
      result: { content: [{ text: 'Oslo/{"ok":true}' }] },
    });
    expect(progress).toEqual([{ progress: 1, total: 2 }]);
    expect(logs).toEqual([
      { level: "info", data: "hello" },
      { level: "warning", data: { left: 1 }, logger: "quota" },
    ]);
  });

  test("asks for multiline text only when told, and forms without validation when undeclared", async () => {
    const handler = handlerFor(
      async (_input, ctx) => {
        await ctx.requestText("Notes?", { multiline: true });
        await ctx.requestText("Line?", { multiline: "yes" as never });
        await ctx.requestForm("Form?", {});
        return "done";
      },
      { interactions: { multilineText: true, form: true } },
    );
    const first = asked(await handler.step({ type: "invoke", arguments: {} }));
    const second = asked(await handler.step(submit(first, "a\nb")));
    const third = asked(await handler.step(submit(second, "c")));
    expect([first.kind, second.kind, third.kind]).toEqual([
      { type: "text", multiline: true },
      { type: "text", multiline: false },
      { type: "form", schema: {}, schemaValidation: false },
    ]);
  });

  test("requestSampling asks with the last text as prompt and only the fields given", async () => {
    const reply = { role: "assistant", content: { type: "text", text: "Hi" }, model: "m" } as const;
    const messages = [
      { role: "user", content: { type: "text", text: "Summarise this" } },
      { role: "user", content: { type: "image", mimeType: "image/png", data: "AA==" } },
    ] as const;
    let got: unknown;
    const handler = handlerFor(
      async (_input, { requestSampling }) => {
        got = await requestSampling({
          messages: messages.slice(),
          maxTokens: 20,
          temperature: undefined as unknown as number,
          stopSequences: ["END"],
        });
        return "done";
      },
      { interactions: { sampling: true } },
    );
    const request = asked(await handler.step({ type: "invoke", arguments: {} }));
    expect(request.prompt).toBe("Summarise this");
    expect(request.kind).toEqual({
      type: "sampling",
      messages,
      maxTokens: 20,
      stopSequences: ["END"],
    });
    await handler.step(submit(request, { ...reply, extra: "dropped" }));
    expect(got).toEqual(reply);
  });

  test("requestRoots asks for roots and resolves with the clean list; undeclared, it ends the call", async () => {
    let got: unknown;
    const handler = handlerFor(
      async (_input, { requestRoots }) => {
        got = await requestRoots();
        return "done";
      },
      { interactions: { roots: true } },
    );
    const request = asked(await handler.step({ type: "invoke", arguments: {} }));
    expect(request.kind).toEqual({ type: "roots" });
    await handler.step(submit(request, [{ uri: "file:///a", name: "a", extra: 1 }, { uri: "b" }]));
    expect(got).toEqual([{ uri: "file:///a", name: "a" }, { uri: "b" }]);

    const undeclared = handlerFor(async (_input, { requestRoots }) => {
      await requestRoots();
      return "done";
    });
    await expect(undeclared.step({ type: "invoke", arguments: {} })).rejects.toMatchObject({
      type: "undeclared_interaction",
      kind: "roots",
    });
  });

  test("questions asked together are open at once: each step answers one, in any order, and returns the next", async () => {
    const handler = handlerFor(
      async (_input, { requestText, requestRoots }) => {
        const [city, roots] = await Promise.all([requestText("City?"), requestRoots()]);
        return `${city} ${roots.length}`;
      },
      { interactions: { text: true, roots: true } },
    );
    const first = await handler.step({ type: "invoke", arguments: {} });
    if (first.type !== "interaction") throw new Error("expected a question");
    expect(first["~open"]?.map((request) => request.kind.type)).toEqual(["text", "roots"]);
    const [text, roots] = first["~open"] ?? [];
    // The second is answered first; the step returns the one still open.
    const next = await handler.step(
      submit(roots as ToolInteractionRequest, [{ uri: "file:///a" }]),
    );
    expect(asked(next)).toBe(text);
    const done = await handler.step(submit(text as ToolInteractionRequest, "Paris"));
    expect(done).toEqual({
      type: "completed",
      result: expect.objectContaining({ content: [{ type: "text", text: "Paris 1" }] }),
    });
  });

  test("Toolset.call puts questions asked together to onInteraction at once", async () => {
    const tools = Toolset.local([
      defineTool({
        name: "both",
        description: "d",
        input: v.object({}),
        interactions: { text: true, roots: true },
        call: async (_input, { requestText, requestRoots }) => {
          const [city, roots] = await Promise.all([requestText("City?"), requestRoots()]);
          return `${city} ${roots.length}`;
        },
      }),
    ]);
    const waiting: string[] = [];
    let release: () => void = () => {};
    const bothAsked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const result = await tools.call(
      "both",
      {},
      {
        onInteraction: async (request) => {
          waiting.push(request.kind.type);
          if (waiting.length === 2) release();
          // Neither is answered before both were asked.
          await bothAsked;
          return InteractionResponse.submit(
            request.id,
            request.kind.type === "roots" ? [{ uri: "file:///a" }] : "Paris",
          );
        },
      },
    );
    expect(waiting).toEqual(["text", "roots"]);
    expect(result.content).toEqual([{ type: "text", text: "Paris 1" }]);
  });

  test("carries the tool's name, and a call id only when there is one", async () => {
    const seen: ToolContext[] = [];
    const tools = Toolset.local([
      defineTool({
        name: "who",
        description: "d",
        input: v.object({}),
        call: (_input, ctx) => {
          seen.push(ctx);
          return "ok";
        },
      }),
    ]);
    await tools.call("who", {}, { callId: "c-9" });
    await tools.call("who", {});
    expect(seen[0]?.toolName).toBe("who");
    expect(seen[0]?.callId).toBe("c-9");
    expect("callId" in (seen[1] ?? {})).toBe(false);
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

describe("ToolContext.auth (design.md T8)", () => {
  const whoami = defineTool({
    name: "whoami",
    description: "Reports who calls",
    input: v.object({}),
    call: (_input, { auth }) => ({ auth: auth ?? null, present: auth !== undefined }),
  });

  test("is what the caller passed as CallOptions.auth, as is", async () => {
    const identity = { subject: "alice", scopes: ["read"] };
    let seen: unknown;
    const tools = Toolset.local([
      defineTool({
        name: "keep",
        description: "d",
        input: v.object({}),
        call: (_input, ctx) => {
          seen = ctx.auth;
          return "ok";
        },
      }),
    ]);
    await tools.call("keep", {}, { auth: identity });
    expect(seen).toBe(identity);
  });

  test("is undefined when the call carries no identity", async () => {
    const result = await Toolset.local([whoami]).call("whoami", {});
    expect(result.structuredContent).toEqual({ auth: null, present: false });
  });

  test("reaches a tool behind a merged toolset", async () => {
    const merged = Toolset.merge([Toolset.local([whoami])], { namespaces: ["a"] });
    const result = await merged.call("a__whoami", {}, { auth: "token-holder" });
    expect(result.structuredContent).toEqual({ auth: "token-holder", present: true });
  });

  test("does not leak from one call into the next", async () => {
    const tools = Toolset.local([whoami]);
    await tools.call("whoami", {}, { auth: "first" });
    expect((await tools.call("whoami", {})).structuredContent).toEqual({
      auth: null,
      present: false,
    });
  });
});

describe("ToolContext.log", () => {
  const logging = defineTool({
    name: "logging",
    description: "Logs twice",
    input: v.object({}),
    call: (_input, { log }) => {
      log("info", "started");
      log("warning", { left: 3 }, "quota");
      return "ok";
    },
  });

  test("reaches the caller's onLog in order, with the logger name when given", async () => {
    const logs: ToolLog[] = [];
    const result = await Toolset.local([logging]).call(
      "logging",
      {},
      { onLog: (log) => logs.push(log) },
    );
    expect(result.isError).toBe(false);
    expect(logs).toEqual([
      { level: "info", data: "started" },
      { level: "warning", data: { left: 3 }, logger: "quota" },
    ]);
  });

  test("is dropped without a listener and never breaks the call when the listener throws", async () => {
    const tools = Toolset.local([logging]);
    expect((await tools.call("logging", {})).content).toEqual([{ type: "text", text: "ok" }]);
    const result = await tools.call(
      "logging",
      {},
      {
        onLog: () => {
          throw new Error("listener bug");
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
  });
});

describe("ToolContext.once (design.md T16)", () => {
  test("runs an effect once per key and hands back its JSON copy", async () => {
    let runs = 0;
    const tools = Toolset.local([
      defineTool({
        name: "twice",
        description: "d",
        input: v.object({}),
        call: async (_input, { once }) => {
          const first = await once("write", () => {
            runs++;
            return { at: new Date(0), n: runs };
          });
          const again = await once("write", () => {
            runs++;
            return { n: runs };
          });
          const nothing = await once("void", () => undefined);
          return { first, again, nothing: nothing === undefined };
        },
      }),
    ]);
    const result = await tools.call("twice", {});
    expect(runs).toBe(1);
    const same = { at: "1970-01-01T00:00:00.000Z", n: 1 };
    expect(result.structuredContent).toEqual({ first: same, again: same, nothing: true });
  });

  test("shares a running effect with a second use of its key", async () => {
    let runs = 0;
    const tools = Toolset.local([
      defineTool({
        name: "parallel",
        description: "d",
        input: v.object({}),
        call: async (_input, ctx) => {
          const effect = async () => {
            runs++;
            await Promise.resolve();
            return runs;
          };
          return { both: await Promise.all([ctx.once("a", effect), ctx.once("a", effect)]) };
        },
      }),
    ]);
    expect((await tools.call("parallel", {})).structuredContent).toEqual({ both: [1, 1] });
  });

  test("records nothing for an effect that throws, so the key runs again", async () => {
    let runs = 0;
    const tools = Toolset.local([
      defineTool({
        name: "retry",
        description: "d",
        input: v.object({}),
        call: async (_input, ctx) => {
          const effect = () => {
            runs++;
            if (runs === 1) throw new Error("flaky");
            return runs;
          };
          await ctx.once("x", effect).catch(() => undefined);
          return String(await ctx.once("x", effect));
        },
      }),
    ]);
    expect((await tools.call("retry", {})).content).toEqual([{ type: "text", text: "2" }]);
  });

  test("fails with invalid_output for a result with no JSON form and invalid_configuration for an empty key", async () => {
    const seen: string[] = [];
    const handler = handlerFor(async (_input, ctx) => {
      for (const use of [() => ctx.once("big", () => 10n), () => ctx.once("", () => 1)]) {
        seen.push((await caught(use)).type);
      }
      return "ok";
    });
    await handler.step({ type: "invoke", arguments: {} });
    expect(seen).toEqual(["invalid_output", "invalid_configuration"]);
  });

  test("starts no effect once the call was cancelled", async () => {
    let runs = 0;
    let resume: () => void = () => {};
    const paused = new Promise<void>((resolve) => {
      resume = resolve;
    });
    let outcome: Promise<unknown> = Promise.resolve();
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const handler = handlerFor(async (_input, ctx) => {
      started();
      await paused;
      outcome = ctx.once("late", () => runs++);
      // Read below, after a timer: marked as handled now, so its rejection is not "unhandled".
      outcome.catch(() => {});
      return "unreachable";
    });
    const step = handler.step({ type: "invoke", arguments: {} });
    await running;
    await caught(handler.step({ type: "cancel" }));
    await caught(step);
    resume();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await caught(outcome)).type).toBe("cancelled");
    expect(runs).toBe(0);
  });
});
