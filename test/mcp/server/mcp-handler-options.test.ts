import { describe, expect, it } from "vitest";
import { resolveOptions } from "../../../src/mcp/server/mcp-handler-options.ts";
import { caught } from "../../support/caught.ts";

describe("resolveOptions", () => {
  it("fills in the defaults", () => {
    expect(resolveOptions({ name: "n", version: "1" })).toMatchObject({
      endpoint: "/mcp",
      maxBodyBytes: 1024 * 1024,
      sessions: "stateless",
      maxSessions: 1024,
      sessionIdleTimeoutMs: 1_800_000,
      interactionPolicy: "reject",
      interactionTimeoutMs: 300_000,
      pageSize: 64,
    });
  });

  it("refuses bad identity, endpoint, limits and modes with invalid_configuration", async () => {
    const bad = [
      { name: "", version: "1" },
      { name: "n", version: "" },
      { name: "n", version: "1", endpoint: "mcp" },
      { name: "n", version: "1", endpoint: "/mcp?x=1" },
      { name: "n", version: "1", maxBodyBytes: 0 },
      { name: "n", version: "1", maxSessions: 1.5 },
      { name: "n", version: "1", sessionIdleTimeoutMs: -1 },
      { name: "n", version: "1", pageSize: Number.NaN },
      { name: "n", version: "1", sessions: "redis" },
      { name: "n", version: "1", interactionPolicy: "ask" },
    ];
    for (const options of bad) {
      const error = await caught(() => resolveOptions(options as never));
      expect(error.type, JSON.stringify(options)).toBe("invalid_configuration");
    }
    expect((await caught(() => resolveOptions(undefined as never))).type).toBe(
      "invalid_configuration",
    );
  });
});
