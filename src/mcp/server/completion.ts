// `completion/complete`, written once for both protocol eras as `Method`s of the core (`core.ts`): the
// suggestions a prompt's or a resource template's completer gives for one argument, at most
// 100 (MCP's limit, `hasMore` beyond). An argument without a completer gets no suggestions; a
// prompt or template the server does not have is `-32602`. See `docs/design.md`, "Serving
// MCP", "Resources, prompts and completion".

import { isJsonObject } from "../../schema/is-json-object.ts";
import type { JsonRpcParams } from "../json-rpc.ts";
import { failure, type Outcome, result, type Scope } from "./core.ts";
import { failureOutcome, invalidParams } from "./request-context.ts";
import type { McpCompleter } from "./sources.ts";

/** The most values one completion answer carries (MCP's limit). */
const MAX_VALUES = 100;

/** Answers `completion/complete` for a `ref/prompt` or a `ref/resource` (a URI template). */
export async function complete(params: JsonRpcParams, scope: Scope): Promise<Outcome> {
  const { ref, argument, context } = params;
  if (!isJsonObject(ref)) return invalidParams("completion/complete needs a `ref` object");
  if (!isJsonObject(argument) || typeof argument.name !== "string") {
    return invalidParams("completion/complete needs an `argument` with a string `name`");
  }
  const value = typeof argument.value === "string" ? argument.value : "";
  const given = isJsonObject(context) && isJsonObject(context.arguments) ? context.arguments : {};
  const others: Record<string, string> = {};
  for (const [key, item] of Object.entries(given)) if (typeof item === "string") others[key] = item;
  let completer: McpCompleter | undefined;
  switch (ref.type) {
    case "ref/prompt": {
      const prompts = await scope.core.sources.listPrompts(scope.caller.auth);
      const prompt = prompts.find((p) => p.name === ref.name);
      if (!prompt) return invalidParams(`unknown prompt ${JSON.stringify(ref.name)}`);
      completer = prompt.complete?.[argument.name];
      break;
    }
    case "ref/resource": {
      const templates = await scope.core.sources.listTemplates(scope.caller.auth);
      const template = templates.find(({ entry }) => entry.uriTemplate === ref.uri);
      if (!template) return invalidParams(`unknown resource template ${JSON.stringify(ref.uri)}`);
      completer = template.entry.complete?.[argument.name];
      break;
    }
    default:
      return invalidParams("`ref.type` must be ref/prompt or ref/resource");
  }
  let values: readonly string[] = [];
  if (completer) {
    try {
      values = await completer(value, {
        signal: scope.signal,
        auth: scope.caller.auth,
        arguments: others,
      });
    } catch (error) {
      return failureOutcome(scope, "Completion", error);
    }
    if (!Array.isArray(values) || !values.every((v) => typeof v === "string")) {
      scope.report(
        new TypeError(`a completer of ${argument.name} returned no list of strings`),
        "tool",
      );
      return failure(-32603, "Completion failed: internal error");
    }
  }
  const completion: Record<string, unknown> = {
    values: values.slice(0, MAX_VALUES),
    total: values.length,
    hasMore: values.length > MAX_VALUES,
  };
  return result({ completion });
}
