import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { defineTool, type ToolLog, Toolset } from "../../src/index.ts";

const logging = defineTool({
  name: "logging",
  description: "Logs twice",
  input: v.object({}),
  call: (_input, { log }) => {
    log("info", "started");
    log("warning", { left: 3 }, "quota");
    return "ok";
  },
});

describe("ToolContext.log", () => {
  it("reaches the caller's onLog in order, with the logger name when given", async () => {
    const logs: ToolLog[] = [];
    const result = await Toolset.local([logging]).call(
      "logging",
      {},
      { onLog: (log) => logs.push(log) },
    );
    expect(result.isError).toBe(false);
    expect(logs).toEqual([
      { level: "info", data: "started" },
      { level: "warning", data: { left: 3 }, logger: "quota" },
    ]);
  });

  it("is dropped without a listener and never breaks the call when the listener throws", async () => {
    const tools = Toolset.local([logging]);
    expect((await tools.call("logging", {})).content).toEqual([{ type: "text", text: "ok" }]);
    const result = await tools.call(
      "logging",
      {},
      {
        onLog: () => {
          throw new Error("listener bug");
        },
      },
    );
    expect(result.content).toEqual([{ type: "text", text: "ok" }]);
  });
});
