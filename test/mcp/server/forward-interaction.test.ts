import { describe, expect, it } from "vitest";
import { type ToolInteractionRequest, toolName } from "../../../src/index.ts";
import {
  answerFrom,
  capabilityFor,
  clientDeclares,
  questionFor,
} from "../../../src/mcp/server/forward-interaction.ts";
import type { Session } from "../../../src/mcp/server/sessions.ts";

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

function session(clientCapabilities: Record<string, unknown>): Session {
  return { id: "s", protocolVersion: "2025-11-25", clientCapabilities, logLevel: undefined };
}

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
    // Hint: an error cancels an elicitation but only declines sampling (how clients refuse it).
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
