import * as v from "valibot";
import { describe, expect, test } from "vitest";
import type { ToolHandlerBackend } from "../../src/execution/backend.ts";
import type { ToolHandlerOutput, ToolProgress } from "../../src/execution/handler-io.ts";
import type { ToolInteractionRequest } from "../../src/interaction/interaction-request.ts";
import { InteractionResponse } from "../../src/interaction/interaction-response.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { defineTool, type Tool } from "../../src/local/define-tool.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";

// The call state machine (design.md, "The call state machine") is one implementation shared by
// local and remote handlers, so the same contract (T9, T10, T15) runs against both: a local
// tool's handler, and the same tool served over MCP and called through `connectMcp`.

type Make = (tool: Tool) => Promise<ToolHandlerBackend>;

const local: Make = async (tool) => new LocalHandler(tool);

const remote: Make = async (tool) => {
  const server = createMcpHandler(Toolset.local([tool]), {
    name: "contract",
    version: "1.0.0",
    interactionPolicy: "elicit",
  });
  // The 2025 session revision, where a call is one live exchange the question pauses; in
  // 2026-07-28 the server re-runs the tool on each retry, so its early progress repeats.
  const client = await connectMcp({
    url: "http://localhost/mcp",
    fetch: server.fetch,
    protocol: "2025-11-25",
    formInteractions: true,
    // Arguments and form replies are then checked on this side, as a local tool's are.
    jsonSchemaValidator,
  });
  return client.toolHandler(tool.name);
};

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 0));
};

function asked(output: ToolHandlerOutput): ToolInteractionRequest {
  if (output.type !== "interaction") throw new Error(`expected an interaction, got ${output.type}`);
  return output.request;
}

const NAME_FORM = { type: "object", properties: { name: { type: "string" } } };

// Asks for a name with a form; a decline is answered with "declined".
const greeter = defineTool({
  name: "greet",
  description: "Asks for a name",
  input: v.object({ greeting: v.string() }),
  interactions: { form: true },
  call: async ({ greeting }, ctx) => {
    ctx.progress({ progress: 1 });
    try {
      const form = await ctx.requestForm("Your name?", NAME_FORM);
      return `${greeting} ${String(form.name)}`;
    } catch {
      return "declined";
    }
  },
});

const invoke = { type: "invoke", arguments: { greeting: "Hello" } } as const;
const reply = (request: ToolInteractionRequest, name: string) =>
  ({
    type: "interaction",
    response: InteractionResponse.submit(request.id, { name }),
  }) as const;
const text = (output: ToolHandlerOutput) =>
  output.type === "completed" ? output.result.content : output;

describe.each([
  ["local", local],
  ["remote", remote],
])("the call state machine (%s)", (_side, make) => {
  test("ready → running ⇄ pending → finished, and one handler runs one call", async () => {
    const handler = await make(greeter);
    const request = asked(await handler.step(invoke));
    expect(request).toMatchObject({ toolName: "greet", prompt: "Your name?" });
    expect(text(await handler.step(reply(request, "Ada")))).toEqual([
      { type: "text", text: "Hello Ada" },
    ]);
    expect((await caught(handler.step(invoke))).type).toBe("unsupported");
  });

  test("bad arguments end the call with invalid_arguments before the tool runs", async () => {
    const handler = await make(greeter);
    const error = await caught(handler.step({ type: "invoke", arguments: { greeting: 1 } }));
    expect(error.type).toBe("invalid_arguments");
    expect((await caught(handler.step(invoke))).type).toBe("unsupported");
  });

  test("a reply to another id fails with invalid_interaction and the question stays open", async () => {
    const handler = await make(greeter);
    const request = asked(await handler.step(invoke));
    const wrong = {
      type: "interaction",
      response: InteractionResponse.submit(`${request.id}-other`, { name: "Eve" }),
    } as const;
    expect((await caught(handler.step(wrong))).type).toBe("invalid_interaction");
    expect(text(await handler.step(reply(request, "Ada")))).toEqual([
      { type: "text", text: "Hello Ada" },
    ]);
  });

  test("a reply when nothing is pending fails with invalid_interaction", async () => {
    const handler = await make(greeter);
    const error = await caught(
      handler.step({ type: "interaction", response: InteractionResponse.decline("x") }),
    );
    expect(error.type).toBe("invalid_interaction");
  });

  test("a decline reaches the tool, which carries on", async () => {
    const handler = await make(greeter);
    const request = asked(await handler.step(invoke));
    const decline = {
      type: "interaction",
      response: InteractionResponse.decline(request.id),
    } as const;
    expect(text(await handler.step(decline))).toEqual([{ type: "text", text: "declined" }]);
  });

  test("cancel while pending fails with cancelled, and a late reply replays it", async () => {
    const handler = await make(greeter);
    const request = asked(await handler.step(invoke));
    const cancel = await caught(handler.step({ type: "cancel", reason: "enough" }));
    expect(cancel.data).toEqual({ type: "cancelled", tool: "greet", reason: "enough" });
    expect((await caught(handler.step(reply(request, "Ada")))).type).toBe("cancelled");
  });

  test("a cancel response cancels the call", async () => {
    const handler = await make(greeter);
    const request = asked(await handler.step(invoke));
    const cancel = {
      type: "interaction",
      response: InteractionResponse.cancel(request.id),
    } as const;
    expect((await caught(handler.step(cancel))).type).toBe("cancelled");
  });

  test("cancel while running wins over what the tool produces afterwards", async () => {
    const started = gate();
    const release = gate();
    const slow = defineTool({
      name: "slow",
      description: "Waits for the test",
      input: v.object({}),
      call: async () => {
        started.open();
        await release.opened;
        return "late";
      },
    });
    const handler = await make(slow);
    const running = caught(handler.step({ type: "invoke", arguments: {} }));
    await started.opened;
    expect((await caught(handler.step({ type: "cancel" }))).type).toBe("cancelled");
    release.open();
    expect((await running).type).toBe("cancelled");
  });

  test("overlapping steps are refused with unsupported", async () => {
    const handler = await make(greeter);
    const first = handler.step(invoke);
    const overlap = await caught(
      handler.step({ type: "interaction", response: InteractionResponse.decline("x") }),
    );
    expect(overlap.type).toBe("unsupported");
    expect((await first).type).toBe("interaction");
  });

  test("progress reaches only the step in flight; its listener is dropped when it settles", async () => {
    const between = gate();
    const reported = gate();
    const chatty = defineTool({
      name: "chatty",
      description: "Reports progress between steps",
      input: v.object({}),
      interactions: { form: true },
      call: async (_input, ctx) => {
        ctx.progress({ progress: 1 });
        const answer = ctx.requestForm("Go on?", NAME_FORM);
        await between.opened;
        ctx.progress({ progress: 2 });
        reported.open();
        await answer;
        ctx.progress({ progress: 3 });
        return "done";
      },
    });
    const handler = await make(chatty);
    const first: ToolProgress[] = [];
    const second: ToolProgress[] = [];
    const request = asked(
      await handler.step(
        { type: "invoke", arguments: {} },
        {
          onProgress: (p) => first.push(p),
        },
      ),
    );
    between.open();
    await reported.opened;
    await settle();
    const done = await handler.step(reply(request, "x"), { onProgress: (p) => second.push(p) });
    expect(done.type).toBe("completed");
    expect(first).toEqual([{ progress: 1 }]);
    expect(second).toEqual([{ progress: 3 }]);
  });
});
