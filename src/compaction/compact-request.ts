import * as v from "valibot";
import { defineTool, type Tool } from "../local/define-tool.ts";

/**
 * Compact request interface: a model-callable `compact` tool and the flag it sets.
 */
export interface CompactRequest {
  /** The tool to give the model. */
  tool: Tool;
  /** Whether a request is pending. */
  readonly requested: boolean;
  /**
   * Returns whether a request is pending and clears it. The loop calls it only when it acts on
   * the request; a request it cannot serve stays pending.
   *
   * @returns Whether compaction was requested since the last `consume`.
   */
  consume(): boolean;
}

/**
 * Creates a `compact` tool the model calls to have its transcript summarised before its next
 * turn. It can only make compaction happen earlier, never later.
 *
 * @returns The tool and its flag.
 */
/* @__NO_SIDE_EFFECTS__ */
export function createCompactRequest(): CompactRequest {
  let requested = false;
  const tool = defineTool({
    name: "compact",
    description:
      "Ask for the transcript to be compacted before the next turn. Call it before starting the next step of your plan, when earlier turns are no longer needed verbatim.",
    readOnly: true,
    input: v.object({ reason: v.optional(v.string()) }),
    call: () => {
      requested = true;
      return "Compaction requested: the transcript will be summarised before your next turn.";
    },
  });
  return {
    tool: tool as Tool,
    get requested() {
      return requested;
    },
    consume() {
      const was = requested;
      requested = false;
      return was;
    },
  };
}
