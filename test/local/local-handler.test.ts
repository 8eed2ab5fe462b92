import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { ToolError } from "../../src/errors.ts";
import type { ToolHandlerOutput } from "../../src/execution/handler-io.ts";
import { ToolResult } from "../../src/execution/tool-result.ts";
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
import { caught } from "../support/caught.ts";

type Call = DefineToolOptions<SchemaInput>["call"];

function handler(call: Call, extra: Partial<DefineToolOptions<SchemaInput>> = {}): LocalHandler {
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

// Resolves when the call is aborted, rejecting with the abort reason like a well-behaved tool.
function untilAborted(ctx: ToolContext): Promise<never> {
  return new Promise((_, reject) =>
    ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason), { once: true }),
  );
}

function request(output: ToolHandlerOutput): ToolInteractionRequest {
  if (output.type !== "interaction") throw new Error(`expected an interaction, got ${output.type}`);
  return output.request;
}

const asksCity: Call = async (_input, ctx) => `weather in ${await ctx.requestText("City?")}`;
const textOnly = { interactions: { text: true } };

describe("LocalHandler", () => {
  test("completes a simple tool on invoke, then fails every further step", async () => {
    const h = handler(() => "done");
    expect(await h.step({ type: "invoke", arguments: {} })).toEqual({
      type: "completed",
      result: ToolResult.text("done"),
    });
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe("unsupported");
    const reply = InteractionResponse.submit("x", "y");
    expect((await caught(h.step({ type: "interaction", response: reply }))).type).toBe(
      "invalid_interaction",
    );
    expect((await caught(h.step({ type: "cancel" }))).type).toBe("cancelled");
  });

  test("cancels a never-invoked handler with the reason kept, and stays terminal", async () => {
    let calls = 0;
    const h = handler(() => {
      calls += 1;
      return "x";
    });
    const error = await caught(h.step({ type: "cancel", reason: "user stop" }));
    expect(error.data).toEqual({ type: "cancelled", tool: "probe", reason: "user stop" });
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe("unsupported");
    expect(calls).toBe(0);
  });

  test("rejects invalid arguments without calling the tool, and stays terminal", async () => {
    let calls = 0;
    const h = handler(
      () => {
        calls += 1;
        return "x";
      },
      { input: v.object({ a: v.number(), nested: v.object({ b: v.string() }) }) },
    );
    const error = await caught(h.step({ type: "invoke", arguments: { a: "1", nested: { b: 2 } } }));
    expect(error.data).toMatchObject({ type: "invalid_arguments", tool: "probe" });
    expect(error.issues?.map((i) => i.path).sort()).toEqual(["/a", "/nested/b"]);
    expect(error.message).toContain("/a");
    expect((await caught(h.step({ type: "invoke", arguments: { a: 1 } }))).type).toBe(
      "unsupported",
    );
    expect(calls).toBe(0);
  });

  test("rejects arguments violating a raw JSON Schema without calling the tool", async () => {
    let calls = 0;
    const h = handler(
      () => {
        calls += 1;
        return "x";
      },
      { input: { jsonSchema: { type: "object", properties: { q: { type: "string" } } } } },
    );
    const error = await caught(h.step({ type: "invoke", arguments: { q: 5 } }));
    expect(error.data).toMatchObject({ type: "invalid_arguments", issues: [{ path: "/q" }] });
    expect(calls).toBe(0);
  });

  test("completes an isError result even when an output schema is declared", async () => {
    const h = handler(() => ToolResult.error("record not found"), {
      output: v.object({ id: v.string() }),
    });
    expect(await h.step({ type: "invoke", arguments: {} })).toEqual({
      type: "completed",
      result: ToolResult.error("record not found"),
    });
  });

  test("fails with invalid_output when a declared output schema gets no structuredContent", async () => {
    const h = handler(() => "plain text", { output: v.object({ id: v.string() }) });
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe("invalid_output");
  });

  test("turns a plain Error thrown by the tool into an isError result with its message", async () => {
    const h = handler(() => {
      throw new Error("record not found");
    });
    expect(await h.step({ type: "invoke", arguments: {} })).toEqual({
      type: "completed",
      result: ToolResult.error("record not found"),
    });
  });

  test("rejects the step with a ToolError thrown by the tool", async () => {
    const thrown = new ToolError({ type: "transport", message: "backend down" });
    const h = handler(async () => {
      throw thrown;
    });
    expect(await caught(h.step({ type: "invoke", arguments: {} }))).toBe(thrown);
  });

  test("asks with a text request naming the tool, call id, prompt and kind", async () => {
    const first = request(
      await handler(asksCity, textOnly).step({ type: "invoke", callId: "c-1", arguments: {} }),
    );
    expect(first).toEqual({
      id: expect.any(String),
      toolName: "probe",
      callId: "c-1",
      prompt: "City?",
      kind: { type: "text", multiline: false },
    });
    const second = request(
      await handler(asksCity, textOnly).step({ type: "invoke", arguments: {} }),
    );
    expect(second.id).not.toBe(first.id);
    expect("callId" in second).toBe(false);
  });

  test("asks for multiline text and for a form with the declared validation", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } } };
    const multi = handler(async (_i, ctx) => ctx.requestText("Notes?", { multiline: true }), {
      interactions: { multilineText: true },
    });
    expect(request(await multi.step({ type: "invoke", arguments: {} })).kind).toEqual({
      type: "text",
      multiline: true,
    });
    const form = handler(async (_i, ctx) => ctx.requestForm("Fill", schema), {
      interactions: { form: true, formSchemaValidation: true },
    });
    expect(request(await form.step({ type: "invoke", arguments: {} })).kind).toEqual({
      type: "form",
      schema,
      schemaValidation: true,
    });
  });

  test("resumes with a submit echoing the exact id and completes with the tool's result", async () => {
    const h = handler(asksCity, textOnly);
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const response = InteractionResponse.submit(id, "Chicago");
    expect(await h.step({ type: "interaction", response })).toEqual({
      type: "completed",
      result: ToolResult.text("weather in Chicago"),
    });
  });

  test("rejects a wrong id with invalid_interaction without resuming, then accepts the right one", async () => {
    let resumed = 0;
    const h = handler(async (_i, ctx) => {
      const city = await ctx.requestText("City?");
      resumed += 1;
      return city;
    }, textOnly);
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const wrong = InteractionResponse.submit(`${id}x`, "Chicago");
    const error = await caught(h.step({ type: "interaction", response: wrong }));
    expect(error.data).toMatchObject({ type: "invalid_interaction", id: `${id}x` });
    expect(resumed).toBe(0);
    const right = InteractionResponse.submit(id, "Oslo");
    expect(await h.step({ type: "interaction", response: right })).toMatchObject({
      type: "completed",
      result: ToolResult.text("Oslo"),
    });
    expect(resumed).toBe(1);
  });

  test("rejects a text reply that is not a string and stays pending", async () => {
    const h = handler(asksCity, textOnly);
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const bad = InteractionResponse.submit(id, { city: "Chicago" });
    expect((await caught(h.step({ type: "interaction", response: bad }))).type).toBe(
      "invalid_interaction",
    );
    const good = InteractionResponse.submit(id, "Chicago");
    expect((await h.step({ type: "interaction", response: good })).type).toBe("completed");
  });

  test("rejects a form reply that is not an object or violates the schema", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const h = handler(async (_i, ctx) => ctx.requestForm("Fill", schema), {
      interactions: { form: true, formSchemaValidation: true },
    });
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    for (const content of ["text", [1], { n: "one" }, {}]) {
      const response = InteractionResponse.submit(id, content);
      expect((await caught(h.step({ type: "interaction", response }))).type).toBe(
        "invalid_interaction",
      );
    }
    const response = InteractionResponse.submit(id, { n: 1 });
    expect(await h.step({ type: "interaction", response })).toMatchObject({
      type: "completed",
      result: { structuredContent: { n: 1 } },
    });
  });

  test("rejects the tool's request with interaction_declined, which the tool may catch", async () => {
    const h = handler(async (_i, ctx) => {
      try {
        return await ctx.requestText("City?");
      } catch (error) {
        return `fallback (${(error as ToolError).type}: ${(error as ToolError).reason})`;
      }
    }, textOnly);
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const response = InteractionResponse.decline(id, "private");
    expect(await h.step({ type: "interaction", response })).toEqual({
      type: "completed",
      result: ToolResult.text("fallback (interaction_declined: private)"),
    });
  });

  test("rejects the step with interaction_declined when the tool propagates it", async () => {
    const h = handler(asksCity, textOnly);
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const error = await caught(
      h.step({ type: "interaction", response: InteractionResponse.decline(id) }),
    );
    expect(error.data).toEqual({ type: "interaction_declined", tool: "probe" });
  });

  test.each([
    [
      "a cancel reply",
      (id: string) =>
        ({ type: "interaction", response: InteractionResponse.cancel(id, "stop") }) as const,
    ],
    ["step(cancel)", () => ({ type: "cancel", reason: "stop" }) as const],
  ])("fails with cancelled and aborts ctx.signal on %s while pending", async (_label, input) => {
    let signal: AbortSignal | undefined;
    const h = handler(async (_i, ctx) => {
      signal = ctx.signal;
      return ctx.requestText("City?");
    }, textOnly);
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const error = await caught(h.step(input(id)));
    expect(error.data).toEqual({ type: "cancelled", tool: "probe", reason: "stop" });
    expect(signal?.aborted).toBe(true);
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe("unsupported");
  });

  test("cancels a running step: both the step in flight and the cancel reject", async () => {
    let signal: AbortSignal | undefined;
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const h = handler(async (_i, ctx) => {
      signal = ctx.signal;
      started();
      return untilAborted(ctx);
    });
    const invoke = h.step({ type: "invoke", arguments: {} });
    await running;
    const cancel = h.step({ type: "cancel", reason: "enough" });
    expect((await caught(invoke)).data).toMatchObject({ type: "cancelled", reason: "enough" });
    expect((await caught(cancel)).type).toBe("cancelled");
    expect(signal?.aborted).toBe(true);
  });

  test("refuses a second step while one is in flight with unsupported", async () => {
    const h = handler((_i, ctx) => untilAborted(ctx));
    const invoke = h.step({ type: "invoke", arguments: {} });
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe("unsupported");
    await h.step({ type: "cancel" }).catch(() => {});
    expect((await caught(invoke)).type).toBe("cancelled");
  });

  test.each([
    ["text", {}, (ctx: ToolContext) => ctx.requestText("?"), "text"],
    [
      "multiline text",
      { text: true },
      (ctx: ToolContext) => ctx.requestText("?", { multiline: true }),
      "multiline_text",
    ],
    ["a form", { text: true }, (ctx: ToolContext) => ctx.requestForm("?", {}), "form"],
  ])(
    "fails an undeclared request for %s with undeclared_interaction",
    async (_l, interactions, ask, kind) => {
      let signal: AbortSignal | undefined;
      const h = handler(
        async (_i, ctx) => {
          signal = ctx.signal;
          return ask(ctx);
        },
        { interactions },
      );
      const error = await caught(h.step({ type: "invoke", arguments: {} }));
      expect(error.data).toEqual({ type: "undeclared_interaction", tool: "probe", kind });
      expect(signal?.aborted).toBe(true);
    },
  );

  test("reports progress to this step's onProgress and survives a throwing listener", async () => {
    const seen: number[] = [];
    const h = handler((_i, ctx) => {
      ctx.progress({ progress: 1, total: 2 });
      ctx.progress({ progress: 2, total: 2, message: "done" });
      return "ok";
    });
    const output = await h.step(
      { type: "invoke", arguments: {} },
      {
        onProgress: (p) => {
          seen.push(p.progress);
          throw new Error("listener bug");
        },
      },
    );
    expect(seen).toEqual([1, 2]);
    expect(output.type).toBe("completed");
  });

  test("passes callId and toolName to the tool", async () => {
    let ctxSeen: ToolContext | undefined;
    await handler((_i, ctx) => {
      ctxSeen = ctx;
      return "ok";
    }).step({ type: "invoke", callId: "call-7", arguments: {} });
    expect(ctxSeen?.callId).toBe("call-7");
    expect(ctxSeen?.toolName).toBe("probe");
  });

  test.each([
    ["null", null],
    ["a string", "invoke"],
    ["an unknown type", { type: "resume" }],
  ])("rejects a step input that is %s with unsupported", async (_label, input) => {
    expect((await caught(handler(() => "x").step(input as never))).type).toBe("unsupported");
  });
});

