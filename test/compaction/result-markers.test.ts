import { describe, expect, test } from "vitest";
import {
  isCompactionMarker,
  isRefusal,
  repeatMarker,
  staleMarker,
  thinText,
} from "../../src/compaction/result-markers.ts";

describe("result markers", () => {
  test("recognises its own markers and nothing else", () => {
    expect(isCompactionMarker(staleMarker("read", "write"))).toBe(true);
    expect(isCompactionMarker(repeatMarker())).toBe(true);
    expect(isCompactionMarker(thinText("x".repeat(500)))).toBe(true);
    expect(isCompactionMarker("[stale] text")).toBe(false);
  });

  test("thins to 240 characters plus the omitted count", () => {
    expect(thinText("a".repeat(300))).toBe(
      `${"a".repeat(240)}\n[thinned: 60 more characters omitted]`,
    );
  });

  test("recognises the three refusal prefixes, ignoring leading space", () => {
    expect(isRefusal("Denied by the user: no")).toBe(true);
    expect(isRefusal("  Blocked by policy: x")).toBe(true);
    expect(isRefusal("Blocked by a hook: y")).toBe(true);
    expect(isRefusal("Error: Denied by the user: no")).toBe(false);
  });
});
