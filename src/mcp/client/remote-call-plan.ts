import { ToolError, type ValidationIssue } from "../../errors.ts";
import type { ToolResult } from "../../execution/tool-result.ts";
import { isJsonObject } from "../../schema/is-json-object.ts";
import { compileJsonSchema, type JsonSchemaCheck } from "../../schema/validate-json-schema.ts";
import type { RemoteTool } from "./tool-from-mcp.ts";

/**
 * Remote call plan interface: what every call of one remote tool shares — its declaration, the
 * input and output checks (compiled once, on first use), and the client's settings.
 */
export interface RemoteCallPlan {
  /** The tool. */
  tool: RemoteTool;
  /** The idle deadline of one call, in milliseconds. */
  timeoutMs: number;
  /** Whether `elicitation/create` becomes a form interaction. */
  formInteractions: boolean;
  /** Whether `sampling/createMessage` becomes a sampling interaction. */
  samplingInteractions: boolean;
  /**
   * Returns the arguments when they are a JSON object that satisfies the remote input schema.
   *
   * @throws ToolError `invalid_arguments` with the issues.
   */
  checkArguments(args: unknown): Record<string, unknown>;
  /**
   * Returns the result unchanged when it satisfies the declared output schema.
   *
   * @throws ToolError `invalid_output`.
   */
  checkResult(result: ToolResult): ToolResult;
}

/**
 * Creates the call plan of one remote tool.
 *
 * @param tool The tool.
 * @param options The call deadline and whether form and sampling interactions are enabled.
 * @returns The plan.
 */
export function createRemoteCallPlan(
  tool: RemoteTool,
  options: { timeoutMs: number; formInteractions: boolean; samplingInteractions?: boolean },
): RemoteCallPlan {
  let input: JsonSchemaCheck | undefined;
  let output: JsonSchemaCheck | undefined;
  const name = tool.info.name;
  return {
    tool,
    timeoutMs: options.timeoutMs,
    formInteractions: options.formInteractions,
    samplingInteractions: options.samplingInteractions === true,
    checkArguments(args) {
      if (!isJsonObject(args)) {
        throw invalidArguments(name, [
          { path: "", message: "MCP tool arguments must be a JSON object" },
        ]);
      }
      input ??= lenient(tool.info.inputSchema.schema);
      const issues = input(args);
      if (issues.length > 0) throw invalidArguments(name, issues);
      return args;
    },
    checkResult(result) {
      const schema = tool.info.outputSchema;
      if (result.isError || !schema) return result;
      if (result.structuredContent === undefined) {
        throw new ToolError({
          type: "invalid_output",
          message: `${name} declares an output schema but returned no structuredContent`,
          issues: [],
        });
      }
      output ??= lenient(schema.schema);
      const issues = output(result.structuredContent);
      if (issues.length === 0) return result;
      throw new ToolError({
        type: "invalid_output",
        message: `${name} returned structuredContent that does not match its output schema`,
        issues,
      });
    },
  };
}

// Hint: a remote schema this validator cannot interpret (an unresolvable `$ref`, say) is left
// to the server, which validates anyway; refusing every call would make the tool unusable.
function lenient(schema: Record<string, unknown> | boolean): JsonSchemaCheck {
  let check: JsonSchemaCheck;
  try {
    check = compileJsonSchema(schema);
  } catch {
    return () => [];
  }
  return (value) => {
    try {
      return check(value);
    } catch {
      return [];
    }
  };
}

function invalidArguments(tool: string, issues: ValidationIssue[]): ToolError {
  const first = issues[0] as ValidationIssue;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new ToolError({
    type: "invalid_arguments",
    tool,
    message: `${first.path || "/"}: ${first.message}${more}`,
    issues,
  });
}
