// `resources/list`, `resources/templates/list` and `resources/read`, written once for both
// protocol eras as `Method`s of the core (`core.ts`): listing page by page in URI order,
// reading a fixed resource by its URI or a templated one through the first template whose
// pattern matches, and the contents' wire shape (text as is, binary as base64). A URI no
// resource has is `resource_not_found`, which each era answers with its own code. See
// `docs/design.md`, "Serving MCP", "Resources, prompts and completion".

import { isJsonObject } from "../../schema/is-json-object.ts";
import type { JsonRpcParams } from "../json-rpc.ts";
import { failure, type Outcome, pageOf, result, type Scope } from "./core.ts";
import { failureOutcome, invalidParams, requestContext, sortedBy } from "./request-context.ts";
import type {
  McpReadResult,
  McpResource,
  McpResourceContents,
  McpResourceTemplate,
  ParsedTemplate,
} from "./sources.ts";

/** Answers `resources/list`: the fixed resources, a page at a time. */
export async function listResources(params: JsonRpcParams, scope: Scope): Promise<Outcome> {
  const all = await scope.core.sources.listResources(scope.caller.auth);
  const byUri = (entry: McpResource) => entry.uri;
  const listed = pageOf(sortedBy(all, byUri), params.cursor, scope.core.options.pageSize, byUri);
  if (!listed) return invalidParams("invalid cursor");
  const body: Record<string, unknown> = {
    resources: listed.page.map((entry) => {
      const wire = describe(entry);
      wire.uri = entry.uri;
      if (typeof entry.size === "number") wire.size = entry.size;
      return wire;
    }),
  };
  if (listed.nextCursor !== undefined) body.nextCursor = listed.nextCursor;
  return result(body);
}

/** Answers `resources/templates/list`: the URI templates, a page at a time. */
export async function listResourceTemplates(params: JsonRpcParams, scope: Scope): Promise<Outcome> {
  const all = await scope.core.sources.listTemplates(scope.caller.auth);
  const byTemplate = ({ entry }: ParsedTemplate) => entry.uriTemplate;
  const listed = pageOf(
    sortedBy(all, byTemplate),
    params.cursor,
    scope.core.options.pageSize,
    byTemplate,
  );
  if (!listed) return invalidParams("invalid cursor");
  const body: Record<string, unknown> = {
    resourceTemplates: listed.page.map(({ entry }) => {
      const wire = describe(entry);
      wire.uriTemplate = entry.uriTemplate;
      return wire;
    }),
  };
  if (listed.nextCursor !== undefined) body.nextCursor = listed.nextCursor;
  return result(body);
}

/**
 * Answers `resources/read`: the fixed resource with exactly this URI, else the first template
 * that matches it (its `read` may still say there is none). A read that throws is answered as
 * `failureOutcome` says; one that returns no contents counts as not found, never as an empty
 * `contents` array.
 */
export async function readResource(params: JsonRpcParams, scope: Scope): Promise<Outcome> {
  const uri = params.uri;
  if (typeof uri !== "string") return invalidParams("resources/read needs a string `uri`");
  const context = requestContext(scope, `resource ${uri}`);
  let read: McpReadResult;
  let mimeType: string | undefined;
  try {
    const fixed = (await scope.core.sources.listResources(scope.caller.auth)).find(
      (r) => r.uri === uri,
    );
    if (fixed) {
      mimeType = fixed.mimeType;
      read = await fixed.read(context);
    } else {
      const templates = await scope.core.sources.listTemplates(scope.caller.auth);
      let found: { entry: McpResourceTemplate; variables: Record<string, string> } | undefined;
      for (const { entry, template } of templates) {
        const variables = template.match(uri);
        if (variables) {
          found = { entry, variables };
          break;
        }
      }
      if (!found) return { type: "resource_not_found", uri };
      mimeType = found.entry.mimeType;
      read = await found.entry.read(uri, found.variables, context);
    }
  } catch (error) {
    return failureOutcome(scope, `Reading ${uri}`, error);
  }
  const contents = contentsOf(read, uri, mimeType);
  if (contents === undefined) return { type: "resource_not_found", uri };
  if (typeof contents === "string") {
    scope.report(new TypeError(`resource ${uri}: ${contents}`), "tool");
    return failure(-32603, `Reading ${uri} failed: internal error`);
  }
  return result({ contents });
}

// The listing fields a resource and a template share.
function describe(entry: McpResource | McpResourceTemplate): Record<string, unknown> {
  const wire: Record<string, unknown> = { name: entry.name };
  if (entry.title !== undefined) wire.title = entry.title;
  if (entry.description !== undefined) wire.description = entry.description;
  if (entry.mimeType !== undefined) wire.mimeType = entry.mimeType;
  if (entry.annotations !== undefined) wire.annotations = entry.annotations;
  if (entry.icons !== undefined && entry.icons.length > 0) wire.icons = entry.icons;
  if (entry.metadata !== undefined) wire._meta = entry.metadata;
  return wire;
}

/**
 * The `contents` of a read: each item with its `uri` (default the one read), `mimeType`
 * (default the resource's) and `text` or base64 `blob`. `undefined` when the read found
 * nothing; a string saying what is wrong with a result that is no contents.
 */
export function contentsOf(
  read: McpReadResult,
  uri: string,
  mimeType: string | undefined,
): Record<string, unknown>[] | string | undefined {
  if (read === undefined || read === null) return undefined;
  const items: readonly unknown[] = Array.isArray(read)
    ? read
    : typeof read === "string"
      ? [{ text: read }]
      : read instanceof Uint8Array
        ? [{ blob: read }]
        : [read];
  if (items.length === 0) return undefined;
  const contents: Record<string, unknown>[] = [];
  for (const item of items) {
    if (!isJsonObject(item)) return "a read returned something that is no contents item";
    const { text, blob } = item as McpResourceContents;
    const wire: Record<string, unknown> = { uri: typeof item.uri === "string" ? item.uri : uri };
    const type = typeof item.mimeType === "string" ? item.mimeType : mimeType;
    if (type !== undefined) wire.mimeType = type;
    if (typeof text === "string") wire.text = text;
    else if (typeof blob === "string") wire.blob = blob;
    else if (blob instanceof Uint8Array) wire.blob = base64Of(blob);
    else return "a contents item needs a string `text` or a `blob`";
    if (isJsonObject(item.metadata)) wire._meta = item.metadata;
    contents.push(wire);
  }
  return contents;
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  // Chunks keep the argument list of `fromCharCode` short for a large file.
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
