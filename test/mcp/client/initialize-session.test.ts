import { describe, expect, it } from "vitest";
import { initializeSession } from "../../../src/mcp/client/initialize-session.ts";
import { McpSession } from "../../../src/mcp/client/mcp-session.ts";
import { caught } from "../../support/caught.ts";
import { createFakeMcp, type FakeMcpOptions } from "../../support/fake-mcp-fetch.ts";

const start = async (
  fake: FakeMcpOptions,
  formInteractions = false,
  samplingInteractions = false,
) => {
  const server = createFakeMcp(fake);
  const session = new McpSession("http://x.test/mcp", new Headers(), server.fetch);
  const options = { timeoutMs: 5000, formInteractions, samplingInteractions };
  const outcome = initializeSession(session, options);
  return { server, session, outcome };
};

describe("initializeSession", () => {
  it("offers the newest revision, adopts the server's, then sends initialized with it", async () => {
    const { server, outcome } = await start({ protocolVersion: "2025-06-18", sessionId: "s" });
    expect(await outcome).toEqual({ protocolVersion: "2025-06-18", tools: true });
    const [init] = server.messages("initialize");
    expect(init?.params).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "toolwire" },
    });
    const initialized = server.requests.at(-1);
    expect((initialized?.body as { method?: string } | undefined)?.method).toBe(
      "notifications/initialized",
    );
    expect(initialized?.headers.get("mcp-protocol-version")).toBe("2025-06-18");
    expect(initialized?.headers.get("mcp-session-id")).toBe("s");
  });

  it("advertises elicitation only with form interactions", async () => {
    const { server, outcome } = await start({}, true);
    await outcome;
    expect(server.messages("initialize")[0]?.params).toMatchObject({
      capabilities: { elicitation: {} },
    });
  });

  it("advertises sampling only with sampling interactions, alone or beside elicitation", async () => {
    const sampling = await start({}, false, true);
    await sampling.outcome;
    expect(sampling.server.messages("initialize")[0]?.params).toEqual(
      expect.objectContaining({ capabilities: { sampling: {} } }),
    );
    const both = await start({}, true, true);
    await both.outcome;
    expect(both.server.messages("initialize")[0]?.params).toEqual(
      expect.objectContaining({ capabilities: { elicitation: {}, sampling: {} } }),
    );
  });

  it("reports a server without tools, and refuses a revision toolwire does not speak", async () => {
    expect(await (await start({ noToolsCapability: true })).outcome).toMatchObject({
      tools: false,
    });
    const { server, outcome } = await start({ protocolVersion: "2024-11-05" });
    const error = await caught(outcome);
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("2024-11-05");
    expect(server.messages("notifications/initialized")).toEqual([]);
  });
});
