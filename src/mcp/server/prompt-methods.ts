// `prompts/list` and `prompts/get`, written once for both protocol eras as `Method`s of the core (`core.ts`):
// the prompts by name, and one prompt filled in with its arguments
// (required ones checked), its messages in MCP's content blocks. See `docs/design.md`,
// "Serving MCP", "Resources, prompts and completion".

import { isJsonObject } from "../../schema/is-json-object.ts";
import type { JsonRpcParams } from "../json-rpc.ts";
import { toMcpContentBlock } from "../protocol.ts";
import { failure, type Outcome, pageOf, result, type Scope } from "./core.ts";
import { failureOutcome, invalidParams, requestContext, sortedBy } from "./request-context.ts";
import type { McpPrompt, McpPromptMessage, McpPromptResult } from "./sources.ts";

/** Answers `prompts/list`: the prompts and their arguments, a page at a time. */
export async function listPrompts(params: JsonRpcParams, scope: Scope): Promise<Outcome> {
  const all = await scope.core.sources.listPrompts(scope.caller.auth);
  const byName = (prompt: McpPrompt) => prompt.name;
  const listed = pageOf(sortedBy(all, byName), params.cursor, scope.core.options.pageSize, byName);
  if (!listed) return invalidParams("invalid cursor");
  const body: Record<string, unknown> = { prompts: listed.page.map(describePrompt) };
  if (listed.nextCursor !== undefined) body.nextCursor = listed.nextCursor;
  return result(body);
}

/**
 * Answers `prompts/get`: `-32602` for an unknown prompt, arguments that are not strings, or a
 * required argument missing; else the prompt's messages.
 */
export async function getPrompt(params: JsonRpcParams, scope: Scope): Promise<Outcome> {
  const { name, arguments: given = {} } = params;
  if (typeof name !== "string") return invalidParams("prompts/get needs a string `name`");
  if (!isJsonObject(given) || !Object.values(given).every((v) => typeof v === "string")) {
    return invalidParams("prompts/get `arguments` must be an object of strings");
  }
  const args = given as Record<string, string>;
  const prompt = (await scope.core.sources.listPrompts(scope.caller.auth)).find(
    (p) => p.name === name,
  );
  if (!prompt) return invalidParams(`unknown prompt ${JSON.stringify(name)}`);
  const missing = (prompt.arguments ?? []).find((a) => a.required && args[a.name] === undefined);
  if (missing) {
    return invalidParams(`prompt ${JSON.stringify(name)} needs the argument \`${missing.name}\``);
  }
  let filled: McpPromptResult;
  try {
    filled = await prompt.get(args, requestContext(scope, `prompt ${name}`));
  } catch (error) {
    return failureOutcome(scope, `Prompt ${name}`, error);
  }
  const body = promptResultOf(filled);
  if (typeof body === "string") {
    scope.report(new TypeError(`prompt ${name}: ${body}`), "tool");
    return failure(-32603, `Prompt ${name} failed: internal error`);
  }
  return result(body);
}

function describePrompt(prompt: McpPrompt): Record<string, unknown> {
  const wire: Record<string, unknown> = { name: prompt.name };
  if (prompt.title !== undefined) wire.title = prompt.title;
  if (prompt.description !== undefined) wire.description = prompt.description;
  if (prompt.arguments !== undefined) {
    wire.arguments = prompt.arguments.map((argument) => {
      const entry: Record<string, unknown> = { name: argument.name };
      if (argument.title !== undefined) entry.title = argument.title;
      if (argument.description !== undefined) entry.description = argument.description;
      if (argument.required !== undefined) entry.required = argument.required;
      return entry;
    });
  }
  if (prompt.icons !== undefined && prompt.icons.length > 0) wire.icons = prompt.icons;
  if (prompt.metadata !== undefined) wire._meta = prompt.metadata;
  return wire;
}

// The `GetPromptResult` of what a prompt returned, or what is wrong with it.
function promptResultOf(filled: McpPromptResult): Record<string, unknown> | string {
  if (typeof filled === "string") {
    return { messages: [{ role: "user", content: { type: "text", text: filled } }] };
  }
  const shape: unknown = Array.isArray(filled) ? { messages: filled } : filled;
  if (!isJsonObject(shape) || !Array.isArray(shape.messages)) {
    return "a prompt must return a string, messages, or `{ messages }`";
  }
  const messages: Record<string, unknown>[] = [];
  for (const message of shape.messages as readonly McpPromptMessage[]) {
    if (
      !isJsonObject(message) ||
      (message.role !== "user" && message.role !== "assistant") ||
      !isJsonObject(message.content)
    ) {
      return "a prompt message needs a `role` of user or assistant and a `content`";
    }
    messages.push({ role: message.role, content: toMcpContentBlock(message.content) });
  }
  const result: Record<string, unknown> = { messages };
  if (typeof shape.description === "string") result.description = shape.description;
  return result;
}
