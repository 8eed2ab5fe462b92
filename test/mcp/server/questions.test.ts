import { describe, expect, it } from "vitest";
import { type ToolInteractionRequest, toolName } from "../../../src/index.ts";
import { readClientCapabilities } from "../../../src/mcp/server/core.ts";
import {
  answerFrom,
  capabilityFor,
  clientDeclares,
  questionFor,
} from "../../../src/mcp/server/questions.ts";
import { streamEvents as events, fixtureHandler, post, rpc, streamEvents } from "./fixture.ts";

// A tool's question on the wire and its answer back, with the shapes a local call has
// (docs/design.md S11).

const base = { id: "q1", toolName: toolName("t"), prompt: "Name?" };
const text: ToolInteractionRequest = { ...base, kind: { type: "text", multiline: false } };
const form: ToolInteractionRequest = {
  ...base,
  kind: { type: "form", schema: { type: "object" }, schemaValidation: false },
};
const sampling: ToolInteractionRequest = {
  ...base,
  kind: {
    type: "sampling",
    messages: [{ role: "user", content: { type: "text", text: "Name?" } }],
    maxTokens: 5,
  },
};

const session = (capabilities: Record<string, unknown>) => readClientCapabilities(capabilities);

describe("forwarding a tool's question to the MCP client", () => {
  it("needs elicitation for text and form, sampling for sampling", () => {
    expect([text, form, sampling].map((request) => capabilityFor(request.kind))).toEqual([
      "elicitation",
      "elicitation",
      "sampling",
    ]);
  });

  it("asks a stateless client anything, a session client only what it declared", () => {
    expect(clientDeclares(undefined, "sampling")).toBe(true);
    expect(clientDeclares(session({}), "sampling")).toBe(false);
    expect(clientDeclares(session({ sampling: true }), "sampling")).toBe(false);
    expect(clientDeclares(session({ sampling: {} }), "sampling")).toBe(true);
    expect(clientDeclares(session({ sampling: {} }), "elicitation")).toBe(false);
    expect(clientDeclares(session({ elicitation: {} }), "elicitation")).toBe(true);
    expect(clientDeclares(session({ elicitation: { url: {} } }), "elicitation")).toBe(false);
    expect(clientDeclares(session({ elicitation: { form: {} } }), "elicitation")).toBe(true);
  });

  it("sends text and form as elicitation/create and sampling as sampling/createMessage", () => {
    expect(questionFor(form, "r1", "2025-06-18")).toEqual({
      jsonrpc: "2.0",
      id: "r1",
      method: "elicitation/create",
      params: { message: "Name?", requestedSchema: { type: "object" } },
    });
    expect(questionFor(text, "r2", "2025-06-18").method).toBe("elicitation/create");
    expect(questionFor(sampling, "r3", "2025-11-25")).toEqual({
      jsonrpc: "2.0",
      id: "r3",
      method: "sampling/createMessage",
      params: {
        messages: [{ role: "user", content: { type: "text", text: "Name?" } }],
        maxTokens: 5,
      },
    });
  });

  it("reads each answer by the question's kind", () => {
    const error = { jsonrpc: "2.0" as const, id: "r", error: { code: -1, message: "no" } };
    // An error cancels an elicitation but only declines sampling (how clients refuse it).
    expect(answerFrom(form, error).type).toBe("cancel");
    expect(answerFrom(sampling, error).type).toBe("decline");
    const accepted = {
      jsonrpc: "2.0" as const,
      id: "r",
      result: { action: "accept", content: {} },
    };
    expect(answerFrom(form, accepted)).toEqual({ type: "submit", id: "q1", content: {} });
    expect(answerFrom(sampling, accepted).type).toBe("cancel");
  });
});

const askForm: ToolInteractionRequest = {
  id: "q1",
  toolName: toolName("ask"),
  prompt: "Name?",
  kind: {
    type: "form",
    schema: { properties: { name: { type: "string" } } },
    schemaValidation: false,
  },
};
const askText: ToolInteractionRequest = { ...askForm, kind: { type: "text", multiline: false } };

