import { describe, expect, it } from "vitest";
import { toolName } from "../../../src/declaration/tool-name.ts";
import {
  elicitResultFor,
  interactionFromElicitation,
} from "../../../src/mcp/client/elicitation.ts";

const context = { toolName: toolName("book"), callId: "c1" };
const schema = { type: "object", properties: { city: { type: "string" } } };

describe("interactionFromElicitation", () => {
  it("makes a form elicitation a validated form interaction with a fresh id", () => {
    const a = interactionFromElicitation({ message: "Where?", requestedSchema: schema }, context);
    const b = interactionFromElicitation(
      { mode: "form", message: "Where?", requestedSchema: schema },
      { toolName: toolName("book"), callId: undefined },
    );
    expect(a).toMatchObject({
      toolName: "book",
      callId: "c1",
      prompt: "Where?",
      kind: { type: "form", schema, schemaValidation: true },
    });
    expect(b && "callId" in b).toBe(false);
    expect(a?.id).not.toBe(b?.id);
  });

  it("returns nothing for URL mode or a missing schema, which the client declines", () => {
    expect(
      interactionFromElicitation({ mode: "url", url: "https://x", message: "m" }, context),
    ).toBe(undefined);
    expect(interactionFromElicitation({ message: "m" }, context)).toBeUndefined();
    expect(
      interactionFromElicitation({ message: "m", requestedSchema: [1] }, context),
    ).toBeUndefined();
  });

  it("uses an empty prompt when the message is not a string", () => {
    expect(
      interactionFromElicitation({ message: 5, requestedSchema: schema }, context)?.prompt,
    ).toBe("");
  });
});

describe("elicitResultFor", () => {
  it("maps submit, decline and cancel to accept, decline and cancel", () => {
    expect(elicitResultFor({ type: "submit", id: "i", content: { city: "Oslo" } })).toEqual({
      action: "accept",
      content: { city: "Oslo" },
    });
    expect(elicitResultFor({ type: "decline", id: "i" })).toEqual({ action: "decline" });
    expect(elicitResultFor({ type: "cancel", id: "i", reason: "no" })).toEqual({
      action: "cancel",
    });
  });
});
