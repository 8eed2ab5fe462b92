// The table of the resources, prompts and completion methods, each written once for both
// protocol eras, and the capability that must be served for each to exist. Each era's exchange
// (`rpc-2025.ts`, `rpc-2026.ts`) looks a method up here, builds its `MethodScope` and shapes the
// outcome; a method whose capability is not served is "method not found".

import { complete } from "./completion.ts";
import type { MethodOutcome, MethodScope } from "./method-scope.ts";
import { getPrompt, listPrompts } from "./prompt-methods.ts";
import { listResources, listResourceTemplates, readResource } from "./resource-methods.ts";
import type { ServedSources } from "./sources.ts";

/** One method: its outcome for a request's params. */
export type SourceMethod = (
  scope: MethodScope,
  params: Record<string, unknown>,
) => Promise<MethodOutcome>;

const TABLE: Record<
  string,
  { method: SourceMethod; needs: "resources" | "prompts" | "completions" }
> = {
  "resources/list": { method: listResources, needs: "resources" },
  "resources/templates/list": { method: listResourceTemplates, needs: "resources" },
  "resources/read": { method: readResource, needs: "resources" },
  "prompts/list": { method: listPrompts, needs: "prompts" },
  "prompts/get": { method: getPrompt, needs: "prompts" },
  "completion/complete": { method: complete, needs: "completions" },
};

/**
 * Returns the method named `name` when the sources serve its capability, else `undefined`
 * (also for every other method name).
 */
export function sourceMethod(name: string, sources: ServedSources): SourceMethod | undefined {
  const entry = Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
  return entry && sources[entry.needs] ? entry.method : undefined;
}
