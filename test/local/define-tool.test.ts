import * as v from "valibot";
import * as v0 from "valibot0";
import { describe, expect, test } from "vitest";
import { ToolResult } from "../../src/execution/tool-result.ts";
import { jsonSchemaValidator } from "../../src/json-schema/index.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { LocalHandler } from "../../src/local/local-handler.ts";
import { Toolset } from "../../src/toolset/toolset.ts";
import { caught } from "../support/caught.ts";

describe("defineTool", () => {
  // Mistakes a newcomer makes that used to pass (issue 30 point 7).
  test.each([
    ["a string", v.string(), '"string"'],
    ["an array", v.array(v.number()), '"array"'],
    ["a raw number schema", { jsonSchema: { type: "number" } }, '"number"'],
  ])("refuses %s as the input: arguments are an object", (_, input, shown) => {
    let thrown: unknown;
    try {
      defineTool({
        name: "echo",
        description: "Echoes",
        input: input as never,
        jsonSchemaValidator,
        call: () => "",
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ type: "invalid_configuration" });
    expect((thrown as Error).message).toContain(`input must describe an object of arguments`);
    expect((thrown as Error).message).toContain(`not ${shown}`);
  });

  test("accepts an input that leaves the type open (v.unknown())", () => {
    const tool = defineTool({
      name: "any",
      description: "Any",
      input: v.unknown(),
      call: () => "",
    });
    expect(tool.info.inputSchema.schema).toEqual({});
  });

  test("says a valibot 0.x schema needs valibot 1", () => {
    let thrown: unknown;
    try {
      defineTool({
        name: "old",
        description: "Old valibot",
        input: v0.object({ a: v0.string() }) as never,
        call: () => "",
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ type: "invalid_configuration" });
    expect((thrown as Error).message).toContain("valibot 0.x; toolwire needs valibot 1.x");
  });

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
      interactions: {
        form: false,
        formSchemaValidation: false,
        text: false,
        multilineText: false,
        sampling: false,
        roots: false,
      },
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
      jsonSchemaValidator,
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
    ["a name with a slash", "repo/search"],
    ["a 129-character name", "a".repeat(129)],
  ])("rejects %s with invalid_configuration", async (_label, name) => {
    const error = await caught(() =>
      defineTool({ name, description: "d", input: v.object({}), call: () => "x" }),
    );
    expect(error.type).toBe("invalid_configuration");
  });

  test("accepts a dotted name, and the tool is called by it (design.md T13)", async () => {
    const search = defineTool({
      name: "repo.search",
      description: "d",
      input: v.object({}),
      call: () => "found",
    });
    const tools = Toolset.local([search]);
    expect((await tools.listTools()).map((info) => info.name)).toEqual(["repo.search"]);
    expect(await tools.call("repo.search", {})).toEqual(ToolResult.text("found"));
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

  test("takes readOnly from an explicit readOnlyHint, keeping the two one fact", () => {
    const base = { description: "d", input: v.object({}), call: () => "ok" };
    const hinted = defineTool({ ...base, name: "hinted", annotations: { readOnlyHint: true } });
    expect(hinted.readOnly).toBe(true);
    expect(hinted.info.annotations.readOnlyHint).toBe(true);
    const agreeing = defineTool({
      ...base,
      name: "agreeing",
      readOnly: false,
      annotations: { readOnlyHint: false },
    });
    expect(agreeing.readOnly).toBe(false);
  });

  test.each([
    [true, false],
    [false, true],
  ])(
    "rejects readOnly %s with readOnlyHint %s as invalid_configuration",
    async (readOnly, hint) => {
      const error = await caught(() =>
        defineTool({
          name: "torn",
          description: "d",
          input: v.object({}),
          readOnly,
          annotations: { readOnlyHint: hint },
          call: () => "ok",
        }),
      );
      expect(error.type).toBe("invalid_configuration");
      expect(error.message).toContain("readOnlyHint");
    },
  );

  test("an explicit undefined hint does not erase the derived one", () => {
    const tool = defineTool({
      name: "sender",
      description: "d",
      input: v.object({}),
      capabilities: { externalSend: true },
      annotations: { openWorldHint: undefined as never, title: "Send" },
      call: () => "ok",
    });
    expect(tool.info.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      openWorldHint: true,
      title: "Send",
    });
  });

  test.each([
    ["no options", undefined],
    ["a missing description", { name: "x", input: v.object({}), call: (): string => "" }],
    [
      "a bad name",
      { name: "bad name", description: "d", input: v.object({}), call: (): string => "" },
    ],
    ["a missing input schema", { name: "x", description: "d", call: (): string => "" }],
    [
      "an input that is no schema",
      { name: "x", description: "d", input: 3, call: (): string => "" },
    ],
    [
      "a bad raw schema",
      { name: "x", description: "d", input: { jsonSchema: 1 }, call: (): string => "" },
    ],
  ])("rejects %s with invalid_configuration", async (_label, options) => {
    expect((await caught(() => defineTool(options as never))).type).toBe("invalid_configuration");
  });

  test("validates with an async valibot schema, transforms included", async () => {
    const tool = defineTool({
      name: "async_input",
      description: "d",
      input: v.objectAsync({
        n: v.pipeAsync(
          v.string(),
          v.checkAsync(async (s) => s !== "0", "zero is not allowed"),
          v.transform(Number),
        ),
      }),
      call: ({ n }) => ({ doubled: n * 2 }),
    });
    const ok = await new LocalHandler(tool).step({ type: "invoke", arguments: { n: "21" } });
    expect(ok.type === "completed" && ok.result.structuredContent).toEqual({ doubled: 42 });
    const error = await caught(
      new LocalHandler(tool).step({ type: "invoke", arguments: { n: "0" } }),
    );
    expect(error.issues).toEqual([
      { path: "/n", message: "zero is not allowed", keyword: "check" },
    ]);
  });

  test("enforces a valibot output schema and a raw JSON Schema output alike", async () => {
    for (const output of [
      v.object({ total: v.number() }),
      { jsonSchema: { type: "object", properties: { total: { type: "number" } } } },
    ]) {
      const tool = defineTool({
        name: "totals",
        description: "d",
        input: v.object({ total: v.unknown() }),
        output,
        jsonSchemaValidator,
        call: ({ total }) => ({ total }),
      });
      const good = await new LocalHandler(tool).step({ type: "invoke", arguments: { total: 3 } });
      expect(good.type).toBe("completed");
      const bad = await caught(
        new LocalHandler(tool).step({ type: "invoke", arguments: { total: "3" } }),
      );
      expect(bad.type).toBe("invalid_output");
      expect(bad.issues?.[0]?.path).toBe("/total");
    }
  });

  describe("without a jsonSchemaValidator", () => {
    const raw = { jsonSchema: { type: "object" } };
    test.each([
      ["a raw input schema", { input: raw }, "tool lookup's JSON Schema input"],
      [
        "a raw output schema",
        { input: v.object({}), output: raw },
        "tool lookup's JSON Schema output",
      ],
      [
        "formSchemaValidation",
        { input: v.object({}), interactions: { form: true, formSchemaValidation: true } },
        "tool lookup's formSchemaValidation",
      ],
    ])("refuses %s at definition, naming the import", (_label, extra, what) => {
      let error: unknown;
      try {
        defineTool({ name: "lookup", description: "d", call: () => "x", ...extra } as never);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ type: "invalid_configuration" });
      const message = (error as Error).message;
      expect(message).toContain(what);
      expect(message).toContain('needs jsonSchemaValidator from "toolwire/json-schema"');
    });

    test("defines valibot tools and form questions without schema validation", () => {
      const tool = defineTool({
        name: "ask",
        description: "d",
        input: v.object({}),
        interactions: { form: true },
        call: () => "x",
      });
      expect(tool.info.interactions.form).toBe(true);
    });

    test("refuses a jsonSchemaValidator that is not a function", () => {
      expect(() =>
        defineTool({
          name: "t",
          description: "d",
          input: raw,
          jsonSchemaValidator: {} as never,
          call: () => "x",
        }),
      ).toThrow(expect.objectContaining({ type: "invalid_configuration" }));
    });
  });
});

describe("defineTool replayable (design.md T16)", () => {
  test("defaults to true and refuses a value that is not a boolean", () => {
    const base = { name: "t", description: "d", input: v.object({}), call: () => "ok" };
    expect(defineTool(base).replayable).toBe(true);
    expect(defineTool({ ...base, replayable: false }).replayable).toBe(false);
    expect(() => defineTool({ ...base, replayable: "no" as unknown as boolean })).toThrow(
      expect.objectContaining({ type: "invalid_configuration" }),
    );
  });
});
