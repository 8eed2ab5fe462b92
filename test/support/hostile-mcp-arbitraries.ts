// fast-check arbitraries for the hostile MCP server of hostile-mcp-fetch.ts: every kind of
// misbehaviour a broken or malicious server can show a client, as plain data.
import fc from "fast-check";
import type { Misbehaviour, NoticeBehaviour } from "./hostile-plan.ts";
import { idChoiceArb, sseItemArb } from "./hostile-sse-arbitraries.ts";

const json = fc.jsonValue({ maxDepth: 3 });

/** HTTP statuses from every class, with and without bodies. */
export const statusArb = fc.record({
  status: fc.constantFrom(200, 201, 202, 204, 205, 206, 301, 302, 303, 304, 307, 308, 400, 401),
  body: fc.constantFrom(null, "", "oops", '{"jsonrpc":"2.0","id":1,"result":{}}', "é€😀"),
});

const errorStatusArb = fc.record({
  status: fc.constantFrom(400, 401, 403, 404, 405, 406, 409, 413, 415, 429, 500, 502, 503, 599),
  body: fc.constantFrom(null, "", "Bad gateway", '{"error":"nope"}', "x".repeat(500)),
});

const VALID_TOOL = { name: "ok_tool", inputSchema: { type: "object" } };

/** `tools/list` entries, some valid, most not. */
export const toolEntryArb: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .constantFrom("ok_tool", "b", "c-d", "E_1")
    .map((name) => ({ name, inputSchema: { type: "object" } })),
  fc.constantFrom<unknown>(
    { name: "second", inputSchema: { type: "object" }, outputSchema: { type: "object" } },
    { name: 5, inputSchema: { type: "object" } },
    { name: "has space", inputSchema: { type: "object" } },
    { name: "", inputSchema: { type: "object" } },
    { name: "é", inputSchema: { type: "object" } },
    { name: "x".repeat(10_000), inputSchema: { type: "object" } },
    { name: "__proto__", inputSchema: { type: "object" } },
    { name: "no_schema" },
    { name: "bad_schema", inputSchema: "object" },
    { name: "array_schema", inputSchema: [] },
    { name: "null_schema", inputSchema: null },
    { name: "bad_output", inputSchema: { type: "object" }, outputSchema: 7 },
    {
      name: "odd_extras",
      inputSchema: { type: "object", properties: { a: { $ref: "#/nowhere" } } },
      annotations: { readOnlyHint: "yes", title: 5 },
      icons: [null, { src: 1 }, { src: "x", sizes: [1] }],
      _meta: [],
    },
    null,
    "tool",
    [],
  ),
  fc.record({ name: fc.string({ maxLength: 8 }), inputSchema: json }, { requiredKeys: [] }),
);

/** Results of the wrong shape for `initialize`, `tools/list` and `tools/call`. */
export const badResultArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    null,
    [],
    "result",
    {},
    { protocolVersion: "2024-11-05", capabilities: { tools: {} } },
    { protocolVersion: 20250618 },
    { protocolVersion: "2025-11-25", capabilities: "all" },
    { protocolVersion: "2025-06-18", capabilities: { tools: [] } },
    { tools: "all" },
    { tools: {} },
    { tools: [], nextCursor: 5 },
    { tools: [], nextCursor: "" },
    { tools: [], nextCursor: null },
    { tools: [VALID_TOOL, VALID_TOOL] },
    { content: "text" },
    { content: [null] },
    { content: [{ type: "text" }] },
    { content: [{ type: "text", text: 5 }] },
    { content: [{ type: "image", data: "AA==" }] },
    { content: [{ type: "resource", resource: "x" }] },
    { content: [{ type: "resource_link" }] },
    { content: [{ type: "hologram", depth: 3 }] },
    { content: [{ type: 7 }] },
    { content: [], structuredContent: { n: "one" } },
    { content: [], structuredContent: [1, 2] },
    { content: [{ type: "text", text: "a" }] },
    { content: [{ type: "text", text: "a" }], isError: "yes" },
    { content: [{ type: "text", text: "a" }], isError: true, structuredContent: 5 },
  ),
  fc.record({ tools: fc.array(toolEntryArb, { maxLength: 4 }) }),
  fc.record(
    { content: fc.array(json, { maxLength: 3 }), structuredContent: json },
    {
      requiredKeys: [],
    },
  ),
  json,
);

