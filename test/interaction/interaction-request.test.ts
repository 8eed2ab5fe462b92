import { afterEach, describe, expect, test, vi } from "vitest";
import { newInteractionId } from "../../src/interaction/interaction-request.ts";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => vi.unstubAllGlobals());

describe("newInteractionId", () => {
  test("returns a fresh opaque id each time", () => {
    const ids = new Set(Array.from({ length: 100 }, newInteractionId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(UUID_V4);
  });

  test("still returns version-4 UUIDs where randomUUID is missing (a page on plain http)", () => {
    const { getRandomValues } = crypto;
    vi.stubGlobal("crypto", { getRandomValues: getRandomValues.bind(crypto) });
    const ids = new Set(Array.from({ length: 100 }, newInteractionId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(UUID_V4);
  });
});
