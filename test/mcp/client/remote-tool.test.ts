// What a remote tool is on the client: its declaration from a `tools/list` entry (trust and
// names, design.md M1-M2), the argument and output checks every call shares, how results and
// log lines read back, and the idle deadline of a call.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { jsonSchemaValidator } from "../../../src/json-schema/index.ts";
import {
  createIdleTimer,
  createRemoteCallPlan,
  logFromMcp,
  type RemoteTool,
  type RemoteToolOptions,
  resultFromMcp,
  toolFromMcp,
} from "../../../src/mcp/client/remote-tool.ts";
import { caught } from "../../support/caught.ts";

const base: RemoteToolOptions = {
  origin: "https://x.test/mcp",
  trusted: false,
  formInteractions: false,
};
const declare = (value: unknown, options: Partial<RemoteToolOptions> = {}): RemoteTool => {
  const tool = toolFromMcp(value, { ...base, ...options });
  if (typeof tool === "string") throw new Error(tool);
  return tool;
};
const entry = (extra: Record<string, unknown> = {}) => ({
  name: "search",
  inputSchema: { type: "object" },
  ...extra,
});

describe("toolFromMcp", () => {
  it("keeps a tool that can only run as a task, marked to be called as one, and one where tasks are optional", () => {
    const required = declare(entry({ execution: { taskSupport: "required" } }));
    expect(required.nativeName).toBe("search");
    expect(required.taskOnly).toBe(true);
    const optional = declare(entry({ execution: { taskSupport: "optional" } }));
    expect(optional.nativeName).toBe("search");
    expect(optional.taskOnly).toBeUndefined();
  });

  it("reads x-mcp-header only at 2026-07-28, where an annotation in a plain property is valid", () => {
    const annotated = entry({
      inputSchema: {
        type: "object",
        properties: {
          where: {
            type: "object",
            properties: { zone: { type: "string", "x-mcp-header": "Zone" } },
          },
          odd: { type: "number", "x-mcp-header": "Odd" },
        },
      },
    });
    expect(declare(annotated).paramHeaders).toEqual([]);
    expect(toolFromMcp(annotated, { ...base, modern: true })).toContain(
      "not a string, integer or boolean",
    );
    const nested = entry({
      inputSchema: {
        type: "object",
        properties: {
          where: {
            type: "object",
            properties: { zone: { type: "string", "x-mcp-header": "Zone" } },
          },
        },
      },
    });
    const tool = declare(nested, { modern: true });
    expect(tool.paramHeaders).toEqual([{ path: ["where", "zone"], header: "Zone" }]);
    const plan = createRemoteCallPlan(tool, { timeoutMs: 1000, formInteractions: false });
    expect(plan.paramHeaders({ where: { zone: "eu 1" } })).toEqual({ "mcp-param-Zone": "eu 1" });
    expect(plan.paramHeaders({ where: { zone: " eu1" } })).toEqual({
      "mcp-param-Zone": `=?base64?${btoa(" eu1")}?=`,
    });
    expect(plan.paramHeaders({ where: { zone: null } })).toEqual({});
  });

  it("refuses duplicate, non-token and root x-mcp-header annotations at 2026-07-28", () => {
    const schema = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      entry({ inputSchema: { type: "object", properties, ...extra } });
    const modern = { ...base, modern: true };
    const twice = schema({
      a: { type: "string", "x-mcp-header": "Key" },
      b: { type: "string", "x-mcp-header": "key" },
    });
    expect(toolFromMcp(twice, modern)).toContain("twice");
    expect(toolFromMcp(schema({ a: { type: "string", "x-mcp-header": "a b" } }), modern)).toContain(
      "not a header name",
    );
    const composed = schema(
      {},
      { anyOf: [{ properties: { a: { type: "string", "x-mcp-header": "A" } } }] },
    );
    expect(toolFromMcp(composed, modern)).toContain("outside a plain property");
  });

  it("namespaces the name but keeps the native one for calls", () => {
    const tool = declare(entry(), { namespace: "repo" });
    expect(tool.info.name).toBe("repo__search");
    expect(tool.nativeName).toBe("search");
  });

  it("accepts every name MCP 2025-11-25 allows, dots included, up to 128 characters", () => {
    expect(declare(entry({ name: "repo.search-v2_x" })).info.name).toBe("repo.search-v2_x");
    expect(declare(entry({ name: "a".repeat(128) })).info.name).toHaveLength(128);
    expect(declare(entry({ name: "get.file" }), { namespace: "gh" }).info.name).toBe(
      "gh__get.file",
    );
  });

  it("says why an entry cannot be a tool here instead of throwing", () => {
    const reasons = [
      { inputSchema: {} },
      { name: "a" },
      entry({ outputSchema: "x" }),
      entry({ name: "has space" }),
      entry({ name: "" }),
      entry({ name: "a".repeat(129) }),
    ].map((value) => toolFromMcp(value, base));
    for (const reason of reasons) expect(typeof reason).toBe("string");
    expect(toolFromMcp(entry({ name: "a".repeat(125) }), { ...base, namespace: "ns" })).toMatch(
      /1-128 characters/,
    );
  });

  it("marks every tool with its source; untrusted, its hints are shown but not believed", () => {
    const hints = { readOnlyHint: true, destructiveHint: false, openWorldHint: false, title: "S" };
    const untrusted = declare(entry({ annotations: hints }));
    expect(untrusted.info.source).toEqual({
      type: "mcp",
      origin: "https://x.test/mcp",
      trusted: false,
    });
    expect(untrusted.info.annotations).toEqual(hints);
    expect(untrusted.info.capabilities).toEqual({
      privateData: true,
      untrustedInput: true,
      externalSend: true,
      destructive: true,
    });
  });

  it("trusted, reads well-typed hints with MCP's defaults for missing ones", () => {
    const closed = declare(entry({ annotations: { readOnlyHint: true, openWorldHint: false } }), {
      trusted: true,
    });
    expect(closed.info.source?.trusted).toBe(true);
    expect(closed.info.capabilities).toMatchObject({
      untrustedInput: false,
      externalSend: false,
      destructive: false,
    });
    const unknown = declare(entry({ annotations: { readOnlyHint: "yes", destructiveHint: 1 } }), {
      trusted: true,
    });
    expect(unknown.info.annotations).toEqual({});
    // Ill-typed hints count as missing, so MCP's defaults apply: destructive, open world.
    expect(unknown.info.capabilities).toMatchObject({ destructive: true, externalSend: true });
  });

  it("keeps title, description, output schema, valid icons and _meta", () => {
    const tool = declare(
      entry({
        title: "Search",
        description: "Finds",
        outputSchema: { type: "object" },
        icons: [{ src: "a.png", sizes: ["16x16"] }, { src: 3 }, "x"],
        _meta: { k: 1 },
      }),
      { formInteractions: true },
    );
    expect(tool.info).toMatchObject({
      title: "Search",
      description: "Finds",
      icons: [{ src: "a.png", sizes: ["16x16"] }],
      metadata: { k: 1 },
    });
    expect(tool.info.outputSchema?.schema).toEqual({ type: "object" });
    expect(tool.info.interactions).toMatchObject({ form: true, text: true });
  });

  it("declares sampling only when the client answers sampling requests", () => {
    const off = declare(entry(), { formInteractions: true });
    expect(off.info.interactions).toMatchObject({ form: true, sampling: false });
    const on = declare(entry(), { samplingInteractions: true });
    expect(on.info.interactions).toMatchObject({ form: false, text: false, sampling: true });
  });
});

