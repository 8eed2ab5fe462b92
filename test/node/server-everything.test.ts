// `connectMcp` reads resources, gets prompts and calls a task-only tool (2025-11-25 tasks, with a
// question asked on the `tasks/result` stream) on the reference server of the MCP project,
// @modelcontextprotocol/server-everything (built on the official SDK 1.x), over its Streamable
// HTTP transport: design.md "Consuming MCP", M19, against real software rather than our own
// handler.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InteractionResponse, isToolError } from "../../src/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { connectStdio } from "../../src/node/index.ts";

const entry = fileURLToPath(
  new URL(
    "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    import.meta.url,
  ),
);

let child: ChildProcess | undefined;
let url = "";

// A port no one listens on now: the server takes its port from `PORT` only.
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}/mcp`;
  const started = spawn(process.execPath, [entry, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  child = started;
  await new Promise<void>((resolve, reject) => {
    let said = "";
    started.stderr?.on("data", (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes("listening on port")) resolve();
    });
    started.once("exit", (code) =>
      reject(new Error(`server-everything exited (${code}): ${said}`)),
    );
  });
}, 30_000);

afterAll(() => {
  child?.kill();
});

describe("connectMcp against server-everything", () => {
  it("lists and reads its resources, fixed and templated, as untrusted data", async () => {
    const everything = await connectMcp({ url, protocol: "2025-11-25" });
    try {
      const resources = await everything.listResources();
      expect(resources.length).toBeGreaterThan(0);
      const first = resources[0];
      if (!first) throw new Error("no resource listed");
      const read = await everything.readResource(first.uri);
      expect(read.contents.length).toBeGreaterThan(0);
      expect(read.contents[0]?.uri).toBe(first.uri);
      expect(read.source).toEqual({ type: "mcp", origin: url, trusted: false });
      const templates = await everything.listResourceTemplates();
      expect(templates.map((template) => template.uriTemplate)).toContain(
        "demo://resource/dynamic/text/{resourceId}",
      );
      const dynamic = await everything.readResource("demo://resource/dynamic/text/7");
      expect(dynamic.contents[0]).toMatchObject({
        type: "text",
        uri: "demo://resource/dynamic/text/7",
      });
      const missing = await everything.readResource("demo://nowhere").catch((e: unknown) => e);
      expect(isToolError(missing)).toBe(true);
    } finally {
      await everything.shutdown();
    }
  });

  it("lists its task-only research tool and calls it as a task, answering its clarifying question", async () => {
    const everything = await connectMcp({ url, protocol: "2025-11-25", formInteractions: true });
    try {
      const tools = await everything.listTools();
      expect(tools.map((tool) => tool.name)).toContain("simulate-research-query");
      const asked: string[] = [];
      const result = await everything.call(
        "simulate-research-query",
        { topic: "python", ambiguous: true },
        {
          onInteraction: async (request) => {
            asked.push(request.prompt);
            return InteractionResponse.submit(request.id, { interpretation: "snake" });
          },
        },
      );
      expect(result.isError).toBe(false);
      expect(asked).toHaveLength(1);
      expect(asked[0]).toContain("python");
      const text = result.content[0]?.type === "text" ? result.content[0].text : "";
      expect(text).toContain("# Research Report: python (snake)");
    } finally {
      await everything.shutdown();
    }
  }, 30_000);

  it("calls the same task tool over stdio, its question reaching onInteraction while no call is in flight", async () => {
    const everything = await connectStdio({
      command: process.execPath,
      args: [entry, "stdio"],
      formInteractions: true,
    });
    try {
      const result = await everything.call(
        "simulate-research-query",
        { topic: "python", ambiguous: true },
        {
          onInteraction: async (request) =>
            InteractionResponse.submit(request.id, { interpretation: "programming" }),
        },
      );
      const text = result.content[0]?.type === "text" ? result.content[0].text : "";
      expect(text).toContain("# Research Report: python (programming)");
    } finally {
      await everything.shutdown();
    }
  }, 30_000);

  it("lists its prompts and gets one with arguments", async () => {
    const everything = await connectMcp({ url, protocol: "2025-11-25" });
    try {
      const prompts = await everything.listPrompts();
      const args = prompts.find((prompt) => prompt.name === "args-prompt");
      expect(args?.arguments).toEqual([
        expect.objectContaining({ name: "city", required: true }),
        expect.objectContaining({ name: "state", required: false }),
      ]);
      const prompt = await everything.getPrompt("args-prompt", { city: "Paris" });
      expect(prompt.messages).toEqual([
        { role: "user", content: { type: "text", text: "What's weather in Paris?" } },
      ]);
      expect(prompt.source.trusted).toBe(false);
    } finally {
      await everything.shutdown();
    }
  });
});
