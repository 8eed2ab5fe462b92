import type { CarriedState } from "../declaration/carried-state.ts";
import type { ToolInfo } from "../declaration/tool-info.ts";
import type { StepOptions, ToolHandlerInput, ToolHandlerOutput } from "./handler-io.ts";

/**
 * One resumable invocation. One handler owns exactly one call.
 */
export interface ToolHandlerBackend {
  /**
   * Performs one transition: `invoke` runs the tool until it completes or first asks for input.
   *
   * @param input The transition.
   * @param options Progress listener for this step.
   * @returns The completed result or the pending interaction.
   */
  step(input: ToolHandlerInput, options?: StepOptions): Promise<ToolHandlerOutput>;
}

/**
 * The contract for one shared executable tool source (local, MCP,
 * or your own). Wrap it with `Toolset.fromBackend` to get shared shutdown and admission.
 */
export interface ToolsetBackend<H extends ToolHandlerBackend = ToolHandlerBackend> {
  /** Returns the declarations of every tool. */
  listTools(): Promise<ToolInfo[]>;
  /** Returns a fresh handler for one call of the named tool. */
  toolHandler(name: string): Promise<H>;
  /** Releases the source's resources. */
  shutdown(): Promise<void>;
  /** Returns the state its tools want carried across compaction, in name order. */
  carriedState?(): Promise<CarriedState[]>;
}
