import { capabilitiesFromAnnotations } from "../../declaration/capabilities.ts";
import { interactionCapabilities } from "../../declaration/interaction-capabilities.ts";
import type { ToolAnnotations, ToolIcon } from "../../declaration/tool-annotations.ts";
import type { ToolInfo } from "../../declaration/tool-info.ts";
import { namespacedName, toolName } from "../../declaration/tool-name.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { JsonSchema } from "../../schema/json-schema.ts";
import { protocolError } from "./session-error.ts";

/** Remote tool interface: a remote tool's declaration and the name the server knows it by. */
export interface RemoteTool {
  /** The declaration callers see (namespaced when a namespace is set). */
  info: ToolInfo;
  /** The server's own name, sent in `tools/call`. */
  nativeName: string;
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

/**
 * Returns the declaration of one `tools/list` entry: the name namespaced as `ns__name`, schemas
 * wrapped as `JsonSchema.unspecified`, annotations mapped to capabilities (a missing
 * `readOnlyHint` means the tool writes), `_meta` as metadata, form interactions when the
 * client answers elicitations and sampling when it answers sampling requests.
 *
 * @param value The entry, as sent.
 * @param options The namespace, and whether form and sampling interactions are enabled.
 * @returns The remote tool.
 * @throws ToolError `protocol` for an entry that is not an MCP tool; `invalid_configuration`
 * when its (namespaced) name is not a portable tool name.
 */
export function toolFromMcp(
  value: unknown,
  options: { namespace?: string; formInteractions: boolean; samplingInteractions?: boolean },
): RemoteTool {
  if (!isJsonObject(value) || typeof value.name !== "string") {
    throw protocolError("a tools/list entry has no string `name`");
  }
  const nativeName = value.name;
  if (!isJsonObject(value.inputSchema)) {
    throw protocolError(`tool \`${nativeName}\` has no object \`inputSchema\``);
  }
  if (value.outputSchema !== undefined && !isJsonObject(value.outputSchema)) {
    throw protocolError(`tool \`${nativeName}\` has an \`outputSchema\` that is not an object`);
  }
  const name =
    options.namespace === undefined
      ? toolName(nativeName)
      : namespacedName(options.namespace, nativeName);
  const annotations = annotationsOf(value.annotations);
  const form = options.formInteractions;
  const info: ToolInfo = {
    name,
    inputSchema: JsonSchema.unspecified(value.inputSchema),
    annotations,
    capabilities: capabilitiesFromAnnotations(annotations, { trusted: true }),
    interactions: interactionCapabilities({
      form,
      formSchemaValidation: form,
      sampling: options.samplingInteractions === true,
    }),
  };
  if (typeof value.title === "string") info.title = value.title;
  if (typeof value.description === "string") info.description = value.description;
  if (isJsonObject(value.outputSchema))
    info.outputSchema = JsonSchema.unspecified(value.outputSchema);
  const icons = iconsOf(value.icons);
  if (icons.length > 0) info.icons = icons;
  if (isJsonObject(value._meta)) info.metadata = value._meta;
  return { info, nativeName };
}

function annotationsOf(value: unknown): ToolAnnotations {
  const annotations: ToolAnnotations = {};
  if (!isJsonObject(value)) return annotations;
  if (typeof value.title === "string") annotations.title = value.title;
  for (const hint of HINTS) {
    const flag = value[hint];
    if (typeof flag === "boolean") annotations[hint] = flag;
  }
  return annotations;
}

function iconsOf(value: unknown): ToolIcon[] {
  if (!Array.isArray(value)) return [];
  const icons: ToolIcon[] = [];
  for (const entry of value) {
    if (!isJsonObject(entry) || typeof entry.src !== "string") continue;
    const icon: ToolIcon = { src: entry.src };
    if (typeof entry.mimeType === "string") icon.mimeType = entry.mimeType;
    if (Array.isArray(entry.sizes) && entry.sizes.every((size) => typeof size === "string")) {
      icon.sizes = entry.sizes as string[];
    }
    icons.push(icon);
  }
  return icons;
}
