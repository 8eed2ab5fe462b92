import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { Agent, modeApprover } from "../../src/agent/index.ts";
import { defineTool, Toolset } from "../../src/index.ts";
import { connectMcp, createMcpHandler } from "../../src/mcp/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { caught } from "../support/caught.ts";

// Bad arguments fail a call the same way in-process and through a toolwire server (issue 30
// point 7): `invalid_arguments` with the same issues, not a result the tool seemed to produce.
const add = defineTool({
  name: "add",
  description: "Adds",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => String(a + b),
});
const local = Toolset.local([add]);

describe.each(["2025-11-25", "2026-07-28", undefined] as const)("protocol %s", (protocol) => {
  it("rejects bad arguments with invalid_arguments, as the local toolset does", async () => {
    const handler = createMcpHandler(local, { name: "calc", version: "1.0.0" });
    const remote = await connectMcp({
      url: "http://localhost/mcp",
      fetch: handler.fetch,
      ...(protocol ? { protocol } : {}),
    });
    const there = await caught(remote.call("add", { a: "one", b: 2 }));
    const here = await caught(local.call("add", { a: "one", b: 2 }));
    expect(there.type).toBe("invalid_arguments");
    expect(there.issues).toEqual(here.issues);
    expect(there.message).toContain("invalid tool arguments for `add`");
    expect((await remote.call("add", { a: 1, b: 2 })).isError).toBe(false);
    await remote.shutdown();
  });
});

it("an agent tells the model about remote bad arguments as it does for local ones", async () => {
  const handler = createMcpHandler(local, { name: "calc", version: "1.0.0" });
  const remote = await connectMcp({ url: "http://localhost/mcp", fetch: handler.fetch });
  const texts: string[] = [];
  for (const toolsets of [[local], [remote]]) {
    const model = scriptedModel([
      { toolCalls: [{ id: "c1", name: "add", arguments: { a: "one", b: 2 } }] },
      { text: "done" },
    ]);
    const agent = new Agent({ model, toolsets, approver: modeApprover("allow") });
    const run = agent.run("add");
    const events = run.events;
    await run.result;
    for await (const event of events) {
      if (event.type === "tool_result") {
        expect(event.isError).toBe(true);
        texts.push(event.content.map((item) => (item.type === "text" ? item.text : "")).join("\n"));
      }
    }
  }
  expect(texts).toHaveLength(2);
  // The remote one is wrapped as untrusted content, as everything a server sends.
  expect(texts[0]).toMatch(/^Tool `add` failed: invalid tool arguments for `add`: \/a: /);
  expect(texts[1]).toContain(texts[0]);
  await remote.shutdown();
});
