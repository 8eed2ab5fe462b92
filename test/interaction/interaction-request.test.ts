import { describe, expect, test } from "vitest";
import { newInteractionId } from "../../src/interaction/interaction-request.ts";

describe("newInteractionId", () => {
  test("returns a fresh opaque id each time", () => {
    const ids = new Set(Array.from({ length: 100 }, newInteractionId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toEqual(expect.any(String));
  });
});
