// A served tool's `ctx.requestRoots()` through connectMcp → createMcpHandler, in-process: a 2025
// `roots/list` request on the call's stream, a 2026-07-28 `input_required` round, answered by the
// caller's `onInteraction` with the roots it lets the tool work in.
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  defineTool,
  InteractionResponse,
  isToolError,
  type ToolInteractionRequest,
  Toolset,
} from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { caught } from "../support/caught.ts";

const URL_ = "http://localhost/mcp";

const where = defineTool({
  name: "where",
  description: "Names the roots the caller lets it work in",
  input: v.object({}),
  readOnly: true,
  interactions: { roots: true },
  call: async (_input, ctx) => {
    try {
      const roots = await ctx.requestRoots();
      return roots.map((root) => `${root.name ?? "?"}=${root.uri}`).join(", ") || "no roots";
    } catch (error) {
      return `no roots: ${(error as Error).message}`;
    }
  },
});

const ROOTS = [{ uri: "file:///work/project", name: "project" }, { uri: "file:///tmp" }];

const MODES = [
  { label: "2025-11-25 stateless", sessions: "stateless", protocol: "2025-11-25" },
  { label: "2025-11-25 memory session", sessions: "memory", protocol: "2025-11-25" },
  { label: "2026-07-28", sessions: "stateless", protocol: "2026-07-28" },
] as const;

function connect(mode: (typeof MODES)[number], rootsInteractions?: boolean) {
  const handler = createMcpHandler(Toolset.local([where]), {
    name: "roots-test",
    version: "1.0.0",
    sessions: mode.sessions,
    interactionPolicy: "elicit",
  });
  return connectMcp({
    url: URL_,
    fetch: handler.fetch,
    protocol: mode.protocol,
    ...(rootsInteractions === undefined ? {} : { rootsInteractions }),
  });
}

describe("MCP round trip: roots", () => {
  for (const mode of MODES) {
    it(`a served tool's requestRoots reaches the caller's onInteraction and gets its roots (${mode.label})`, async () => {
      const toolset = await connect(mode, true);
      const [tool] = await toolset.listTools();
      expect(tool?.interactions.roots).toBe(true);
      const asked: ToolInteractionRequest[] = [];
      const result = await toolset.call(
        "where",
        {},
        {
          onInteraction: async (request) => {
            asked.push(request);
            return InteractionResponse.submit(request.id, ROOTS);
          },
        },
      );
      expect(result.content).toEqual([
        { type: "text", text: "project=file:///work/project, ?=file:///tmp" },
      ]);
      expect(asked).toMatchObject([{ toolName: "where", kind: { type: "roots" } }]);
      await toolset.shutdown();
    });
  }

  it("a reply that is not a list of roots fails the call as invalid_interaction", async () => {
    const toolset = await connect(MODES[1], true);
    const error = await caught(
      toolset.call(
        "where",
        {},
        { onInteraction: async (request) => InteractionResponse.submit(request.id, [{}]) },
      ),
    );
    expect(isToolError(error, "invalid_interaction")).toBe(true);
    expect((error as Error).message).toContain("a roots reply must be an array of { uri, name? }");
    await toolset.shutdown();
  });

  it("a caller's decline reaches the served tool as interaction_declined (2025-11-25)", async () => {
    const toolset = await connect(MODES[1], true);
    const result = await toolset.call(
      "where",
      {},
      { onInteraction: async (request) => InteractionResponse.decline(request.id) },
    );
    expect((result.content[0] as { text: string }).text).toMatch(
      /^no roots: .*declined.*User rejected roots request/,
    );
    await toolset.shutdown();
  });

  it("without rootsInteractions (the default), a session's server never asks: the tool sees the missing capability", async () => {
    const toolset = await connect(MODES[1]);
    const [tool] = await toolset.listTools();
    expect(tool?.interactions.roots).toBe(false);
    const result = await toolset.call("where", {});
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain(
      "did not declare the roots capability",
    );
    await toolset.shutdown();
  });

  it("without rootsInteractions, a 2026-07-28 server refuses the call for the capability it needs", async () => {
    const toolset = await connect(MODES[2]);
    const error = await caught(
      toolset.call("where", {}, { onInteraction: async (r) => InteractionResponse.decline(r.id) }),
    );
    expect(isToolError(error)).toBe(true);
    expect((error as Error).message).toContain('{"roots":{}}');
    await toolset.shutdown();
  });
});

describe("MCP round trip: several questions at once", () => {
  const everything = defineTool({
    name: "everything",
    description: "Asks for a name, the model's greeting and the roots together",
    input: v.object({}),
    readOnly: true,
    interactions: { form: true, sampling: true, roots: true },
    call: async (_input, ctx) => {
      const [{ name }, greeting, roots] = await Promise.all([
        ctx.requestForm("Name?", { type: "object", properties: { name: { type: "string" } } }),
        ctx.requestSampling({
          messages: [{ role: "user", content: { type: "text", text: "Greet" } }],
          maxTokens: 10,
        }),
        ctx.requestRoots(),
      ]);
      const text = greeting.content.type === "text" ? greeting.content.text : "?";
      return `${text} ${String(name)} in ${roots.map((root) => root.uri).join(",")}`;
    },
  });

  for (const mode of MODES) {
    // 2026-07-28: one input_required round carries all three, so each reaches onInteraction
    // before any is answered. 2025-11-25 sends each as it is asked on the call's stream, and the
    // client sees the next once it answered the one before.
    const together = mode.protocol === "2026-07-28";
    it(`a tool's questions asked together all reach onInteraction (${mode.label})`, async () => {
      let posts = 0;
      const handler = createMcpHandler(Toolset.local([everything]), {
        name: "all-at-once",
        version: "1.0.0",
        sessions: mode.sessions,
        interactionPolicy: "elicit",
      });
      const toolset = await connectMcp({
        url: URL_,
        fetch: (input, init) => {
          if (init?.method === "POST" && String(init.body).includes('"tools/call"')) posts++;
          return handler.fetch(input as string, init);
        },
        protocol: mode.protocol,
        formInteractions: true,
        samplingInteractions: true,
        rootsInteractions: true,
      });
      const kinds: string[] = [];
      let release: () => void = () => {};
      const allAsked = new Promise<void>((resolve) => {
        release = resolve;
      });
      const result = await toolset.call(
        "everything",
        {},
        {
          onInteraction: async (request) => {
            kinds.push(request.kind.type);
            if (kinds.length === 3) release();
            if (together) await allAsked;
            switch (request.kind.type) {
              case "form":
                return InteractionResponse.submit(request.id, { name: "Ada" });
              case "sampling":
                return InteractionResponse.submit(request.id, {
                  role: "assistant",
                  content: { type: "text", text: "Hello" },
                  model: "m",
                });
              default:
                return InteractionResponse.submit(request.id, ROOTS);
            }
          },
        },
      );
      expect(result.content).toEqual([
        { type: "text", text: "Hello Ada in file:///work/project,file:///tmp" },
      ]);
      expect([...kinds].sort()).toEqual(["form", "roots", "sampling"]);
      // One input_required round carried all three, so the call was sent twice; 2025 once.
      expect(posts).toBe(together ? 2 : 1);
      await toolset.shutdown();
    });
  }
});
