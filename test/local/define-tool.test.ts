import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { defineTool } from "../../src/local/define-tool.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import { caught } from "../support/caught.ts";

describe("defineTool", () => {
  test("a tool with only the required members is writing, has no capabilities and no state", () => {
    const tool = defineTool({
      name: "lookup",
      description: "Looks a record up",
      input: v.object({ id: v.string() }),
      call: ({ id }) => id,
    });
    expect(tool.readOnly).toBe(false);
    expect(tool.capabilities).toEqual({
      privateData: false,
      untrustedInput: false,
      externalSend: false,
      destructive: false,
    });
    expect(tool.carriedState).toBeUndefined();
    expect(tool.info).toEqual({
      name: "lookup",
      description: "Looks a record up",
      inputSchema: {
        schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
        strictness: "unspecified",
      },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      capabilities: tool.capabilities,
      interactions: { form: false, formSchemaValidation: false, text: false, multilineText: false },
    });
  });

  test("derives annotations from readOnly and capabilities, and lets explicit ones win", () => {
    const tool = defineTool({
      name: "fetch_page",
      description: "Fetches a page",
      title: "Fetch",
      input: v.object({}),
      readOnly: true,
      capabilities: { untrustedInput: true, destructive: true },
      annotations: { idempotentHint: true, destructiveHint: false },
      call: () => "ok",
    });
    expect(tool.readOnly).toBe(true);
    expect(tool.info.title).toBe("Fetch");
    expect(tool.info.annotations).toEqual({
      title: "Fetch",
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: true,
      idempotentHint: true,
    });
  });

  test("publishes a raw JSON Schema input and output unchanged", () => {
    const input = { type: "object", properties: { q: { type: "string" } } };
    const output = { type: "object", properties: { hits: { type: "number" } } };
    const tool = defineTool({
      name: "search",
      description: "Searches",
      input: { jsonSchema: input },
      output: { jsonSchema: output },
      icons: [{ src: "data:image/png;base64,AAAA" }],
      metadata: { owner: "me" },
      call: () => ({ hits: 1 }),
    });
    expect(tool.info.inputSchema.schema).toBe(input);
    expect(tool.info.outputSchema?.schema).toBe(output);
    expect(tool.info.icons).toEqual([{ src: "data:image/png;base64,AAAA" }]);
    expect(tool.info.metadata).toEqual({ owner: "me" });
  });

  test.each([
    ["an empty name", ""],
    ["a name with a space", "bad name"],
  ])("rejects %s with invalid_configuration", async (_label, name) => {
    const error = await caught(() =>
      defineTool({ name, description: "d", input: v.object({}), call: () => "x" }),
    );
    expect(error.type).toBe("invalid_configuration");
  });

  test("rejects a missing call function with invalid_configuration", async () => {
    const error = await caught(() =>
      defineTool({ name: "t", description: "d", input: v.object({}) } as never),
    );
    expect(error.type).toBe("invalid_configuration");
  });

  test("hands the valibot schema's transformed output to the tool", async () => {
    let received: unknown;
    const tool = defineTool({
      name: "count",
      description: "Counts",
      input: v.object({ n: v.pipe(v.string(), v.transform(Number)) }),
      call: (input) => {
        received = input;
        return "ok";
      },
    });
    await new LocalHandler(tool).step({ type: "invoke", arguments: { n: "41" } });
    expect(received).toEqual({ n: 41 });
  });

  test("exposes carried state through the tool", () => {
    const tool = defineTool({
      name: "todo",
      description: "Keeps a list",
      input: v.object({}),
      carriedState: () => ({ label: "todo", body: "- [ ] ship" }),
      call: () => "ok",
    });
    expect(tool.carriedState?.()).toEqual({ label: "todo", body: "- [ ] ship" });
  });
});
