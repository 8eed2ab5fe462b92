// The server the MCP conformance suite tests: a toolwire Toolset implementing the scenario
// tools that @modelcontextprotocol/conformance calls (0.1.13 at 2025-11-25, 0.2.0-alpha.12 at
// 2026-07-28; names and behaviour from the scenario descriptions), and beside it the resources,
// resource templates and prompts the resources-*, prompts-*, completion-complete, caching and
// input-required-result-non-tool-request scenarios read, served by one createMcpHandler for
// both revisions.
import * as v from "valibot";
import { defineTool, isToolError, ToolError, ToolResult, Toolset } from "../../src/index.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import {
  createMcpHandler,
  type McpHandler,
  type McpPrompt,
  type McpResource,
  type McpResourceTemplate,
  mcpTasks,
} from "../../src/mcp/index.ts";

// A 1×1 red PNG and a 44-byte silent WAV (8 kHz, 8-bit mono, no samples).
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

const none = v.object({});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A wait the task's cancel ends at once.
const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener("abort", stop);
      resolve();
    }
    function stop() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener("abort", stop, { once: true });
  });

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
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword, never awaited.
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

// The 2026 scenarios name the keys of some questions (`inputRequests.user_name`); the handler's
// `questionKey` maps those prompts, every other question keeps its position key.
const QUESTION_KEYS: Record<string, string> = {
  "What is your name?": "user_name",
  "Step 1: What is your name?": "step1",
  "Step 2: What is your favorite color?": "step2",
  "Please confirm": "confirm",
  "What is the capital of France?": "capital_question",
  "What context should the prompt use?": "user_context",
};

const nameForm = (field: string) => ({
  type: "object",
  properties: { [field]: { type: "string" } },
  required: [field],
});

const confirmForm = {
  type: "object",
  properties: { ok: { type: "boolean" } },
  required: ["ok"],
};

const sample = (prompt: string, maxTokens: number) => ({
  messages: [{ role: "user" as const, content: { type: "text" as const, text: prompt } }],
  maxTokens,
});

const sampledText = (reply: { content: { type: string; text?: string } }) =>
  reply.content.type === "text" ? (reply.content.text ?? "") : `[${reply.content.type}]`;

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

const SSE_POLL_MS = 1000;

/**
 * Creates the conformance toolset.
 *
 * @returns The toolset.
 */
