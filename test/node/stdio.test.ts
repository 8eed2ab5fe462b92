// MCP's stdio transport both ways: `connectStdio` against servers nobody here wrote (the
// reference memory and filesystem servers from npm, the official SDK's stdio server) and a
// rogue one that dies, floods or lies; `serveStdio` driven by the official SDK's
// `StdioClientTransport` and MCP Inspector's CLI; both eras (2026-07-28 between `connectStdio`
// and `serveStdio`, and with the SDK v2 client pinned to it). See docs/design.md, "stdio".
import { execFile, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { promisify } from "node:util";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isReadOnly, isToolError, type ToolLog, type Toolset } from "../../src/index.ts";
import { createMcpHandler } from "../../src/mcp/index.ts";
import { connectMcpServers, connectStdio, serveStdio } from "../../src/node/index.ts";
import { fixtureToolset, nestedText } from "../mcp/server/fixture.ts";
import { caught } from "../support/caught.ts";

const root = join(import.meta.dirname, "../..");
const fixtures = join(import.meta.dirname, "fixtures");
const bin = (name: string) =>
  join(root, "node_modules/@modelcontextprotocol", name, "dist/index.js");
const tsx = ["--import", "tsx"];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "toolwire-stdio-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function using<T>(toolset: Promise<Toolset>, run: (tools: Toolset) => Promise<T>) {
  const tools = await toolset;
  try {
    return await run(tools);
  } finally {
    await tools.shutdown();
  }
}

function text(result: { content: readonly unknown[] }): string {
  return result.content.map((block) => (block as { text?: string }).text ?? "").join("");
}

function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** `serveStdio` on in-process streams: write lines to `input`; `lines` collects each answer. */
function serveInProcess(toolset: Toolset) {
  const input = new PassThrough();
  const output = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  let buffered = "";
  output.on("data", (chunk: Buffer) => {
    buffered += chunk;
    const complete = buffered.split("\n");
    buffered = complete.pop() ?? "";
    for (const line of complete) lines.push(JSON.parse(line));
  });
  const served = serveStdio(toolset, { name: "calc", version: "1.0.0", input, output });
  return { input, output, lines, served };
}

describe("connectStdio against the reference servers", () => {
  it("uses server-memory's knowledge graph, namespaced and untrusted by default", async () => {
    const file = join(dir, "memory.jsonl");
    await using(
      connectStdio({
        command: process.execPath,
        args: [bin("server-memory")],
        env: { MEMORY_FILE_PATH: file },
        namespace: "mem",
        stderr: "pipe",
      }),
      async (memory) => {
        const tools = await memory.listTools();
        const read = tools.find((tool) => tool.name === "mem__read_graph");
        expect(read?.source).toEqual({ type: "mcp", origin: process.execPath, trusted: false });
        expect(read && isReadOnly(read)).toBe(false);
        expect(read?.capabilities).toEqual({
          privateData: true,
          untrustedInput: true,
          externalSend: true,
          destructive: true,
        });
        const entity = { name: "toolwire", entityType: "project", observations: ["speaks stdio"] };
        await memory.call("mem__create_entities", { entities: [entity] });
        const graph = await memory.call("mem__read_graph", {});
        expect(graph.structuredContent).toMatchObject({ entities: [entity] });
        expect(await readFile(file, "utf8")).toContain("speaks stdio");
      },
    );
  });

  it("reads and writes files through server-filesystem on a temp dir, hints believed on opt-in", async () => {
    await writeFile(join(dir, "note.txt"), "hello from disk");
    await using(
      connectStdio({
        command: process.execPath,
        args: [bin("server-filesystem"), dir],
        namespace: "fs",
        stderr: "ignore",
        trustAnnotations: true,
      }),
      async (fs) => {
        const tools = await fs.listTools();
        const read = tools.find((tool) => tool.name === "fs__read_text_file");
        expect(read?.source?.trusted).toBe(true);
        expect(read && isReadOnly(read)).toBe(true);
        const note = await fs.call("fs__read_text_file", { path: join(dir, "note.txt") });
        expect(text(note)).toBe("hello from disk");
        await fs.call("fs__write_file", { path: join(dir, "new.txt"), content: "written" });
        expect(await readFile(join(dir, "new.txt"), "utf8")).toBe("written");
        const outside = await fs.call("fs__read_text_file", { path: "/etc/hostname" });
        expect(outside.isError).toBe(true);
      },
    );
  });
});

