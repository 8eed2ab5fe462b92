import { describe, expect, it } from "vitest";
import { createRemoteCallPlan } from "../../../src/mcp/client/remote-call-plan.ts";
import { toolFromMcp } from "../../../src/mcp/client/tool-from-mcp.ts";
import { caught } from "../../support/caught.ts";

const plan = (inputSchema: Record<string, unknown>, outputSchema?: Record<string, unknown>) =>
  createRemoteCallPlan(
    toolFromMcp(
      { name: "t", inputSchema, ...(outputSchema ? { outputSchema } : {}) },
      { formInteractions: false },
    ),
    { timeoutMs: 1000, formInteractions: false },
  );

describe("createRemoteCallPlan", () => {
  it("returns valid arguments and refuses non-objects and schema violations with issues", async () => {
    const p = plan({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
    expect(p.checkArguments({ n: 1 })).toEqual({ n: 1 });
    const array = await caught(() => p.checkArguments([1]));
    expect(array.toJSON()).toMatchObject({ type: "invalid_arguments", tool: "t" });
    const wrong = await caught(() => p.checkArguments({ n: "x" }));
    expect(wrong.type).toBe("invalid_arguments");
    expect(wrong.toJSON()).toMatchObject({ issues: [{ path: "/n" }] });
  });

  it("leaves a schema it cannot interpret to the server", () => {
    const p = plan({ type: "object", properties: { n: { $ref: "#/nowhere" } } });
    expect(p.checkArguments({ n: 1 })).toEqual({ n: 1 });
  });

  it("checks structuredContent against the output schema, but never an isError result", async () => {
    const p = plan({ type: "object" }, { type: "object", required: ["n"] });
    const ok = { content: [], structuredContent: { n: 1 }, isError: false };
    expect(p.checkResult(ok)).toBe(ok);
    expect((await caught(() => p.checkResult({ content: [], isError: false }))).type).toBe(
      "invalid_output",
    );
    expect(
      (await caught(() => p.checkResult({ content: [], structuredContent: {}, isError: false })))
        .type,
    ).toBe("invalid_output");
    const failed = { content: [], isError: true };
    expect(p.checkResult(failed)).toBe(failed);
  });
});
