import {
  type CarriedState,
  capabilities,
  interactionCapabilities,
  JsonSchema,
  ToolError,
  type ToolHandlerBackend,
  type ToolInfo,
  ToolResult,
  type ToolsetBackend,
  toolName,
} from "../../src/index.ts";
import { createGate, type Gate } from "./gate.ts";

/** Fake backend options interface. */
export interface FakeBackendOptions {
  /** Tool names, in registration order. Default `["alpha", "beta"]`. */
  tools?: string[];
  /** Thrown by the cleanup, when set. */
  cleanupError?: unknown;
  /** Returned by `carriedState`, when set. */
  carried?: CarriedState[];
  /** Gates that start closed, holding that operation in flight until opened. */
  hold?: { listTools?: boolean; toolHandler?: boolean; step?: boolean; cleanup?: boolean };
}

/** Fake backend interface: a foreign `ToolsetBackend` that counts what reaches it. */
export interface FakeBackend extends ToolsetBackend {
  /** How many times each operation reached the backend. */
  readonly counts: {
    listTools: number;
    toolHandler: number;
    steps: number;
    cancels: number;
    shutdowns: number;
  };
  /** Gates each operation waits on (open unless held). */
  readonly gates: { listTools: Gate; toolHandler: Gate; step: Gate; cleanup: Gate };
  /** Opens when the cleanup starts. */
  readonly cleanupStarted: Gate;
  /** Opens when a step is waiting on `gates.step`. */
  readonly stepStarted: Gate;
}

/**
 * Returns a minimal declaration for a fake tool.
 *
 * @param name The tool's name.
 * @returns The declaration.
 */
export function fakeToolInfo(name: string): ToolInfo {
  return {
    name: toolName(name),
    inputSchema: JsonSchema.unspecified({ type: "object" }),
    annotations: {},
    capabilities: capabilities(),
    interactions: interactionCapabilities(),
  };
}

/**
 * Creates a foreign backend (a `ToolsetBackend` of your own, design.md T11): each handler completes
 * once with `name:arguments` as text, then fails any further input with `unsupported`.
 *
 * @param options Tools, cleanup error, carried state and held gates.
 * @returns The backend and its counters.
 */
export function createFakeBackend(options: FakeBackendOptions = {}): FakeBackend {
  const names = options.tools ?? ["alpha", "beta"];
  const hold = options.hold ?? {};
  const counts = { listTools: 0, toolHandler: 0, steps: 0, cancels: 0, shutdowns: 0 };
  const gates = {
    listTools: createGate(!hold.listTools),
    toolHandler: createGate(!hold.toolHandler),
    step: createGate(!hold.step),
    cleanup: createGate(!hold.cleanup),
  };
  const cleanupStarted = createGate();
  const stepStarted = createGate();
  const handler = (name: string): ToolHandlerBackend => {
    let done = false;
    return {
      async step(input) {
        counts.steps += 1;
        if (input.type === "cancel") {
          counts.cancels += 1;
          done = true;
          throw new ToolError({ type: "cancelled", tool: name });
        }
        if (done || input.type !== "invoke") {
          throw new ToolError({ type: "unsupported", operation: "a step after completion" });
        }
        done = true;
        stepStarted.open();
        await gates.step.wait();
        return {
          type: "completed",
          result: ToolResult.text(`${name}:${JSON.stringify(input.arguments)}`),
        };
      },
    };
  };
  const backend: FakeBackend = {
    counts,
    gates,
    cleanupStarted,
    stepStarted,
    async listTools() {
      counts.listTools += 1;
      await gates.listTools.wait();
      return names.map(fakeToolInfo);
    },
    async toolHandler(name) {
      counts.toolHandler += 1;
      await gates.toolHandler.wait();
      if (!names.includes(name)) throw new ToolError({ type: "unknown_tool", name });
      return handler(name);
    },
    async shutdown() {
      counts.shutdowns += 1;
      cleanupStarted.open();
      await gates.cleanup.wait();
      if (options.cleanupError !== undefined) throw options.cleanupError;
    },
  };
  if (options.carried) {
    const carried = options.carried;
    backend.carriedState = async () => carried;
  }
  return backend;
}