const errorObjectArb = fc.oneof(
  fc.record(
    { code: fc.integer(), message: fc.string({ maxLength: 20 }), data: json },
    {
      requiredKeys: ["code", "message"],
    },
  ),
  fc.constantFrom<unknown>(null, "boom", { code: "x", message: "m" }, { code: 1.5, message: "m" }),
  fc.constantFrom<unknown>({ code: -32601 }, { message: "m" }, []),
);

/** Header values a server may put in `Mcp-Session-Id`: empty, padded, long, Latin-1, commas. */
export const sessionIdArb = fc.constantFrom(
  "",
  " padded ",
  "a,b",
  "x".repeat(8192),
  "caf\u00e9\u00ff",
  "\t",
  "id=1; Path=/",
);

/** How the fake answers one request that expects a response. */
export const misbehaviourArb: fc.Arbitrary<Misbehaviour> = fc.oneof(
  { arbitrary: fc.constant({ type: "valid" as const }), weight: 6 },
  {
    arbitrary: fc.oneof(statusArb, errorStatusArb).map((s) => ({ type: "status" as const, ...s })),
    weight: 4,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("content_type"),
      contentType: fc.constantFrom(
        null,
        "text/plain",
        "text/html; charset=utf-8",
        "APPLICATION/JSON",
        "application/json; charset=utf-8",
        "application/jsonp",
        "text/event-stream",
        "multipart/mixed",
      ),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("raw"),
      contentType: fc.constantFrom("application/json", "text/event-stream"),
      body: fc.oneof(
        fc.string({ maxLength: 30 }),
        json.map((value) => JSON.stringify(value)),
        fc.constantFrom("", "null", "[]", "[[]]", '{"jsonrpc":"2.0"}', "\uFEFF{}", "{".repeat(3)),
      ),
    }),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("ids"),
      ids: fc.array(idChoiceArb, { minLength: 0, maxLength: 4 }),
      batch: fc.boolean(),
    }),
    weight: 3,
  },
  { arbitrary: fc.record({ type: fc.constant("result"), result: badResultArb }), weight: 5 },
  { arbitrary: fc.record({ type: fc.constant("rpc_error"), error: errorObjectArb }), weight: 2 },
  {
    arbitrary: fc.record({
      type: fc.constant("sse"),
      items: fc.array(sseItemArb, { maxLength: 8 }),
      ending: fc.constantFrom("close", "close", "close", "hang", "error"),
      cuts: fc.array(fc.nat(), { maxLength: 16 }),
    }),
    weight: 10,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("huge"),
      megabytes: fc.constantFrom(1, 2),
      shape: fc.constantFrom(
        "json_text",
        "garbage",
        "sse_line",
        "deep",
        "sse_event",
        "endless_body",
        "endless_line",
        "endless_event",
        "endless_error_body",
      ),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ type: fc.constant("session_id"), value: sessionIdArb }),
    weight: 1,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("reject"),
      value: fc.constantFrom("type_error", "string", "abort_error"),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ type: fc.constant("hang"), honoursSignal: fc.boolean() }), weight: 1 },
  {
    arbitrary: fc.record({
      type: fc.constant("body_error"),
      prefix: fc.constantFrom("", '{"jsonrpc":', "é"),
    }),
    weight: 1,
  },
);

/** How the fake answers a notification, a reply to its request, or DELETE. */
export const noticeArb: fc.Arbitrary<NoticeBehaviour> = fc.oneof(
  { arbitrary: fc.constant({ type: "valid" as const }), weight: 4 },
  {
    arbitrary: fc.oneof(statusArb, errorStatusArb).map((s) => ({ type: "status" as const, ...s })),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("reject"),
      value: fc.constantFrom("type_error", "string", "abort_error"),
    }),
    weight: 1,
  },
);
