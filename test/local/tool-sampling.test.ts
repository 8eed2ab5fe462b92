import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  defineTool,
  InteractionResponse,
  isToolError,
  type ToolHandlerOutput,
  type ToolInteractionRequest,
} from "../../src/index.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import { caught } from "../support/caught.ts";

const REPLY = {
  role: "assistant",
  content: { type: "text", text: "Paris" },
  model: "tiny-1",
  stopReason: "endTurn",
} as const;

// A tool that asks the caller's model and reports what it got, or that it was declined.
function sampler(interactions: { sampling?: boolean } = { sampling: true }) {
  return defineTool({
    name: "capital",
    description: "Asks the caller's model for a capital",
    input: v.object({ country: v.string() }),
    interactions,
    call: async ({ country }, { requestSampling }) => {
      try {
        const reply = await requestSampling({
          messages: [{ role: "user", content: { type: "text", text: `Capital of ${country}?` } }],
          maxTokens: 5,
          systemPrompt: "One word.",
        });
        return `${reply.model}: ${reply.content.type === "text" ? reply.content.text : "?"}`;
      } catch (error) {
        if (isToolError(error, "interaction_declined")) return `declined: ${error.reason}`;
        throw error;
      }
    },
  });
}

function pending(output: ToolHandlerOutput): ToolInteractionRequest {
  if (output.type !== "interaction") throw new Error(`expected an interaction, got ${output.type}`);
  return output.request;
}

describe("ToolContext.requestSampling through a local handler", () => {
  it("suspends on a sampling request and resumes with the caller's model reply", async () => {
    const handler = new LocalHandler(sampler());
    const request = pending(
      await handler.step({ type: "invoke", callId: "c-1", arguments: { country: "France" } }),
    );
    expect(request).toMatchObject({
      toolName: "capital",
      callId: "c-1",
      prompt: "Capital of France?",
      kind: {
        type: "sampling",
        messages: [{ role: "user", content: { type: "text", text: "Capital of France?" } }],
        maxTokens: 5,
        systemPrompt: "One word.",
      },
    });
    const done = await handler.step({
      type: "interaction",
      response: InteractionResponse.submit(request.id, REPLY),
    });
    expect(done).toMatchObject({
      type: "completed",
      result: { content: [{ type: "text", text: "tiny-1: Paris" }] },
    });
  });

  it("keeps the question open after a reply that is not a SamplingResult", async () => {
    const handler = new LocalHandler(sampler());
    const request = pending(await handler.step({ type: "invoke", arguments: { country: "Peru" } }));
    for (const content of ["Lima", { ...REPLY, role: "user" }, { ...REPLY, model: undefined }]) {
      const response = InteractionResponse.submit(request.id, content);
      const error = await caught(handler.step({ type: "interaction", response }));
      expect(error.type).toBe("invalid_interaction");
    }
    const response = InteractionResponse.submit(request.id, {
      ...REPLY,
      content: { type: "text", text: "Lima" },
    });
    expect(await handler.step({ type: "interaction", response })).toMatchObject({
      type: "completed",
      result: { content: [{ type: "text", text: "tiny-1: Lima" }] },
    });
  });

  it("lets the tool carry on after a decline (interaction_declined with the reason)", async () => {
    const handler = new LocalHandler(sampler());
    const request = pending(await handler.step({ type: "invoke", arguments: { country: "Chad" } }));
    const response = InteractionResponse.decline(request.id, "no model here");
    expect(await handler.step({ type: "interaction", response })).toMatchObject({
      type: "completed",
      result: { isError: false, content: [{ type: "text", text: "declined: no model here" }] },
    });
  });

  it("cancels the call when the caller cancels the sampling request", async () => {
    const handler = new LocalHandler(sampler());
    const request = pending(await handler.step({ type: "invoke", arguments: { country: "Fiji" } }));
    const response = InteractionResponse.cancel(request.id, "stop");
    const error = await caught(handler.step({ type: "interaction", response }));
    expect(error.data).toMatchObject({ type: "cancelled", tool: "capital", reason: "stop" });
  });

  it("ends the call with undeclared_interaction when the tool did not declare sampling", async () => {
    const handler = new LocalHandler(sampler({}));
    const error = await caught(handler.step({ type: "invoke", arguments: { country: "Cuba" } }));
    expect(error.data).toEqual({
      type: "undeclared_interaction",
      tool: "capital",
      kind: "sampling",
    });
  });

  it("fails only the question when the request is malformed; the tool may carry on", async () => {
    const tool = defineTool({
      name: "sloppy",
      description: "Asks with no messages",
      input: v.object({}),
      interactions: { sampling: true },
      call: async (_input, ctx) => {
        const error = await caught(ctx.requestSampling({ messages: [], maxTokens: 5 }));
        return `${error.type}: ${(error.data as { message: string }).message}`;
      },
    });
    const done = await new LocalHandler(tool).step({ type: "invoke", arguments: {} });
    expect(done).toMatchObject({
      type: "completed",
      result: {
        content: [
          {
            type: "text",
            text: "invalid_configuration: sloppy asked for sampling, but `messages` must be a non-empty array",
          },
        ],
      },
    });
  });
});