describe("elicitation mapping", () => {
  it("sends forms as they are and text as a one-field form; mode only on 2025-11-25", () => {
    expect(questionFor(askForm, "e", "2025-06-18").params).toEqual({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    expect(questionFor(askText, "e", "2025-11-25").params).toEqual({
      mode: "form",
      message: "Name?",
      requestedSchema: {
        type: "object",
        properties: { text: { type: "string", title: "Name?" } },
        required: ["text"],
      },
    });
  });

  it("maps accept/decline/cancel and errors to submit/decline/cancel", () => {
    const result = (r: Record<string, unknown>) => ({
      jsonrpc: "2.0" as const,
      id: "e",
      result: r,
    });
    expect(answerFrom(askForm, result({ action: "accept", content: { name: "A" } }))).toEqual({
      type: "submit",
      id: "q1",
      content: { name: "A" },
    });
    expect(answerFrom(askText, result({ action: "accept", content: { text: "hi" } }))).toEqual({
      type: "submit",
      id: "q1",
      content: "hi",
    });
    expect(answerFrom(askForm, result({ action: "decline" })).type).toBe("decline");
    expect(answerFrom(askForm, result({ action: "cancel" })).type).toBe("cancel");
    expect(answerFrom(askForm, result({ action: "maybe" })).type).toBe("cancel");
    expect(answerFrom(askText, result({ action: "accept", content: {} })).type).toBe("cancel");
    const error = { jsonrpc: "2.0" as const, id: "e", error: { code: -32601, message: "no" } };
    expect(answerFrom(askForm, error).type).toBe("cancel");
  });
});

describe("elicitation over the wire (stateless)", () => {
  it("hands a text question's answer to the tool as a string, as a local call does", async () => {
    const { handler } = fixtureHandler({ interactionPolicy: "elicit" });
    const response = await handler.fetch(
      post(rpc(1, "tools/call", { name: "ask_text", arguments: {} })),
    );
    const stream = events(response);
    const question = (await stream.next()).value as Record<string, unknown>;
    expect(question).toMatchObject({ method: "elicitation/create" });
    const answer = { action: "accept", content: { text: "Paris" } };
    await handler.fetch(post({ jsonrpc: "2.0", id: question.id, result: answer }));
    expect((await stream.next()).value).toMatchObject({
      id: 1,
      result: { content: [{ text: "got Paris" }], isError: false },
    });
  });

  it("streams elicitation/create, takes the answer as a separate POST, then the result", async () => {
    const { handler } = fixtureHandler({ interactionPolicy: "elicit" });
    const response = await handler.fetch(
      post(rpc(1, "tools/call", { name: "ask", arguments: {} })),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const stream = events(response);
    const first = (await stream.next()).value as Record<string, unknown>;
    expect(first).toMatchObject({
      method: "elicitation/create",
      params: { message: "Your name?" },
    });
    const answer = {
      jsonrpc: "2.0",
      id: first.id,
      result: { action: "accept", content: { name: "Bo" } },
    };
    expect((await handler.fetch(post(answer))).status).toBe(202);
    expect((await stream.next()).value).toMatchObject({
      id: 1,
      result: { content: [{ text: "Hello Bo" }] },
    });
  });

  it("cancels the call when the client answers `cancel`", async () => {
    const { handler } = fixtureHandler({ interactionPolicy: "elicit" });
    const response = await handler.fetch(
      post(rpc(2, "tools/call", { name: "ask", arguments: {} })),
    );
    const stream = events(response);
    const first = (await stream.next()).value as Record<string, unknown>;
    await handler.fetch(post({ jsonrpc: "2.0", id: first.id, result: { action: "cancel" } }));
    const last = (await stream.next()).value as {
      result: { isError: boolean; content: { text: string }[] };
    };
    expect(last.result.isError).toBe(true);
    expect(last.result.content[0]?.text).toContain("cancelled");
  });

  it("cancels the question when nobody answers within interactionTimeoutMs", async () => {
    const { handler } = fixtureHandler({ interactionPolicy: "elicit", interactionTimeoutMs: 20 });
    const response = await handler.fetch(
      post(rpc(3, "tools/call", { name: "ask", arguments: {} })),
    );
    const stream = events(response);
    await stream.next();
    const last = (await stream.next()).value as {
      result: { isError: boolean; content: { text: string }[] };
    };
    expect(last.result.isError).toBe(true);
    expect(last.result.content[0]?.text).toContain("did not answer in time");
  });

  it("ignores an answer carrying an id it never asked", async () => {
    const { handler } = fixtureHandler({ interactionPolicy: "elicit" });
    const stray = { jsonrpc: "2.0", id: crypto.randomUUID(), result: { action: "accept" } };
    expect((await handler.fetch(post(stray))).status).toBe(202);
  });
});

const sample: ToolInteractionRequest = {
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
    expect(questionFor(sample, "s", undefined).params).toEqual({
      messages: [
        { role: "user", content: { type: "text", text: "Hi" } },
        { role: "assistant", content: { type: "image", mimeType: "image/png", data: "AA==" } },
      ],
      maxTokens: 10,
    });
    const full = {
      ...sample,
      kind: { ...sample.kind, systemPrompt: "s", temperature: 0, stopSequences: ["x"] },
    } as ToolInteractionRequest;
    expect(questionFor(full, "s", undefined).params).toMatchObject({
      systemPrompt: "s",
      temperature: 0,
      stopSequences: ["x"],
    });
  });

  it("submits a clean result, declines on an error, cancels on a malformed result", () => {
    expect(answerFrom(sample, ok({ ...reply, stopReason: "endTurn", _meta: {} }))).toEqual({
      type: "submit",
      id: "q1",
      content: { ...reply, stopReason: "endTurn" },
    });
    const refused = { jsonrpc: "2.0" as const, id: "s", error: { code: -1, message: "no" } };
    expect(answerFrom(sample, refused)).toEqual({
      type: "decline",
      id: "q1",
      reason: "the client refused: no",
    });
    for (const bad of [{ ...reply, role: "user" }, { ...reply, model: 3 }, { action: "accept" }]) {
      expect(answerFrom(sample, ok(bad)).type).toBe("cancel");
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