// A promise the test opens by hand, plus a signal that says the tool reached it.
function hold() {
  let open: () => void = () => {};
  let reached: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return { gate, arrived, open, reached };
}

describe("LocalHandler under adversarial use", () => {
  test.each([
    ["null", null],
    ["an empty object", {}],
    ["an unknown type", { type: "bogus" }],
    ["a number", 5],
    ["a bare string", "invoke"],
  ])("rejects %s as a step with unsupported and stays usable", async (_label, input) => {
    const h = handler(() => "ok");
    const error = await caught(h.step(input as never));
    expect(error.type).toBe("unsupported");
    expect(error.message).toContain("expected invoke, interaction or cancel");
    expect((await h.step({ type: "invoke", arguments: {} })).type).toBe("completed");
  });

  test("a cancel that lands after the tool returned but before its step did wins", async () => {
    const checking = hold();
    const h = handler(() => ({ n: 1 }), {
      output: v.pipeAsync(
        v.object({ n: v.number() }),
        v.checkAsync(async () => {
          checking.reached();
          await checking.gate;
          return true;
        }),
      ),
    });
    const invoke = h.step({ type: "invoke", arguments: {} });
    await checking.arrived;
    const cancel = h.step({ type: "cancel", reason: "too late?" });
    checking.open();
    expect((await caught(invoke)).data).toEqual({
      type: "cancelled",
      tool: "probe",
      reason: "too late?",
    });
    expect((await caught(cancel)).type).toBe("cancelled");
  });

  test("a tool that ignores its signal settles later without reaching anyone", async () => {
    const running = hold();
    let later: ToolContext | undefined;
    const progress: number[] = [];
    const h = handler(async (_i, ctx) => {
      later = ctx;
      running.reached();
      await running.gate;
      ctx.progress({ progress: 99 });
      throw new Error("finished anyway");
    });
    const invoke = h.step(
      { type: "invoke", arguments: {} },
      { onProgress: (p) => progress.push(p.progress) },
    );
    await running.arrived;
    await caught(h.step({ type: "cancel" }));
    expect((await caught(invoke)).type).toBe("cancelled");
    running.open();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(progress).toEqual([]);
    expect(later?.signal.aborted).toBe(true);
    const asked = await caught(later?.requestText("still there?") as Promise<string>);
    expect(asked.type).toBe("cancelled");
  });

  test("progress after completion is dropped rather than sent to the finished step's listener", async () => {
    let report: ToolContext["progress"] = () => {};
    const seen: number[] = [];
    const h = handler((_i, ctx) => {
      report = ctx.progress;
      report({ progress: 1 });
      return "done";
    });
    await h.step({ type: "invoke", arguments: {} }, { onProgress: (p) => seen.push(p.progress) });
    report({ progress: 2 });
    expect(seen).toEqual([1]);
  });

  test("a reply racing a cancel loses: the reply's step and the tool's question reject", async () => {
    let question: Promise<unknown> | undefined;
    const h = handler(
      async (_i, ctx) => {
        question = ctx.requestForm("Who?", { type: "object", required: ["name"] });
        return question;
      },
      { interactions: { form: true, formSchemaValidation: true } },
    );
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const reply = h.step({
      type: "interaction",
      response: InteractionResponse.submit(id, { name: "Ada" }),
    });
    const cancel = h.step({ type: "cancel", reason: "changed my mind" });
    expect((await caught(reply)).type).toBe("cancelled");
    expect((await caught(cancel)).type).toBe("cancelled");
    expect((await caught(question as Promise<unknown>)).type).toBe("cancelled");
    const after = InteractionResponse.submit(id, { name: "Ada" });
    expect((await caught(h.step({ type: "interaction", response: after }))).type).toBe("cancelled");
  });

  test("a tool that catches a decline may ask again, with a fresh id", async () => {
    const h = handler(async (_i, ctx) => {
      try {
        return await ctx.requestText("City?");
      } catch {
        return `second try: ${await ctx.requestText("Any city?")}`;
      }
    }, textOnly);
    const first = request(await h.step({ type: "invoke", arguments: {} }));
    const decline = InteractionResponse.decline(first.id, "not now");
    const second = request(await h.step({ type: "interaction", response: decline }));
    expect(second.id).not.toBe(first.id);
    expect(second.prompt).toBe("Any city?");
    const stale = InteractionResponse.submit(first.id, "Oslo");
    expect((await caught(h.step({ type: "interaction", response: stale }))).type).toBe(
      "invalid_interaction",
    );
    const output = await h.step({
      type: "interaction",
      response: InteractionResponse.submit(second.id, "Oslo"),
    });
    expect(output).toEqual({ type: "completed", result: ToolResult.text("second try: Oslo") });
  });

  test("a form whose own schema cannot be applied fails the tool's question, not the reply", async () => {
    const h = handler(
      async (_i, ctx) => JSON.stringify(await ctx.requestForm("Who?", { $ref: "#/nowhere" })),
      { interactions: { form: true, formSchemaValidation: true } },
    );
    const { id } = request(await h.step({ type: "invoke", arguments: {} }));
    const error = await caught(
      h.step({ type: "interaction", response: InteractionResponse.submit(id, { a: 1 }) }),
    );
    expect(error.type).toBe("invalid_configuration");
  });

  test("a form request without a schema object fails with invalid_configuration", async () => {
    const h = handler(async (_i, ctx) => ctx.requestForm("Who?", undefined as never), {
      interactions: { form: true },
    });
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe(
      "invalid_configuration",
    );
  });

  test("multilineText also allows single-line text; text alone does not allow multiline", async () => {
    const both = handler((_i, ctx) => ctx.requestText("Line?"), {
      interactions: { multilineText: true },
    });
    const asked = request(await both.step({ type: "invoke", arguments: {} }));
    expect(asked.kind).toEqual({ type: "text", multiline: false });
    const single = handler((_i, ctx) => ctx.requestText("Notes?", { multiline: true }), textOnly);
    expect((await caught(single.step({ type: "invoke", arguments: {} }))).data).toEqual({
      type: "undeclared_interaction",
      tool: "probe",
      kind: "multiline_text",
    });
  });

  test("a valibot transform that throws yields invalid_arguments and never calls the tool", async () => {
    let calls = 0;
    const h = handler(
      () => {
        calls += 1;
        return "x";
      },
      {
        input: v.pipe(
          v.object({ json: v.string() }),
          v.transform(({ json }) => JSON.parse(json) as unknown),
        ),
      },
    );
    const error = await caught(h.step({ type: "invoke", arguments: { json: "{not json" } }));
    expect(error.type).toBe("invalid_arguments");
    expect(error.issues?.[0]?.path).toBe("");
    expect(error.issues?.[0]?.message).toMatch(/^validation threw: /);
    expect(calls).toBe(0);
  });

  test("a raw input schema that cannot be applied fails with invalid_configuration, terminally", async () => {
    const h = handler(() => "x", { input: { jsonSchema: { $ref: "#/nowhere" } } });
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe(
      "invalid_configuration",
    );
    expect((await caught(h.step({ type: "invoke", arguments: {} }))).type).toBe("unsupported");
  });

  test("a cancel reason that is not a string is left out rather than serialised", async () => {
    const error = await caught(handler(() => "x").step({ type: "cancel", reason: 5 as never }));
    expect(error.toJSON()).toEqual({ type: "cancelled", tool: "probe" });
  });
});
