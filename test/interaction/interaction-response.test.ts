import { describe, expect, test } from "vitest";
import { InteractionResponse } from "../../src/interaction/interaction-response.ts";

describe("InteractionResponse", () => {
  test("submit echoes the id and carries the content", () => {
    expect(InteractionResponse.submit("i-1", "Chicago")).toEqual({
      type: "submit",
      id: "i-1",
      content: "Chicago",
    });
  });

  test("decline and cancel carry a reason only when given", () => {
    expect(InteractionResponse.decline("i-1")).toEqual({ type: "decline", id: "i-1" });
    expect(InteractionResponse.decline("i-1", "no")).toEqual({
      type: "decline",
      id: "i-1",
      reason: "no",
    });
    expect(InteractionResponse.cancel("i-1")).toEqual({ type: "cancel", id: "i-1" });
    expect(InteractionResponse.cancel("i-1", "stop")).toEqual({
      type: "cancel",
      id: "i-1",
      reason: "stop",
    });
  });
});
