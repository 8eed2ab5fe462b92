import { describe, expect, it } from "vitest";
import { logFromMcp } from "../../../src/mcp/client/log-from-mcp.ts";

describe("logFromMcp", () => {
  it("maps a message with an MCP level, keeping a string logger", () => {
    expect(logFromMcp({ level: "warning", data: { n: 1 }, logger: "db" })).toEqual({
      level: "warning",
      data: { n: 1 },
      logger: "db",
    });
    expect(logFromMcp({ level: "debug", data: "x", logger: 3 })).toEqual({
      level: "debug",
      data: "x",
    });
  });

  it("ignores an unknown or missing level", () => {
    expect(logFromMcp({ level: "loud", data: "x" })).toBeUndefined();
    expect(logFromMcp({ data: "x" })).toBeUndefined();
  });
});
