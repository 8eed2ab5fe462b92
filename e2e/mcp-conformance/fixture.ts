// The server the MCP conformance suite tests: a toolwire Toolset implementing the scenario
// tools that @modelcontextprotocol/conformance@0.1.13 calls (names and behaviour from its
// scenario descriptions), served by createMcpHandler. toolwire serves tools only, so the
// resources, prompts and completion scenarios have nothing here to call.
import * as v from "valibot";
import { defineTool, isToolError, ToolResult, Toolset } from "../../src/index.ts";
import { createMcpHandler, type McpHandler } from "../../src/mcp/index.ts";

// A 1×1 red PNG and a 44-byte silent WAV (8 kHz, 8-bit mono, no samples).
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const none = v.object({});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const DEFAULTS_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: {
      type: "string",
      description: "User status",
      enum: ["active", "inactive", "pending"],
      default: "active",
    },
    verified: { type: "boolean", description: "Verification status", default: true },
  },
  required: [],
};

const ENUMS_SCHEMA = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
};

const JSON_SCHEMA_2020_12 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
};

// Asks for a form and reports the outcome as text, as the elicitation scenarios ask.
async function elicit(
  ask: (prompt: string, schema: Record<string, unknown>) => Promise<Record<string, unknown>>,
  prompt: string,
  schema: Record<string, unknown>,
  label: string,
): Promise<string> {
  try {
    const content = await ask(prompt, schema);
    return `${label}: action=accept, content=${JSON.stringify(content)}`;
  } catch (error) {
    if (isToolError(error, "interaction_declined")) return `${label}: action=decline`;
    throw error;
  }
}

/**
 * Creates the conformance toolset.
 *
 * @returns The toolset.
 */
export function conformanceToolset(): Toolset {
  return Toolset.local([
    defineTool({
      name: "test_simple_text",
      description: "Returns simple text",
      readOnly: true,
      input: none,
      call: () => "This is a simple text response for testing.",
    }),
    defineTool({
      name: "test_image_content",
      description: "Returns an image",
      readOnly: true,
      input: none,
      call: () => ToolResult.of([{ type: "image", data: PNG, mimeType: "image/png" }]),
    }),
    defineTool({
      name: "test_audio_content",
      description: "Returns audio",
      readOnly: true,
      input: none,
      call: () => ToolResult.of([{ type: "audio", data: WAV, mimeType: "audio/wav" }]),
    }),
    defineTool({
      name: "test_embedded_resource",
      description: "Returns an embedded resource",
      readOnly: true,
      input: none,
      call: () =>
        ToolResult.of([
          {
            type: "embedded_resource",
            resource: {
              uri: "test://embedded-resource",
              mimeType: "text/plain",
              text: "This is an embedded resource content.",
            },
          },
        ]),
    }),
    defineTool({
      name: "test_multiple_content_types",
      description: "Returns text, an image and a resource",
      readOnly: true,
      input: none,
      call: () =>
        ToolResult.of([
          { type: "text", text: "Multiple content types test:" },
          { type: "image", data: PNG, mimeType: "image/png" },
          {
            type: "embedded_resource",
            resource: {
              uri: "test://mixed-content-resource",
              mimeType: "application/json",
              text: JSON.stringify({ test: "data", value: 123 }),
            },
          },
        ]),
    }),
    defineTool({
      name: "test_tool_with_logging",
      description: "Logs three messages while it runs",
      readOnly: true,
      input: none,
      call: async (_input, ctx) => {
        ctx.log("info", "Tool execution started");
        await sleep(50);
        ctx.log("info", "Tool processing data");
        await sleep(50);
        ctx.log("info", "Tool execution completed");
        return "Logging test completed";
      },
    }),
    defineTool({
      name: "test_error_handling",
      description: "Always fails",
      readOnly: true,
      input: none,
      call: () => {
        throw new Error("This tool intentionally returns an error for testing");
      },
    }),
    defineTool({
      name: "test_tool_with_progress",
      description: "Reports progress 0, 50 and 100 of 100",
      readOnly: true,
      input: none,
      call: async (_input, ctx) => {
        ctx.progress({ progress: 0, total: 100 });
        await sleep(50);
        ctx.progress({ progress: 50, total: 100 });
        await sleep(50);
        ctx.progress({ progress: 100, total: 100 });
        return "Progress test completed";
      },
    }),
    defineTool({
      name: "test_elicitation",
      description: "Asks the user for a username and an email address",
      readOnly: true,
      input: v.object({ message: v.string() }),
      interactions: { form: true },
      call: ({ message }, ctx) =>
        elicit(
          ctx.requestForm,
          message,
          {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          },
          "User response",
        ),
    }),
    defineTool({
      name: "test_elicitation_sep1034_defaults",
      description: "Asks for a form whose fields all have defaults (SEP-1034)",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: (_input, ctx) =>
        elicit(
          ctx.requestForm,
          "Please review and update the form fields with defaults",
          DEFAULTS_SCHEMA,
          "Elicitation completed",
        ),
    }),
    defineTool({
      name: "test_elicitation_sep1330_enums",
      description: "Asks for a form with every enum variant (SEP-1330)",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: (_input, ctx) =>
        elicit(
          ctx.requestForm,
          "Please select options from the enum fields",
          ENUMS_SCHEMA,
          "Elicitation completed",
        ),
    }),
    defineTool({
      name: "test_sampling",
      description: "Asks the client's model to answer a prompt",
      readOnly: true,
      input: v.object({ prompt: v.string() }),
      interactions: { sampling: true },
      call: async ({ prompt }, ctx) => {
        const reply = await ctx.requestSampling({
          messages: [{ role: "user", content: { type: "text", text: prompt } }],
          maxTokens: 100,
        });
        const text = reply.content.type === "text" ? reply.content.text : `[${reply.content.type}]`;
        return `LLM response: ${text}`;
      },
    }),
    defineTool({
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      readOnly: true,
      input: { jsonSchema: JSON_SCHEMA_2020_12 },
      call: (input) => `Received: ${JSON.stringify(input)}`,
    }),
  ]);
}

/**
 * Creates the conformance server: in-memory sessions (the suite's SSE scenarios want a session
 * id) and elicitation and sampling forwarded to the client, loopback hosts only.
 *
 * @returns The handler.
 */
export function conformanceHandler(): McpHandler {
  return createMcpHandler(conformanceToolset(), {
    name: "toolwire-conformance",
    version: "1.0.0",
    sessions: "memory",
    interactionPolicy: "elicit",
  });
}