describe("connectStdio against the official SDK's stdio server", () => {
  // One server process for the suite: each spawn through tsx costs about a second.
  let sdk: Toolset;
  const stderr: string[] = [];
  let onStderr: (line: string) => void = () => {};
  beforeAll(async () => {
    sdk = await connectStdio({
      command: process.execPath,
      args: [...tsx, join(fixtures, "sdk-stdio-server.ts")],
      cwd: root,
      stderr: (line) => {
        stderr.push(line);
        onStderr(line);
      },
      formInteractions: true,
    });
  });
  afterAll(() => sdk.shutdown());

  it("streams the call's progress and log messages to the caller", async () => {
    const seen: number[] = [];
    const logs: unknown[] = [];
    const result = await sdk.call(
      "steps",
      { n: 3 },
      { onProgress: (p) => seen.push(p.progress), onLog: (log) => logs.push(log.data) },
    );
    expect(text(result)).toBe("done 3");
    expect(seen).toEqual([1, 2, 3]);
    expect(logs).toEqual(["stepping 3"]);
  });

  it("routes concurrent calls' answers and progress by id and token", async () => {
    const a: number[] = [];
    const b: number[] = [];
    const [first, second] = await Promise.all([
      sdk.call("steps", { n: 2 }, { onProgress: (p) => a.push(p.progress) }),
      sdk.call("steps", { n: 4 }, { onProgress: (p) => b.push(p.progress) }),
    ]);
    expect([text(first), text(second)]).toEqual(["done 2", "done 4"]);
    expect(a).toEqual([1, 2]);
    expect(b).toEqual([1, 2, 3, 4]);
  });

  it("turns the server's elicitation into an interaction answered through onInteraction", async () => {
    const result = await sdk.call(
      "confirm",
      {},
      {
        onInteraction: async (request) => {
          expect(request.kind.type).toBe("form");
          return { type: "submit", id: request.id, content: { ok: true } };
        },
      },
    );
    expect(text(result)).toBe('accept {"ok":true}');
  });

  it("cancels a running call with notifications/cancelled, and stays usable", async () => {
    const reached = new Promise<void>((resolve) => {
      onStderr = (line) => line === "hang cancelled" && resolve();
    });
    const controller = new AbortController();
    const call = sdk.call("hang", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const error = await caught(call);
    expect(error.type).toBe("cancelled");
    await reached;
    expect(stderr).toContain("hang cancelled");
    expect(text(await sdk.call("look", {}))).toBe("looked");
  });

  it("keeps the server's read-only hint untrusted by default", async () => {
    const look = (await sdk.listTools()).find((tool) => tool.name === "look");
    expect(look?.annotations.readOnlyHint).toBe(true);
    expect(look && isReadOnly(look)).toBe(false);
  });
});

describe("connectStdio when the child misbehaves", () => {
  const rogue = (
    options: {
      stubborn?: boolean;
      mute?: boolean;
      empty?: boolean;
      maxMessageBytes?: number;
      onLog?: (log: ToolLog) => void;
      env?: Record<string, string>;
    } = {},
  ) => {
    let pid = 0;
    const stderr: string[] = [];
    const toolset = connectStdio({
      command: process.execPath,
      args: [
        join(fixtures, "rogue-server.mjs"),
        ...(options.stubborn ? ["--stubborn"] : []),
        ...(options.mute ? ["--mute"] : []),
        ...(options.empty ? ["--empty"] : []),
      ],
      env: { GIVEN: "by the caller", ...options.env },
      stderr: (line) => {
        stderr.push(line);
        const match = /^pid (\d+)$/.exec(line);
        if (match) pid = Number(match[1]);
      },
      shutdownGraceMs: 150,
      ...(options.maxMessageBytes ? { maxMessageBytes: options.maxMessageBytes } : {}),
      ...(options.onLog ? { onLog: options.onLog } : {}),
    });
    return { toolset, pid: () => pid, stderr };
  };

  it("fails a call with transport when the child dies mid-call, quoting its stderr", async () => {
    const child = rogue();
    await using(child.toolset, async (tools) => {
      const error = await caught(tools.call("exit", {}));
      expect(isToolError(error) && error.type).toBe("transport");
      expect((error as Error).message).toMatch(/exited \(code 3\).*dying now/s);
      // Later calls fail the same way instead of hanging.
      const later = await caught(tools.call("env", {}));
      expect(isToolError(later) && later.type).toBe("transport");
    });
  });

  it("bounds a line: an endless one fails the call and stops the child", async () => {
    const child = rogue({ maxMessageBytes: 256 * 1024 });
    await using(child.toolset, async (tools) => {
      const error = await caught(tools.call("flood", {}));
      expect(isToolError(error) && error.type).toBe("transport");
      expect((error as Error).message).toContain("longer than 262144 bytes");
    });
    expect(gone(child.pid())).toBe(true);
  });

  it("fails the waiting call with protocol when the child writes a line that is not JSON", async () => {
    await using(rogue().toolset, async (tools) => {
      const error = await caught(tools.call("garbage", {}));
      expect(isToolError(error) && error.type).toBe("protocol");
      expect((error as Error).message).toContain("this is not JSON");
    });
  });

  it("shows no part of a value the caller passed in env, where stderr or a line is cut", async () => {
    const SECRET = "sk-stdio-secret-0123456789abcdefghij";
    const pieces = Array.from({ length: SECRET.length - 7 }, (_, i) => SECRET.slice(i, i + 8));
    for (const name of ["leak_stderr", "leak_stdout"]) {
      await using(rogue({ env: { SECRET_KEY: SECRET } }).toolset, async (tools) => {
        const error = await caught(tools.call(name, {}));
        const shown = JSON.stringify([error.message, error.toJSON()]);
        expect(shown, name).toContain(name === "leak_stderr" ? "qqqq" : "gggg");
        for (const piece of pieces) expect(shown, name).not.toContain(piece);
      });
    }
  });

  it("passes the caller's env and a minimal set, not this process's secrets", async () => {
    process.env.TOOLWIRE_TEST_SECRET = "hunter2";
    try {
      await using(rogue().toolset, async (tools) => {
        const env = JSON.parse(text(await tools.call("env", {})));
        expect(env.GIVEN).toBe("by the caller");
        expect(env.PATH).toBe(process.env.PATH);
        expect(env.TOOLWIRE_TEST_SECRET).toBeUndefined();
      });
    } finally {
      delete process.env.TOOLWIRE_TEST_SECRET;
    }
  });

  it("shuts down a child that ignores stdin closing and SIGTERM, leaving no process", async () => {
    const child = rogue({ stubborn: true });
    const tools = await child.toolset;
    const pid = child.pid();
    expect(pid).toBeGreaterThan(0);
    expect(gone(pid)).toBe(false);
    await tools.shutdown();
    expect(gone(pid)).toBe(true);
  });

  it("skips a listed tool whose name cannot be used, and says so through onLog", async () => {
    const logs: ToolLog[] = [];
    await using(rogue({ onLog: (log) => logs.push(log) }).toolset, async (tools) => {
      const names: string[] = (await tools.listTools()).map((tool) => tool.name);
      expect(names).not.toContain("no spaces allowed");
      expect(names).toContain("env");
    });
    expect(logs).toEqual([
      expect.objectContaining({
        level: "warning",
        data: expect.objectContaining({ tool: "no spaces allowed" }),
      }),
    ]);
  });

  it("takes a server that leaves server/discover unanswered for a 2025-11-25 one", async () => {
    const child = rogue({ mute: true });
    await using(child.toolset, async (tools) => {
      expect((await tools.listTools()).map((tool) => tool.name)).toContain("env");
    });
  }, 15_000);

  // Issue 22 item 1: `{}` for server/discover is a 2025 server answering every method it does
  // not know, never a 2026 server without tools.
  it("takes a server that answers server/discover with {} for a 2025-11-25 one", async () => {
    const child = rogue({ empty: true });
    await using(child.toolset, async (tools) => {
      expect((await tools.listTools()).map((tool) => tool.name)).toContain("env");
      expect(text(await tools.call("env", {}))).toContain("by the caller");
    });
  });

  it("rejects a command that cannot start with invalid_configuration", async () => {
    const error = await caught(connectStdio({ command: "toolwire-no-such-command" }));
    expect(isToolError(error) && error.type).toBe("invalid_configuration");
    expect((error as Error).message).toContain("could not be started");
  });
});

describe("serveStdio", () => {
  it("serves a Toolset to the official SDK's StdioClientTransport", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...tsx, join(fixtures, "serve-toolset.ts")],
      cwd: root,
      stderr: "pipe",
    });
    const stderr: string[] = [];
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    const client = new Client(
      { name: "sdk", version: "1.0.0" },
      { capabilities: { elicitation: {} } },
    );
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      expect(request.params.message).toBe("Pick a colour");
      return { action: "accept", content: { colour: "teal" } };
    });
    await client.connect(transport);
    const pid = transport.pid;
    try {
      expect(client.getServerVersion()).toMatchObject({ name: "fixture", version: "1.2.3" });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(["ask", "count", "echo", "wait"]);
      const echo = await client.callTool({ name: "echo", arguments: { message: "hi" } });
      expect(echo.content).toEqual([{ type: "text", text: "echo: hi" }]);
      const progress: number[] = [];
      await client.callTool({ name: "count", arguments: {} }, undefined, {
        onprogress: (p) => progress.push(p.progress),
      });
      // The SDK client runs notification handlers a microtask late but drops the progress
      // handler as soon as the response is read: updates read in one chunk with the result
      // reach nobody, and a busy test worker reads the pipe late (a full-suite run got [1]).
      // What does arrive comes in order and unchanged; connectStdio gets every update of the same
      // tool ("lists and calls the served tools with their progress" below).
      expect(progress).toEqual([1, 2, 3].slice(0, progress.length));
      const asked = await client.callTool({ name: "ask", arguments: {} });
      expect(asked.content).toEqual([{ type: "text", text: "colour: teal" }]);
      // The SDK cancels with notifications/cancelled; the tool's signal fires.
      const controller = new AbortController();
      const waiting = client.callTool({ name: "wait", arguments: {} }, undefined, {
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 100);
      await expect(waiting).rejects.toThrow();
      for (let i = 0; i < 100 && !stderr.join("").includes("wait cancelled"); i++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(stderr.join("")).toContain("wait cancelled");
    } finally {
      await client.close();
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (pid) {
      for (let i = 0; i < 50 && !gone(pid); i++) await new Promise((r) => setTimeout(r, 20));
      expect(gone(pid)).toBe(true);
    }
    const log = stderr.join("");
    expect(log).toContain("echo called");
    expect(log.match(/toolset shut down/g)).toHaveLength(1);
  });

  it("serves in-process streams, ends at the input's end and shuts the toolset down", async () => {
    const { toolset } = fixtureToolset();
    const { input, lines, served } = serveInProcess(toolset);
    const answer = async (id: number) => {
      for (let i = 0; i < 200 && !lines.some((line) => line.id === id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return lines.find((line) => line.id === id) as { result?: Record<string, unknown> };
    };
    const send = (message: object) =>
      input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 2 } } });
    expect((await answer(1)).result?.protocolVersion).toBe("2025-11-25");
    expect((await answer(2)).result?.structuredContent).toEqual({ sum: 4 });
    input.end();
    await served;
    expect((await caught(toolset.listTools())).type).toBe("closed");
  });

  // The fixture on raw pipes: the lines it writes, and its exit.
  const raw = () => {
    const child = spawn(process.execPath, [...tsx, join(fixtures, "serve-toolset.ts")], {
      cwd: root,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk;
    });
    // A write after the child stopped reading fails with EPIPE; the tests look at the exit.
    child.stdin.on("error", () => {});
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const lineWith = async (id: number) => {
      for (let i = 0; i < 200; i++) {
        const found = out
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line))
          .find((message) => message.id === id);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`no answer with id ${id}; stdout: ${out}`);
    };
    const initialize = async () => {
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      return lineWith(1);
    };
    return { child, exited, send, lineWith, initialize, stderr: () => err };
  };

  it("ends on SIGTERM, shutting the toolset down once", async () => {
    const server = raw();
    expect((await server.initialize()).result.serverInfo.name).toBe("fixture");
    server.child.kill("SIGTERM");
    await server.exited;
    expect(server.stderr().match(/toolset shut down/g)).toHaveLength(1);
    expect(server.stderr()).toContain("served");
  });

  it("answers ping before initialize, refuses other requests by id, then serves", async () => {
    const server = raw();
    server.send({ jsonrpc: "2.0", id: 6, method: "ping" });
    expect((await server.lineWith(6)).result).toEqual({});
    server.send({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    expect((await server.lineWith(7)).error.message).toBe("tools/list: send initialize first");
    await server.initialize();
    server.send({ jsonrpc: "2.0", id: 8, method: "tools/list" });
    expect((await server.lineWith(8)).result.tools).toHaveLength(4);
    server.child.stdin.end();
    await server.exited;
  });

  it("stops serving at a line longer than its limit", async () => {
    const server = raw();
    await server.initialize();
    server.child.stdin.write("x".repeat(5 * 1024 * 1024));
    await server.exited;
    expect(server.stderr()).toContain("longer than 4194304 bytes");
    expect(server.stderr().match(/toolset shut down/g)).toHaveLength(1);
  });

  it("serves the README's example (examples/stdio/server.ts)", async () => {
    await using(
      connectStdio({
        command: process.execPath,
        args: [...tsx, join(root, "examples/stdio/server.ts")],
        cwd: root,
        namespace: "calc",
        stderr: "ignore",
      }),
      async (calc) => {
        const sum = await calc.call("calc__add", { a: 1, b: 2 });
        expect(sum.structuredContent).toEqual({ sum: 3 });
      },
    );
  });

  it("answers MCP Inspector's CLI mode: tools/list and tools/call", async () => {
    const inspector = join(root, "node_modules/@modelcontextprotocol/inspector/clients/launcher");
    const run = async (...method: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          join(inspector, "build/index.js"),
          "--cli",
          process.execPath,
          join(fixtures, "serve-toolset.mjs"),
          ...method,
        ],
        { cwd: root, timeout: 20_000 },
      );
      return JSON.parse(stdout);
    };
    const listed = (await run("--method", "tools/list")) as { tools: { name: string }[] };
    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(["ask", "count", "echo", "wait"]);
    const called = await run(
      "--method",
      "tools/call",
      "--tool-name",
      "echo",
      "--tool-arg",
      "message=hi",
    );
    expect(called.content).toEqual([{ type: "text", text: "echo: hi" }]);
  }, 30_000);
});

