import * as v from "valibot";
import { defineTool, type Tool, ToolResult } from "../../src/index.ts";

/**
 * Creates the `ask_user` tool: it asks the person a question through a text interaction
 * (`ctx.requestText`) and returns the answer. Read-only: asking changes nothing.
 *
 * @returns The tool.
 */
export function askUserTool(): Tool {
  return defineTool({
    name: "ask_user",
    title: "Ask the user",
    description: "Asks the person in front of the page a question and returns their answer.",
    readOnly: true,
    interactions: { text: true },
    input: v.object({ question: v.pipe(v.string(), v.minLength(1), v.maxLength(500)) }),
    call: async ({ question }, ctx) => {
      const answer = await ctx.requestText(question);
      return ToolResult.text(`The user answered: ${answer}`);
    },
  });
}
