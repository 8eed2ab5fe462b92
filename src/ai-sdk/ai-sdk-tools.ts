// A toolwire `Toolset` as AI SDK tools for `generateText` / `streamText` (`docs/design.md`,
// "Models", the AI SDK bridge). Nothing of `ai` is imported at run time: a tool is a plain
// object, and its JSON Schema carries the AI SDK's registry-wide schema marker, so this works
// with whichever copy of `ai` the application has.
import { isReadOnly } from "../declaration/tool-info.ts";
import { toolContentText } from "../models/tool-content-text.ts";
import type { Toolset } from "../toolset/toolset.ts";

// `Symbol.for`, like toolwire's own brands: the AI SDK recognises a schema by this key.
const SCHEMA = Symbol.for("vercel.ai.schema");

/**
 * One AI SDK tool, as `generateText` / `streamText` take it in `tools`. Declared here rather
 * than imported from `ai`, so toolwire's declarations need no AI SDK package.
 */
export interface AiSdkTool {
  description?: string;
  title?: string;
  /** The tool's JSON Schema in the AI SDK's schema wrapper (what `jsonSchema()` returns). */
  // biome-ignore lint/suspicious/noExplicitAny: the AI SDK's schema type is keyed by its own unique symbol, which no declaration outside `ai` can name.
  inputSchema: any;
  /** `true` for tools that are not read-only (see `AiSdkToolsOptions.needsApproval`). */
  needsApproval: boolean;
  execute(
    input: unknown,
    options: { toolCallId: string; abortSignal?: AbortSignal | undefined },
  ): Promise<string>;
}

/** Options of `aiSdkTools`. */
export interface AiSdkToolsOptions {
  /**
   * Which tools need the user's approval before they run (`needsApproval`); by default every
   * tool that is not read-only (`isReadOnly`: hinted read-only and, if foreign, trusted).
   */
  needsApproval?: "not_read_only" | "never";
}

/**
 * Returns the toolset's tools as an AI SDK tool set: each `execute` calls `toolset.call` with
 * the AI SDK's abort signal and tool call id, returns the result's text, and throws (an error
 * result the model can read) when the tool failed. Tools that are not read-only are marked
 * `needsApproval: true`, so `generateText` stops for approval before running them.
 *
 * @example
 * ```ts
 * import { generateText } from "ai";
 * import { aiSdkTools } from "toolwire/ai-sdk";
 *
 * const { text } = await generateText({ model, tools: await aiSdkTools(toolset), prompt: "Add 2 and 3" });
 * ```
 */
export async function aiSdkTools(
  toolset: Toolset,
  options: AiSdkToolsOptions = {},
): Promise<Record<string, AiSdkTool>> {
  const tools: Record<string, AiSdkTool> = {};
  for (const info of await toolset.listTools()) {
    const execute = async (
      input: unknown,
      call: { toolCallId: string; abortSignal?: AbortSignal | undefined },
    ) => {
      const callOptions = call.abortSignal
        ? { signal: call.abortSignal, callId: call.toolCallId }
        : { callId: call.toolCallId };
      const result = await toolset.call(info.name, input, callOptions);
      const text = result.content.map(toolContentText).join("\n");
      if (result.isError) throw new Error(text || `${info.name} failed`);
      return text;
    };
    tools[info.name] = {
      ...(info.description === undefined ? {} : { description: info.description }),
      ...(info.title === undefined ? {} : { title: info.title }),
      inputSchema: {
        [SCHEMA]: true,
        _type: undefined,
        jsonSchema: info.inputSchema,
        validate: undefined,
      },
      needsApproval: options.needsApproval !== "never" && !isReadOnly(info),
      execute,
    };
  }
  return tools;
}