const plan = (inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>) =>
  createRemoteCallPlan(
    declare({ name: "t", inputSchema, ...(outputSchema ? { outputSchema } : {}) }),
    { timeoutMs: 1000, formInteractions: false, jsonSchemaValidator },
  );

describe("createRemoteCallPlan", () => {
  it("returns valid arguments and refuses non-objects and schema violations with issues", async () => {
    const p = plan({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    expect(p.checkArguments({ n: 1 })).toEqual({ n: 1 });
    const array = await caught(() => p.checkArguments([1]));
    expect(array.toJSON()).toMatchObject({ type: "invalid_arguments", tool: "t" });
    const wrong = await caught(() => p.checkArguments({ n: "x" }));
    expect(wrong.type).toBe("invalid_arguments");
    expect(wrong.toJSON()).toMatchObject({ issues: [{ path: "/n" }] });
  });

  it("leaves a schema it cannot interpret to the server", () => {
    const p = plan({ type: "object", properties: { n: { $ref: "#/nowhere" } } });
    expect(p.checkArguments({ n: 1 })).toEqual({ n: 1 });
  });

  it("checks structuredContent against the output schema, but never an isError result", async () => {
    const p = plan({ type: "object" }, { type: "object", required: ["n"] });
    const ok = { content: [], structuredContent: { n: 1 }, isError: false };
    expect(p.checkResult(ok)).toBe(ok);
    expect((await caught(() => p.checkResult({ content: [], isError: false }))).type).toBe(
      "invalid_output",
    );
    expect(
      (await caught(() => p.checkResult({ content: [], structuredContent: {}, isError: false })))
        .type,
    ).toBe("invalid_output");
    const failed = { content: [], isError: true };
    expect(p.checkResult(failed)).toBe(failed);
  });

  it("without a validator, leaves schemas to the server but still wants objects and structuredContent", async () => {
    const bare = createRemoteCallPlan(
      declare({
        name: "t",
        inputSchema: { type: "object", required: ["n"] },
        outputSchema: { type: "object", required: ["n"] },
      }),
      { timeoutMs: 1000, formInteractions: false },
    );
    expect(bare.checkArguments({ n: "x" })).toEqual({ n: "x" });
    expect((await caught(() => bare.checkArguments([1]))).type).toBe("invalid_arguments");
    const loose = { content: [], structuredContent: {}, isError: false };
    expect(bare.checkResult(loose)).toBe(loose);
    expect((await caught(() => bare.checkResult({ content: [], isError: false }))).type).toBe(
      "invalid_output",
    );
  });
});

describe("resultFromMcp", () => {
  it("turns a toolwire server's invalid_arguments report into that error, issues as sent", async () => {
    const issues = [
      { path: "/a", message: "Invalid type", keyword: "type" },
      { path: "/b", message: "Required" },
    ];
    const report = { type: "invalid_arguments", tool: "add", message: "bad", issues };
    const answer = { content: [{ type: "text", text: "bad" }], isError: true };
    const error = await caught(() =>
      resultFromMcp({ ...answer, _meta: { "toolwire/error": report } }, "calc__add"),
    );
    expect(error.toJSON()).toMatchObject({ type: "invalid_arguments", tool: "calc__add", issues });
    // A report that is no tool error's JSON (here, an issue without a path) is the tool's result.
    const odd = { ...report, issues: [{ message: "Required" }] };
    expect(resultFromMcp({ ...answer, _meta: { "toolwire/error": odd } }, "t").isError).toBe(true);
  });

  it("maps every content block kind, keeping block and result metadata", () => {
    const content = [
      { type: "text", text: "t", _meta: { k: 1 } },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "audio", data: "aGk=", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///a", name: "a.txt", mimeType: "text/plain" },
      { type: "resource", resource: { uri: "file:///b", text: "body" } },
      { type: "hologram", beams: 3 },
    ];
    expect(resultFromMcp({ content, _meta: { r: 1 } }, "all")).toEqual({
      content: [
        { type: "text", text: "t", metadata: { k: 1 } },
        { type: "image", data: "aGk=", mimeType: "image/png" },
        { type: "audio", data: "aGk=", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a", title: "a.txt", mimeType: "text/plain" },
        { type: "embedded_resource", resource: { uri: "file:///b", text: "body" } },
        { type: "json", value: { type: "hologram", beams: 3 } },
      ],
      isError: false,
      metadata: { r: 1 },
    });
  });

  it("synthesises content for an empty list from structuredContent, else empty text", () => {
    expect(resultFromMcp({ content: [], structuredContent: { n: 1 } }, "t")).toEqual({
      content: [{ type: "json", value: { n: 1 } }],
      structuredContent: { n: 1 },
      isError: false,
    });
    expect(resultFromMcp({ content: [], isError: true }, "t")).toEqual({
      content: [{ type: "text", text: "" }],
      isError: true,
    });
  });

  it("refuses a malformed result or block as protocol, naming where", async () => {
    const bad = [
      {},
      { content: [], isError: "yes" },
      { content: [{ text: "no type" }] },
      { content: [{ type: "text" }] },
      { content: [{ type: "image", data: "x" }] },
      { content: [{ type: "resource", resource: {} }] },
    ];
    for (const value of bad) {
      const error = await caught(() => resultFromMcp(value, "tool"));
      expect(error.type, JSON.stringify(value)).toBe("protocol");
      expect(error.message).toContain("tool");
    }
  });
});

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

describe("createIdleTimer", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("fires once after ms without activity, and each arm starts over", () => {
    let fired = 0;
    const timer = createIdleTimer(100, () => fired++);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
    timer.arm();
    vi.advanceTimersByTime(99);
    timer.arm();
    vi.advanceTimersByTime(99);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(1);
    expect(fired).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(1);
  });

  it("never fires while disarmed and leaves no timer behind", () => {
    let fired = 0;
    const timer = createIdleTimer(100, () => fired++);
    timer.arm();
    timer.disarm();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(1000);
    expect(fired).toBe(0);
  });
});
