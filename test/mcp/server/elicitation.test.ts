import { describe, expect, it } from "vitest";
import type { ToolInteractionRequest } from "../../../src/index.ts";
import { toolName } from "../../../src/index.ts";
import { toElicitParams, toInteractionResponse } from "../../../src/mcp/server/elicitation.ts";
import { streamEvents as events, fixtureHandler, post, rpc } from "./fixture.ts";

const form: ToolInteractionRequest = {
  id: "q1",
  toolName: toolName("ask"),
  prompt: "Name?",
  kind: {
    type: "form",
    schema: { properties: { name: { type: "string" } } },
    schemaValidation: false,
  },
};
const text: ToolInteractionRequest = { ...form, kind: { type: "text", multiline: false } };

describe("elicitation mapping", () => {
  it("sends forms as they are and text as a one-field form; mode only on 2025-11-25", () => {
    expect(toElicitParams(form, "2025-06-18")).toEqual({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    expect(toElicitParams(text, "2025-11-25")).toEqual({
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
    expect(
      toInteractionResponse(form, result({ action: "accept", content: { name: "A" } })),
    ).toEqual({
      type: "submit",
      id: "q1",
      content: { name: "A" },
    });
    expect(
      toInteractionResponse(text, result({ action: "accept", content: { text: "hi" } })),
    ).toEqual({
      type: "submit",
      id: "q1",
      content: "hi",
    });
    expect(toInteractionResponse(form, result({ action: "decline" })).type).toBe("decline");
    expect(toInteractionResponse(form, result({ action: "cancel" })).type).toBe("cancel");
    expect(toInteractionResponse(form, result({ action: "maybe" })).type).toBe("cancel");
    expect(toInteractionResponse(text, result({ action: "accept", content: {} })).type).toBe(
      "cancel",
    );
    const error = { jsonrpc: "2.0" as const, id: "e", error: { code: -32601, message: "no" } };
    expect(toInteractionResponse(form, error).type).toBe("cancel");
  });
});

describe("elicitation over the wire (stateless)", () => {
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
