import * as v from "valibot";
import { defineTool, type Tool, ToolResult } from "../../src/index.ts";

/**
 * Creates the read-only `clock` tool: the current date and time, in the page's time zone or a
 * named IANA zone.
 *
 * @param now Returns the current time; tests pass a fixed one.
 * @returns The tool.
 */
export function clockTool(now: () => Date = () => new Date()): Tool {
  return defineTool({
    name: "clock",
    title: "Clock",
    description: "Returns the current date and time, optionally in an IANA time zone.",
    readOnly: true,
    input: v.object({ timeZone: v.optional(v.pipe(v.string(), v.maxLength(64))) }),
    call: ({ timeZone }) => {
      const format = new Intl.DateTimeFormat("en-GB", {
        dateStyle: "full",
        timeStyle: "long",
        ...(timeZone ? { timeZone } : {}),
      });
      return ToolResult.text(format.format(now()));
    },
  });
}
