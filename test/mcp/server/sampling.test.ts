import { describe, expect, it } from "vitest";
import { type ToolInteractionRequest, toolName } from "../../../src/index.ts";
import { samplingResponse, toCreateMessageParams } from "../../../src/mcp/server/sampling.ts";
import { fixtureHandler, post, rpc, streamEvents } from "./fixture.ts";

const sampling: ToolInteractionRequest = {
  id: "q1",
  toolName: toolName("sample"),
  prompt: "Hi",
  kind: {
    type: "sampling",
    messages: [
      { role: "user", content: { type: "text", text: "Hi" } },
      { role: "assistant", content: { type: "image", mimeType: "image/png", data: "AA==" } },
    ],
    maxTokens: 10,
  },
};

const ok = (result: Record<string, unknown>) => ({ jsonrpc: "2.0" as const, id: "s", result });
const reply = { role: "assistant", content: { type: "text", text: "Hello" }, model: "m" };

describe("sampling mapping", () => {
  it("sends the messages and maxTokens, and only the optional fields the tool set", () => {
    expect(toCreateMessageParams(sampling.kind as never)).toEqual({
      messages: [
        { role: "user", content: { type: "text", text: "Hi" } },
        { role: "assistant", content: { type: "image", mimeType: "image/png", data: "AA==" } },
      ],
      maxTokens: 10,
    });
    const full = { ...sampling.kind, systemPrompt: "s", temperature: 0, stopSequences: ["x"] };
    expect(toCreateMessageParams(full as never)).toMatchObject({
      systemPrompt: "s",
      temperature: 0,
      stopSequences: ["x"],
    });
  });

  it("submits a clean result, declines on an error, cancels on a malformed result", () => {
    expect(samplingResponse(sampling, ok({ ...reply, stopReason: "endTurn", _meta: {} }))).toEqual({
      type: "submit",
      id: "q1",
      content: { ...reply, stopReason: "endTurn" },
    });
    const refused = { jsonrpc: "2.0" as const, id: "s", error: { code: -1, message: "no" } };
    expect(samplingResponse(sampling, refused)).toEqual({
      type: "decline",
      id: "q1",
      reason: "the client refused: no",
    });
    for (const bad of [{ ...reply, role: "user" }, { ...reply, model: 3 }, { action: "accept" }]) {
      expect(samplingResponse(sampling, ok(bad)).type).toBe("cancel");
    }
  });
});

describe("sampling over the wire (stateless)", () => {
  async function started(id: number, interactionTimeoutMs?: number) {
    const options = interactionTimeoutMs === undefined ? {} : { interactionTimeoutMs };
    const { handler } = fixtureHandler({ interactionPolicy: "elicit", ...options });
    const response = await handler.fetch(
      post(rpc(id, "tools/call", { name: "sample", arguments: { prompt: "Say hi" } })),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const stream = streamEvents(response);
    const question = (await stream.next()).value as { id: string; method: string };
    const answer = async (body: Record<string, unknown>) => {
      expect((await handler.fetch(post({ jsonrpc: "2.0", id: question.id, ...body }))).status).toBe(
        202,
      );
      return (await stream.next()).value as {
        result: { isError: boolean; content: { text: string }[] };
      };
    };
    return { question, answer, stream };
  }

  it("streams sampling/createMessage with the tool's request and returns the model's reply", async () => {
    const { question, answer } = await started(1);
    expect(question).toMatchObject({
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
        maxTokens: 50,
        systemPrompt: "Be brief.",
        temperature: 0.2,
        stopSequences: ["END"],
      },
    });
    const last = await answer({ result: { ...reply, stopReason: "endTurn" } });
    expect(last.result.content[0]?.text).toBe("m said Hello (endTurn)");
  });

  it("tells the tool sampling was declined when the client answers with an error", async () => {
    const { answer } = await started(2);
    const last = await answer({ error: { code: -1, message: "User rejected sampling request" } });
    expect(last.result.isError).toBe(false);
    expect(last.result.content[0]?.text).toMatch(/^no sample: .*declined/);
  });

  it("cancels the call when the client's result is malformed", async () => {
    const { answer } = await started(3);
    const last = await answer({ result: { role: "assistant", content: "Hello", model: "m" } });
    expect(last.result.isError).toBe(true);
    expect(last.result.content[0]?.text).toContain("malformed");
  });

  it("cancels the request when nobody answers within interactionTimeoutMs", async () => {
    const { stream } = await started(4, 20);
    const last = (await stream.next()).value as { result: { content: { text: string }[] } };
    expect(last.result.content[0]?.text).toContain("did not answer in time");
  });
});

describe("sampling and the interaction policy", () => {
  it("fails the call under `reject`, as for any question", async () => {
    const { handler } = fixtureHandler();
    const body = (await (
      await handler.fetch(
        post(rpc(1, "tools/call", { name: "sample", arguments: { prompt: "x" } })),
      )
    ).json()) as { result: { isError: boolean; content: { text: string }[] } };
    expect(body.result.isError).toBe(true);
    expect(body.result.content[0]?.text).toContain("interactionPolicy `reject`");
  });
});
