// The conformance suite's client under test: `connectMcp` at the revision the suite names
// (`MCP_CONFORMANCE_PROTOCOL_VERSION`), or with the default `protocol: "auto"` a user gets when
// `TOOLWIRE_CONFORMANCE_PROTOCOL=auto`, against the scenario server whose URL is the last
// argument. It lists the tools and calls each with example arguments built from its schema
// (or the ones the scenario's context gives), answering every question with an example too;
// `json-schema-2020-12-preservation` instead echoes the focal tool's input schema, as listed,
// back through `json_schema_echo`, as that scenario asks.
// For the `auth/*` scenarios it signs in with `oauth()`: the "user" is a fetch of the
// authorization URL that takes the redirect's `Location`; a pre-registered client comes from
// the scenario's context, and the CIMD URL is the one the suite expects.
// Run by hand, e.g.:
//   node_modules/node22/bin/node node_modules/conformance-next/dist/index.js client \
//     --command "node --import tsx e2e/mcp-conformance/client.ts" --scenario tools_call \
//     --spec-version 2026-07-28
import { InteractionResponse } from "../../src/index.ts";
import type { ToolInteractionRequest } from "../../src/interaction/interaction-request.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { oauth } from "../../src/oauth/index.ts";

const url = process.argv.at(-1) ?? "";
const pinned =
  process.env.MCP_CONFORMANCE_PROTOCOL_VERSION === "2026-07-28" ? "2026-07-28" : "2025-11-25";
// Left out for `auto`: the run then tests the option a user leaves out.
const protocol = process.env.TOOLWIRE_CONFORMANCE_PROTOCOL === "auto" ? undefined : pinned;
// Some scenarios name the calls to make, with their arguments.
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as {
  toolCalls?: Array<{ name: string; arguments?: unknown }>;
  client_id?: string;
  client_secret?: string;
};
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";

// The authorization server redirects the browser to the redirect URL; the redirect is the answer.
async function authorize(url: URL, signal: AbortSignal): Promise<string> {
  const response = await fetch(url, { redirect: "manual", signal });
  await response.body?.cancel();
  const location = response.headers.get("location");
  if (!location) throw new Error(`the authorization endpoint answered ${response.status}`);
  return location;
}

const auth = scenario.startsWith("auth/")
  ? oauth({
      redirectUrl: "http://localhost:3000/callback",
      authorize,
      clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
      ...(context.client_id ? { clientId: context.client_id } : {}),
      ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
    })
  : undefined;

// A value that satisfies the simple schemas scenarios use: the default, the first enum value,
// or a plain value of the type.
function exampleOf(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return {};
  const node = schema as Record<string, unknown>;
  if (node.default !== undefined) return node.default;
  if (Array.isArray(node.enum)) return node.enum[0];
  switch (node.type) {
    case "string":
      return "example";
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    default: {
      const out: Record<string, unknown> = {};
      const properties = (node.properties ?? {}) as Record<string, unknown>;
      for (const [key, value] of Object.entries(properties)) out[key] = exampleOf(value);
      return out;
    }
  }
}

function answer(request: ToolInteractionRequest) {
  const kind = request.kind;
  if (kind.type === "text") return InteractionResponse.submit(request.id, "example");
  if (kind.type === "form") return InteractionResponse.submit(request.id, exampleOf(kind.schema));
  return InteractionResponse.submit(request.id, {
    role: "assistant",
    content: { type: "text", text: "example" },
    model: "toolwire-conformance",
  });
}

const toolset = await connectMcp({
  url,
  ...(protocol ? { protocol } : {}),
  // A fresh connection per request. The suite serves every scenario from one process with
  // Node's 5 s keep-alive; on a loaded host a kept-alive socket the server is closing was
  // reused for a POST and reset (ECONNRESET), failing a scenario that passes when quiet.
  headers: { connection: "close" },
  formInteractions: true,
  samplingInteractions: true,
  jsonSchemaValidator,
  ...(auth ? { auth } : {}),
});
let failed = false;
const tools = await toolset.listTools();
// The scenario compares what comes back through its echo tool with the schema it listed.
const echoed = tools.find((tool) => tool.name === "json_schema_2020_12_tool");
const calls =
  context.toolCalls ??
  (scenario === "json-schema-2020-12-preservation" && echoed
    ? [{ name: "json_schema_echo", arguments: { schema: echoed.inputSchema.schema } }]
    : tools.map((tool) => ({ name: tool.name, arguments: exampleOf(tool.inputSchema.schema) })));
// toolwire checks arguments against the tool's schema before sending, and a `null` where the
// schema wants a boolean fails that check; a null argument is sent as an absent one instead,
// which the suite's `omit-null` check counts the same ("null or not provided").
const withoutNulls = (args: unknown) =>
  typeof args === "object" && args !== null
    ? Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null))
    : {};
for (const call of calls) {
  try {
    const result = await toolset.call(call.name, withoutNulls(call.arguments), {
      onInteraction: async (request) => answer(request),
    });
    console.log(call.name, JSON.stringify(result.content).slice(0, 200));
  } catch (error) {
    failed = true;
    console.error(call.name, error);
  }
}
await toolset.shutdown();
process.exit(failed ? 1 : 0);
