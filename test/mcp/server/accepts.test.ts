import { describe, expect, it } from "vitest";
import { accepts } from "../../../src/mcp/server/accepts.ts";

describe("accepts", () => {
  it("admits an exact type, its subtype wildcard and */*", () => {
    expect(accepts("application/json", "application/json")).toBe(true);
    expect(accepts("text/*", "text/event-stream")).toBe(true);
    expect(accepts("*/*", "text/event-stream")).toBe(true);
    expect(accepts("Application/JSON ; charset=utf-8", "application/json")).toBe(true);
  });

  it("refuses a missing header, another type, and q=0 on the most specific range", () => {
    expect(accepts(null, "application/json")).toBe(false);
    expect(accepts("text/html", "application/json")).toBe(false);
    expect(accepts("*/*, application/json;q=0", "application/json")).toBe(false);
    expect(accepts("text/*;q=0, text/event-stream", "text/event-stream")).toBe(true);
    expect(accepts("application/json;q=abc", "application/json")).toBe(false);
  });
});