describe("stdio at 2026-07-28", () => {
  // The fixture served with `serveStdio`, reached with `connectStdio` pinned to 2026-07-28.
  let modern: Toolset;
  const stderr: string[] = [];
  let onStderr: (line: string) => void = () => {};
  beforeAll(async () => {
    modern = await connectStdio({
      command: process.execPath,
      args: [...tsx, join(fixtures, "serve-toolset.ts")],
      cwd: root,
      protocol: "2026-07-28",
      formInteractions: true,
      stderr: (line) => {
        stderr.push(line);
        onStderr(line);
      },
    });
  });
  afterAll(() => modern.shutdown());

  it("lists and calls the served tools with their progress", async () => {
    const names = (await modern.listTools()).map((tool) => tool.name);
    expect(names.sort()).toEqual(["ask", "count", "echo", "wait"]);
    expect(text(await modern.call("echo", { message: "hi" }))).toBe("echo: hi");
    const seen: number[] = [];
    const counted = await modern.call("count", {}, { onProgress: (p) => seen.push(p.progress) });
    expect(text(counted)).toBe("counted");
    expect(seen).toEqual([1, 2, 3]);
  });

  it("answers a tool's question through onInteraction (an input_required round)", async () => {
    const asked: string[] = [];
    const result = await modern.call(
      "ask",
      {},
      {
        onInteraction: async (request) => {
          asked.push(`${request.kind.type}: ${request.prompt}`);
          return { type: "submit", id: request.id, content: { colour: "teal" } };
        },
      },
    );
    expect(text(result)).toBe("colour: teal");
    expect(asked).toEqual(["form: Pick a colour"]);
  });

  it("cancels a running call with notifications/cancelled, and stays usable", async () => {
    const reached = new Promise<void>((resolve) => {
      onStderr = (line) => line === "wait cancelled" && resolve();
    });
    const controller = new AbortController();
    const call = modern.call("wait", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect((await caught(call)).type).toBe("cancelled");
    await reached;
    expect(stderr).toContain("wait cancelled");
    expect(text(await modern.call("echo", { message: "again" }))).toBe("echo: again");
  });

  it("is served to the official SDK v2 client pinned to 2026-07-28 over stdio", async () => {
    const transport = new StdioClientTransportV2({
      command: process.execPath,
      args: [...tsx, join(fixtures, "serve-toolset.ts")],
      cwd: root,
      stderr: "pipe",
    });
    const client = new ClientV2(
      { name: "sdk-v2-client", version: "2.4.0" },
      {
        capabilities: { elicitation: { form: {} } },
        versionNegotiation: { mode: { pin: "2026-07-28" } },
      },
    );
    client.setRequestHandler("elicitation/create", async () => ({
      action: "accept",
      content: { colour: "red" },
    }));
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("echo");
      const echoed = await client.callTool({ name: "echo", arguments: { message: "v2" } });
      expect(echoed.content).toEqual([{ type: "text", text: "echo: v2" }]);
      const asked = await client.callTool({ name: "ask", arguments: {} });
      expect(asked.content).toEqual([{ type: "text", text: "colour: red" }]);
    } finally {
      await client.close();
    }
  });

  it("serves a 2026-07-28 line without initialize, with headers taken from the line", async () => {
    const { toolset } = fixtureToolset();
    const { input, lines, served } = serveInProcess(toolset);
    type Answer = { result?: Record<string, unknown>; error?: { code: number; data?: unknown } };
    const answer = async (id: number) => {
      for (let i = 0; i < 200 && !lines.some((line) => line.id === id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return lines.find((line) => line.id === id) as Answer;
    };
    const meta = (version: string) => ({
      "io.modelcontextprotocol/protocolVersion": version,
      "io.modelcontextprotocol/clientCapabilities": {},
    });
    const send = (message: object) =>
      input.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    send({ id: 1, method: "server/discover", params: { _meta: meta("2026-07-28") } });
    send({
      id: 2,
      method: "tools/call",
      params: { name: "add", arguments: { a: 2, b: 3 }, _meta: meta("2026-07-28") },
    });
    // A claim of an older revision is still 2026 traffic, refused with the supported list.
    send({ id: 3, method: "tools/list", params: { _meta: meta("2025-11-25") } });
    // A long call, cancelled by notification: it ends without an answer.
    send({
      id: 4,
      method: "tools/call",
      params: { name: "wait", arguments: {}, _meta: meta("2026-07-28") },
    });
    // Without a claim, the 2025 rule holds: initialize first.
    send({ id: 5, method: "tools/list", params: {} });
    expect((await answer(1)).result?.supportedVersions).toEqual(["2026-07-28"]);
    expect((await answer(2)).result?.structuredContent).toEqual({ sum: 5 });
    const refused = await answer(3);
    expect(refused.error?.code).toBe(-32022);
    expect(refused.error?.data).toMatchObject({ supported: ["2026-07-28"] });
    expect((await answer(5)).error?.code).toBe(-32600);
    send({ method: "notifications/cancelled", params: { requestId: 4 } });
    send({
      id: 6,
      method: "tools/call",
      params: { name: "echo", arguments: { message: "x" }, _meta: meta("2026-07-28") },
    });
    expect((await answer(6)).result).toBeDefined();
    // Arguments the schema marks with x-mcp-header travel as Mcp-Param headers, non-ASCII too.
    send({
      id: 7,
      method: "tools/call",
      params: {
        name: "region",
        arguments: { region: "Zürich", priority: 2, note: "n" },
        _meta: meta("2026-07-28"),
      },
    });
    const region = await answer(7);
    expect(region.error).toBeUndefined();
    expect(JSON.stringify(region.result?.content)).toContain("Zürich");
    expect(lines.some((line) => line.id === 4 && "result" in line)).toBe(false);
    input.end();
    await served;
  });
});

describe("serveStdio and deep nesting", () => {
  // Issue 23 (5): a 2026 line nested 200,000 levels never got an answer with its own id.
  it("answers a line nested 200,000 levels with its own id, and keeps serving", async () => {
    const { toolset } = fixtureToolset();
    const { input, lines, served } = serveInProcess(toolset);
    const answer = async (id: number) => {
      for (let i = 0; i < 400 && !lines.some((line) => line.id === id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return lines.find((line) => line.id === id) as { error?: { code: number }; result?: object };
    };
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const call = (id: number, message: unknown) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "echo", arguments: { message }, _meta: meta },
    });
    input.write(`${nestedText(call(1, "<deep>"), 200_000)}\n`);
    input.write(`${nestedText(call(2, "<deep>"), "{[".repeat(50_000))}\n`);
    input.write(`${JSON.stringify(call(3, "fine"))}\n`);
    expect((await answer(1)).error?.code).toBe(-32602);
    expect((await answer(2)).error?.code).toBe(-32602);
    expect((await answer(3)).result).toBeDefined();
    input.end();
    await served;
  });
});

describe("connectMcpServers", () => {
  it("merges a command entry and a url entry, namespaced by name, shut down as one", async () => {
    const { toolset } = fixtureToolset();
    const handler = createMcpHandler(toolset, { name: "calc", version: "1.0.0" });
    let pid = 0;
    const tools = await connectMcpServers(
      {
        mcpServers: {
          memory: {
            command: process.execPath,
            args: [bin("server-memory")],
            env: { MEMORY_FILE_PATH: join(dir, "merged.jsonl") },
          },
          rogue: { command: process.execPath, args: [join(fixtures, "rogue-server.mjs")] },
          calc: { url: "http://localhost/mcp?key=secret", headers: { authorization: "Bearer x" } },
          off: { command: "toolwire-no-such-command", disabled: true },
        },
      },
      {
        fetch: handler.fetch,
        stderr: (line) => {
          const match = /^pid (\d+)$/.exec(line);
          if (match) pid = Number(match[1]);
        },
      },
    );
    const names = (await tools.listTools()).map((tool) => tool.name);
    expect(names).toContain("memory__read_graph");
    expect(names).toContain("rogue__env");
    expect(names).toContain("calc__add");
    const add = (await tools.listTools()).find((tool) => tool.name === "calc__add");
    expect(add?.source).toEqual({ type: "mcp", origin: "http://localhost/mcp", trusted: false });
    expect(add && isReadOnly(add)).toBe(false);
    expect((await tools.call("calc__add", { a: 2, b: 3 })).structuredContent).toEqual({ sum: 5 });
    expect(pid).toBeGreaterThan(0);
    await tools.shutdown();
    expect(gone(pid)).toBe(true);
  });

  it("passes protocol to every entry: a pinned 2025 revision opens with initialize", async () => {
    const { toolset } = fixtureToolset();
    const handler = createMcpHandler(toolset, { name: "calc", version: "1.0.0" });
    const opened = async (protocol?: "2025-11-25") => {
      const methods: string[] = [];
      const fetch: typeof globalThis.fetch = async (input, init) => {
        if (typeof init?.body === "string") methods.push(JSON.parse(init.body).method);
        return handler.fetch(input as string, init);
      };
      const tools = await connectMcpServers(
        { mcpServers: { calc: { url: "http://localhost/mcp" } } },
        { fetch, ...(protocol ? { protocol } : {}) },
      );
      await tools.shutdown();
      return methods[0];
    };
    expect(await opened("2025-11-25")).toBe("initialize");
    expect(await opened()).toBe("server/discover");
  });

  it("names the entry in a bad config", async () => {
    const cases: [unknown, string][] = [
      [{}, "`mcpServers` object"],
      [{ mcpServers: { "has space": { command: "node" } } }, 'mcpServers["has space"]'],
      [{ mcpServers: { a: { args: ["x"] } } }, 'mcpServers["a"]: needs either'],
      [
        { mcpServers: { b: { command: "node", url: "http://x" } } },
        'mcpServers["b"]: needs either',
      ],
      [{ mcpServers: { c: { command: "node", args: "x" } } }, 'mcpServers["c"]: `args`'],
      [{ mcpServers: { d: { url: "http://x", type: "sse" } } }, 'mcpServers["d"]: type "sse"'],
      [{ mcpServers: { e: { command: "node", env: { K: 1 } } } }, 'mcpServers["e"]: `env`'],
    ];
    for (const [config, message] of cases) {
      const error = await caught(connectMcpServers(config as never));
      expect(error.type).toBe("invalid_configuration");
      expect(error.message).toContain(message);
    }
  });

  it("stops the servers already started when another entry fails, and names the failing one", async () => {
    let pid = 0;
    const error = await caught(
      connectMcpServers(
        {
          mcpServers: {
            good: { command: process.execPath, args: [join(fixtures, "rogue-server.mjs")] },
            broken: { command: "toolwire-no-such-command" },
          },
        },
        {
          stderr: (line) => {
            const match = /^pid (\d+)$/.exec(line);
            if (match) pid = Number(match[1]);
          },
        },
      ),
    );
    expect(error.type).toBe("invalid_configuration");
    expect(error.message).toContain('mcpServers["broken"]');
    expect(pid).toBeGreaterThan(0);
    expect(gone(pid)).toBe(true);
  });
});
