import { describe, expect, test } from "vitest";
import { ToolError } from "../../src/errors.ts";
import type { ToolHandlerBackend } from "../../src/execution/backend.ts";
import type { ToolHandlerInput } from "../../src/execution/handler-io.ts";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { createLifecycle } from "../../src/toolset/lifecycle.ts";
import { ToolHandler } from "../../src/toolset/tool-handler.ts";
import { caught } from "../support/caught.ts";

function recording(answer: (input: ToolHandlerInput) => Promise<unknown>) {
  const inputs: string[] = [];
  const backend: ToolHandlerBackend = {
    step: async (input) => {
      inputs.push(input.type);
      return (await answer(input)) as never;
    },
  };
  return { backend, inputs };
}

describe("ToolHandler", () => {
  test("passes steps and progress options through to the source's handler", async () => {
    const { backend, inputs } = recording(async () => ({
      type: "completed",
      result: ToolResult.text("ok"),
    }));
    const handler = new ToolHandler(
      backend,
      createLifecycle(async () => {}),
    );
    const output = await handler.step({ type: "invoke", arguments: {} }, { onProgress() {} });
    expect(output).toEqual({ type: "completed", result: ToolResult.text("ok") });
    expect(inputs).toEqual(["invoke"]);
  });

  test("passes the source's errors through unchanged", async () => {
    const failure = new ToolError({ type: "protocol", message: "bad reply" });
    const { backend } = recording(() => Promise.reject(failure));
    const handler = new ToolHandler(
      backend,
      createLifecycle(async () => {}),
    );
    expect(await caught(handler.step({ type: "invoke", arguments: {} }))).toBe(failure);
  });

  test("rejects a step in flight with closed at shutdown and sends cancel to the source", async () => {
    const { backend, inputs } = recording((input) =>
      input.type === "cancel" ? Promise.reject(new Error("ignored")) : new Promise(() => {}),
    );
    const lifecycle = createLifecycle(async () => {});
    const handler = new ToolHandler(backend, lifecycle);
    const step = handler.step({ type: "invoke", arguments: {} });
    await lifecycle.shutdown();
    expect((await caught(step)).data).toEqual({ type: "closed", operation: "step" });
    expect(inputs).toEqual(["invoke", "cancel"]);
  });

  test("fails every step after shutdown with closed without reaching the source", async () => {
    const { backend, inputs } = recording(async () => ({ type: "completed" }));
    const lifecycle = createLifecycle(async () => {});
    const handler = new ToolHandler(backend, lifecycle);
    await lifecycle.shutdown();
    expect((await caught(handler.step({ type: "invoke", arguments: {} }))).type).toBe("closed");
    expect((await caught(handler.step({ type: "cancel" }))).type).toBe("closed");
    expect(inputs).toEqual([]);
  });

  test("does not cancel a call that already completed when the toolset shuts down", async () => {
    const { backend, inputs } = recording(async () => ({
      type: "completed",
      result: ToolResult.text("ok"),
    }));
    const lifecycle = createLifecycle(async () => {});
    await new ToolHandler(backend, lifecycle).step({ type: "invoke", arguments: {} });
    await lifecycle.shutdown();
    expect(inputs).toEqual(["invoke"]);
  });

  test("keeps a call suspended after a rejected reply live, so shutdown still cancels it", async () => {
    let calls = 0;
    const { backend, inputs } = recording(async (input) => {
      calls += 1;
      if (input.type === "invoke") {
        return {
          type: "interaction",
          request: {
            id: "i",
            toolName: "t",
            prompt: "?",
            kind: { type: "text", multiline: false },
          },
        };
      }
      if (input.type === "interaction") {
        throw new ToolError({ type: "invalid_interaction", id: "j", message: "wrong id" });
      }
      throw new ToolError({ type: "cancelled", tool: "t" });
    });
    const lifecycle = createLifecycle(async () => {});
    const handler = new ToolHandler(backend, lifecycle);
    await handler.step({ type: "invoke", arguments: {} });
    const reply = {
      type: "interaction",
      response: { type: "submit", id: "j", content: "x" },
    } as const;
    expect((await caught(handler.step(reply))).type).toBe("invalid_interaction");
    await lifecycle.shutdown();
    expect(inputs).toEqual(["invoke", "interaction", "cancel"]);
    expect(calls).toBe(3);
  });
});

describe("ToolHandler keeps a call live exactly while it can still run", () => {
  // A source whose invoke is held until the test lets it answer.
  function held() {
    const inputs: string[] = [];
    let answer: (output: unknown) => void = () => {};
    const backend: ToolHandlerBackend = {
      step: (input) => {
        inputs.push(input.type);
        if (input.type === "invoke") {
          return new Promise((resolve) => {
            answer = resolve as (output: unknown) => void;
          });
        }
        return Promise.reject(new ToolError({ type: "unsupported", operation: "overlap" }));
      },
    };
    return { backend, inputs, answer: (output: unknown) => answer(output) };
  }

  test("an overlapping step refused with unsupported does not release the running call", async () => {
    const { backend, inputs } = held();
    const lifecycle = createLifecycle(async () => {});
    const handler = new ToolHandler(backend, lifecycle);
    const invoke = handler.step({ type: "invoke", arguments: {} });
    const overlap = handler.step({ type: "interaction", response: {} as never });
    expect((await caught(overlap)).type).toBe("unsupported");
    await lifecycle.shutdown();
    expect((await caught(invoke)).type).toBe("closed");
    expect(inputs).toEqual(["invoke", "interaction", "cancel"]);
  });

  test("a misused step on a suspended call keeps it live, so shutdown still cancels it", async () => {
    const { backend, inputs, answer } = held();
    const lifecycle = createLifecycle(async () => {});
    const handler = new ToolHandler(backend, lifecycle);
    const invoke = handler.step({ type: "invoke", arguments: {} });
    answer({ type: "interaction", request: { id: "q" } });
    expect((await invoke).type).toBe("interaction");
    await caught(handler.step({ type: "interaction", response: {} as never }));
    await lifecycle.shutdown();
    expect(inputs).toEqual(["invoke", "interaction", "cancel"]);
  });

  test("a completed call is released, so shutdown sends it nothing", async () => {
    const { backend, inputs, answer } = held();
    const lifecycle = createLifecycle(async () => {});
    const handler = new ToolHandler(backend, lifecycle);
    const invoke = handler.step({ type: "invoke", arguments: {} });
    answer({ type: "completed", result: ToolResult.text("ok") });
    await invoke;
    await lifecycle.shutdown();
    expect(inputs).toEqual(["invoke"]);
  });

  test("a source that returns something other than a step output fails with protocol", async () => {
    const { backend, answer } = held();
    const handler = new ToolHandler(
      backend,
      createLifecycle(async () => {}),
    );
    const invoke = handler.step({ type: "invoke", arguments: {} });
    answer({ kind: "done" });
    expect((await caught(invoke)).type).toBe("protocol");
  });

  test("a source that throws synchronously rejects the step instead of throwing", async () => {
    const failure = new ToolError({ type: "transport", message: "down" });
    const backend: ToolHandlerBackend = {
      step: () => {
        throw failure;
      },
    };
    const handler = new ToolHandler(
      backend,
      createLifecycle(async () => {}),
    );
    const step = handler.step({ type: "invoke", arguments: {} });
    expect(step).toBeInstanceOf(Promise);
    expect(await caught(step)).toBe(failure);
  });
});