export function conformanceToolset(
  onToolsChanged: () => void = () => {},
  onPromptsChanged: () => void = () => {},
): Toolset {
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
    // The Tasks extension scenarios (`tasks-*`, 2026-07-28 with `mcpTasks`).
    defineTool({
      name: "greet",
      description: "Greets by name; never a task",
      readOnly: true,
      input: v.object({ name: v.string() }),
      call: ({ name }) => `Hello, ${name}!`,
    }),
    defineTool({
      name: "slow_compute",
      description: "Waits `seconds`, then reports; a task when the client takes one",
      readOnly: true,
      taskSupport: "optional",
      input: v.object({ seconds: v.optional(v.number(), 0), label: v.optional(v.string()) }),
      call: async ({ seconds, label }, ctx) => {
        await abortableSleep(seconds * 1000, ctx.signal);
        return `Computed ${label ?? "result"} after ${seconds}s`;
      },
    }),
    defineTool({
      name: "failing_job",
      description: "Runs only as a task and fails as a tool (isError)",
      readOnly: true,
      taskSupport: "required",
      input: none,
      call: () => ToolResult.error("The job failed: simulated tool error"),
    }),
    defineTool({
      name: "protocol_error_job",
      description: "A task whose work ends in a JSON-RPC error",
      readOnly: true,
      taskSupport: "optional",
      input: none,
      // As a gateway's upstream answers when its tool went away: the one tool failure the
      // server answers as a JSON-RPC error (-32602) rather than an isError result.
      call: () => {
        throw new ToolError({ type: "unknown_tool", name: "upstream_job" });
      },
    }),
    defineTool({
      name: "confirm_delete",
      description: "Asks for confirmation before deleting a file, as a task",
      taskSupport: "optional",
      input: v.object({ filename: v.optional(v.string(), "file.txt") }),
      interactions: { form: true },
      call: async ({ filename }, ctx) => {
        const { confirm } = await ctx.requestForm(`Delete ${filename}?`, {
          type: "object",
          properties: { confirm: { type: "boolean" } },
          required: ["confirm"],
        });
        return confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
      },
    }),
    defineTool({
      name: "multi_input",
      description: "Asks two questions at once, as a task",
      taskSupport: "optional",
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        const form = {
          type: "object",
          properties: { name: { type: "string" }, confirm: { type: "boolean" } },
        };
        const [first, second] = await Promise.all([
          ctx.requestForm("First input", form),
          ctx.requestForm("Second input", form),
        ]);
        return `Got ${JSON.stringify(first)} and ${JSON.stringify(second)}`;
      },
    }),
    defineTool({
      name: "test_tool_with_task",
      description: "Asks a name in the request, then continues as a task",
      readOnly: true,
      taskSupport: "optional",
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        const { name } = await ctx.requestForm("What is your name?", nameForm("name"));
        return `Hello, ${String(name)}! (from a task)`;
      },
    }),
    // 2026-07-28 scenarios (input_required, server-stateless).
    defineTool({
      name: "test_input_required_result_elicitation",
      description: "Asks for the user's name, then greets them",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        const { name } = await ctx.requestForm("What is your name?", nameForm("name"));
        return `Hello, ${String(name)}!`;
      },
    }),
    defineTool({
      name: "test_input_required_result_sampling",
      description: "Asks the client's model for the capital of France",
      readOnly: true,
      input: none,
      interactions: { sampling: true },
      call: async (_input, ctx) =>
        `LLM response: ${sampledText(await ctx.requestSampling(sample("What is the capital of France?", 100)))}`,
    }),
    defineTool({
      name: "test_input_required_result_list_roots",
      description: "Asks the client for its roots and names them",
      readOnly: true,
      input: none,
      interactions: { roots: true },
      call: async (_input, ctx) => {
        const roots = await ctx.requestRoots();
        return `Roots: ${roots.map((root) => root.name ?? root.uri).join(", ") || "none"}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_multiple_inputs",
      description: "Asks for a name, a greeting from the model and the roots, all at once",
      readOnly: true,
      input: none,
      interactions: { form: true, sampling: true, roots: true },
      call: async (_input, ctx) => {
        // Asked together, so one input_required round carries all three.
        const [{ name }, greeting, roots] = await Promise.all([
          ctx.requestForm("What is your name?", nameForm("name")),
          ctx.requestSampling(sample("Generate a greeting", 50)),
          ctx.requestRoots(),
        ]);
        return `${sampledText(greeting)}, ${String(name)} (${roots.length} roots)`;
      },
    }),
    defineTool({
      name: "test_input_required_result_request_state",
      description: "Asks for a confirmation carried in the signed request state",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        const { ok } = await ctx.requestForm("Please confirm", confirmForm);
        return `state-ok: confirmed=${String(ok)}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_tampered_state",
      description: "Asks for a confirmation; its request state is signed",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        const { ok } = await ctx.requestForm("Please confirm", confirmForm);
        return `confirmed=${String(ok)}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_multi_round",
      description: "Asks for a name, then a colour, in two rounds",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        const { name } = await ctx.requestForm("Step 1: What is your name?", nameForm("name"));
        const { color } = await ctx.requestForm(
          "Step 2: What is your favorite color?",
          nameForm("color"),
        );
        return `${String(name)} likes ${String(color)}`;
      },
    }),
    defineTool({
      name: "test_input_required_result_capabilities",
      description: "Asks the model first and the user second, each only if the client can answer",
      readOnly: true,
      input: none,
      interactions: { sampling: true, form: true },
      call: async (_input, ctx) => {
        const reply = await ctx.requestSampling(sample("Suggest a greeting", 50));
        const { name } = await ctx.requestForm("Who is it for?", nameForm("name"));
        return `${sampledText(reply)}, ${String(name)}`;
      },
    }),
    defineTool({
      name: "test_missing_capability",
      description: "Needs the client's model (sampling)",
      readOnly: true,
      input: none,
      interactions: { sampling: true },
      call: async (_input, ctx) =>
        sampledText(await ctx.requestSampling(sample("Say something", 10))),
    }),
    defineTool({
      name: "test_streaming_elicitation",
      description: "Asks the user a question while it streams",
      readOnly: true,
      input: none,
      interactions: { form: true },
      call: async (_input, ctx) => {
        ctx.log("info", "asking");
        const { name } = await ctx.requestForm("What should I call you?", nameForm("name"));
        return `Hi ${String(name)}`;
      },
    }),
    defineTool({
      name: "test_logging_tool",
      description: "Logs while it runs",
      readOnly: true,
      input: none,
      call: (_input, ctx) => {
        ctx.log("info", "Tool execution started");
        ctx.log("error", "Tool execution noted an error");
        return "Logging done";
      },
    }),
    defineTool({
      name: "test_trigger_tool_change",
      description: "Tells subscribed clients that the tool list changed",
      input: none,
      call: () => {
        onToolsChanged();
        return "Tool list change announced";
      },
    }),
    defineTool({
      name: "test_trigger_prompt_change",
      description: "Tells subscribed clients that the prompt list changed",
      input: none,
      call: () => {
        onPromptsChanged();
        return "Prompt list change announced";
      },
    }),
    defineTool({
      jsonSchemaValidator,
      name: "test_headers",
      description: "Echoes arguments that clients mirror into Mcp-Param headers",
      readOnly: true,
      input: {
        jsonSchema: {
          type: "object",
          properties: {
            region: { type: "string", "x-mcp-header": "Region" },
            priority: { type: "integer", "x-mcp-header": "Priority" },
            query: { type: "string" },
          },
          required: ["region"],
        },
      },
      call: (input) => `Received: ${JSON.stringify(input)}`,
    }),
    // server-sse-polling: the call outlasts `ssePollMs`, so its connection closes mid-call and
    // the result arrives on the client's GET with Last-Event-ID.
    defineTool({
      name: "test_reconnection",
      description: "Runs past the server's poll time, so its stream closes and resumes",
      readOnly: true,
      input: none,
      call: async (_, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, SSE_POLL_MS + 500));
        ctx.signal.throwIfAborted();
        return "Reconnection test completed";
      },
    }),
    defineTool({
      jsonSchemaValidator,
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      readOnly: true,
      input: { jsonSchema: JSON_SCHEMA_2020_12 },
      call: (input) => `Received: ${JSON.stringify(input)}`,
    }),
  ]);
}

/** The resources the resources-* and caching scenarios read. */
export const conformanceResources: McpResource[] = [
  {
    uri: "test://static-text",
    name: "static-text",
    description: "A static text resource",
    mimeType: "text/plain",
    read: () => "This is the content of the static text resource.",
  },
  {
    uri: "test://static-binary",
    name: "static-binary",
    description: "A static binary resource (a 1×1 PNG)",
    mimeType: "image/png",
    read: () => ({ blob: PNG }),
  },
  {
    uri: "test://watched-resource",
    name: "watched-resource",
    description: "A resource clients subscribe to",
    mimeType: "text/plain",
    read: () => "Watched resource content.",
  },
];

/** The template resources-templates-read reads through. */
export const conformanceTemplates: McpResourceTemplate[] = [
  {
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    description: "Data for an id",
    mimeType: "application/json",
    read: (_uri, { id }) =>
      JSON.stringify({ id, templateTest: true, data: `Data for ID: ${String(id)}` }),
    complete: { id: (value) => ["123", "456", "789"].filter((id) => id.startsWith(value)) },
  },
];

const WORDS = ["paris", "park", "party", "test", "testing", "tested"];

/** The prompts the prompts-*, completion-complete and non-tool MRTR scenarios get. */
export const conformancePrompts: McpPrompt[] = [
  {
    name: "test_simple_prompt",
    description: "A prompt without arguments",
    get: () => "This is a simple prompt for testing.",
  },
  {
    name: "test_prompt_with_arguments",
    description: "A prompt with two required arguments",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
    complete: {
      arg1: (value) => WORDS.filter((word) => word.startsWith(value)),
      arg2: (value) => WORDS.filter((word) => word.startsWith(value)),
    },
  },
  {
    name: "test_prompt_with_embedded_resource",
    description: "A prompt embedding a resource",
    arguments: [{ name: "resourceUri", description: "URI of the resource", required: true }],
    get: ({ resourceUri }) => [
      {
        role: "user",
        content: {
          type: "embedded_resource",
          resource: {
            uri: resourceUri ?? "",
            mimeType: "text/plain",
            text: "Embedded resource content for testing.",
          },
        },
      },
      {
        role: "user",
        content: { type: "text", text: "Please process the embedded resource above." },
      },
    ],
  },
  {
    name: "test_prompt_with_image",
    description: "A prompt with an image",
    get: () => [
      { role: "user", content: { type: "image", data: PNG, mimeType: "image/png" } },
      { role: "user", content: { type: "text", text: "Please analyze the image above." } },
    ],
  },
  {
    name: "test_input_required_result_prompt",
    description: "A prompt that asks the user for context first",
    get: async (_args, ctx) => {
      const { context } = await ctx.requestForm("What context should the prompt use?", {
        type: "object",
        properties: { context: { type: "string" } },
        required: ["context"],
      });
      return `Use this context: ${String(context)}`;
    },
  },
];

/**
 * Creates the conformance server: in-memory sessions (the suite's SSE scenarios want a session
 * id) and elicitation and sampling forwarded to the client, loopback hosts only.
 *
 * @returns The handler.
 */
export function conformanceHandler(): McpHandler {
  const handler: McpHandler = createMcpHandler(
    conformanceToolset(
      () => handler.toolsChanged(),
      () => handler.promptsChanged(),
    ),
    {
      resources: conformanceResources,
      resourceTemplates: conformanceTemplates,
      prompts: conformancePrompts,
      name: "toolwire-conformance",
      version: "1.0.0",
      sessions: "memory",
      interactionPolicy: "elicit",
      stateSecret: "conformance-fixture-secret-not-for-production",
      questionKey: (question, index) => QUESTION_KEYS[question.prompt] ?? `q${index}`,
      // test_tool_with_task asks in the request (multi round-trip) and becomes a task on the
      // retry that answers; every other task tool is a task at once.
      tasks: mcpTasks({
        pollIntervalMs: 200,
        runAsTask: ({ tool, retry }) => tool.name !== "test_tool_with_task" || retry,
      }),
      // 2025-11-25 SSE polling: a call still running after a second closes its connection and
      // the client resumes (only test_reconnection runs that long).
      ssePollMs: SSE_POLL_MS,
      sseRetryMs: 200,
    },
  );
  return handler;
}
