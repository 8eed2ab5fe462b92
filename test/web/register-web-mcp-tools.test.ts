import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { defineTool, InteractionResponse, Toolset } from "../../src/index.ts";
import { registerWebMcpTools } from "../../src/web/index.ts";
import { caught } from "../support/caught.ts";
import { FakeModelContext } from "../support/fake-model-context.ts";

// design.md "WebMCP", W1-W6: a toolset offered to the browser's agent.

const add = defineTool({
  name: "add",
  title: "Add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => String(a + b),
});
const wipe = defineTool({
  name: "wipe",
  description: "Deletes everything",
  capabilities: { destructive: true },
  input: v.object({}),
  call: () => "gone",
});
const city = defineTool({
  name: "city",
  description: "Asks for a city",
  input: v.object({}),
  interactions: { text: true },
  call: async (_input, ctx) => `going to ${await ctx.requestText("City?")}`,
});

function nameOf(tool: { name: string }) {
  return tool.name;
}

describe("registerWebMcpTools", () => {
  test("registers every tool with its title, description, schema and mapped hints (W1)", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    const registration = await registerWebMcpTools(Toolset.local([add, wipe]), {
      signal: stop.signal,
      modelContext: context,
    });
    expect(registration.names).toEqual(["add", "wipe"]);
    const tools = await context.getTools();
    expect(tools.map(nameOf)).toEqual(["add", "wipe"]);
    const addDefinition = context.entries.get("add")?.definition;
    expect(addDefinition?.title).toBe("Add");
    expect(addDefinition?.description).toBe("Adds two numbers");
    expect(addDefinition?.inputSchema).toMatchObject({
      type: "object",
      required: ["a", "b"],
    });
    expect(addDefinition?.annotations).toEqual({
      readOnlyHint: true,
      untrustedContentHint: false,
      consequentialHint: false,
    });
    expect(context.entries.get("wipe")?.definition.annotations).toMatchObject({
      readOnlyHint: false,
      consequentialHint: true,
    });
    stop.abort();
  });

  test("executeTool runs the tool with validation; bad input is an error result saying why (W2)", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    await registerWebMcpTools(Toolset.local([add]), { signal: stop.signal, modelContext: context });
    const [tool] = await context.getTools();
    const ok = JSON.parse(String(await context.executeTool(tool as never, { a: 2, b: 3 })));
    expect(ok).toEqual({ content: [{ type: "text", text: "5" }], isError: false });
    const bad = JSON.parse(String(await context.executeTool(tool as never, { a: "two" })));
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toContain("invalid tool arguments for `add`");
    expect(bad._meta["toolwire/error"]).toMatchObject({ type: "invalid_arguments", tool: "add" });
    stop.abort();
  });

  test("the browser's cancellation reaches ctx.signal (W3)", async () => {
    let seen: AbortSignal | undefined;
    const slow = defineTool({
      name: "slow",
      description: "Waits until cancelled",
      input: v.object({}),
      call: (_input, ctx) =>
        new Promise<string>((resolve) => {
          seen = ctx.signal;
          ctx.signal.addEventListener("abort", () => resolve("stopped"));
        }),
    });
    const context = new FakeModelContext();
    const stop = new AbortController();
    await registerWebMcpTools(Toolset.local([slow]), {
      signal: stop.signal,
      modelContext: context,
    });
    const cancel = new AbortController();
    const call = context.executeTool({ name: "slow" }, {}, { signal: cancel.signal });
    await expect.poll(() => seen).toBeDefined();
    cancel.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(seen?.aborted).toBe(true);
    stop.abort();
  });

  test("a question fails the call with unsupported unless the page answers it (W4)", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    await registerWebMcpTools(Toolset.local([city]), {
      signal: stop.signal,
      modelContext: context,
    });
    const refused = JSON.parse(String(await context.executeTool({ name: "city" }, {})));
    expect(refused.isError).toBe(true);
    expect(refused._meta["toolwire/error"].type).toBe("unsupported");
    expect(refused.content[0].text).toContain("city asked for input");
    stop.abort();

    const answering = new FakeModelContext();
    const again = new AbortController();
    await registerWebMcpTools(Toolset.local([city]), {
      signal: again.signal,
      modelContext: answering,
      onInteraction: async (request) => InteractionResponse.submit(request.id, "Lyon"),
    });
    const answered = JSON.parse(String(await answering.executeTool({ name: "city" }, {})));
    expect(answered.content).toEqual([{ type: "text", text: "going to Lyon" }]);
    again.abort();
  });

  test("a question is asked inside the browser's requestUserInteraction when it has one (W4)", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    await registerWebMcpTools(Toolset.local([city]), {
      signal: stop.signal,
      modelContext: context,
      onInteraction: async (request) => InteractionResponse.submit(request.id, "Oslo"),
    });
    const inside: string[] = [];
    const execute = context.entries.get("city")?.definition.execute;
    const result = await execute?.(
      {},
      {
        requestUserInteraction: async <T>(callback: () => Promise<T>) => {
          inside.push("opened");
          const answer = await callback();
          inside.push("closed");
          return answer;
        },
      },
    );
    expect(inside).toEqual(["opened", "closed"]);
    expect(result).toMatchObject({ content: [{ type: "text", text: "going to Oslo" }] });
    stop.abort();
  });

  test("aborting the signal unregisters everything (W5)", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    const registration = await registerWebMcpTools(Toolset.local([add, wipe]), {
      signal: stop.signal,
      modelContext: context,
    });
    let changes = 0;
    context.addEventListener("toolchange", () => {
      changes += 1;
    });
    stop.abort();
    expect(await context.getTools()).toEqual([]);
    expect(changes).toBe(2);
    expect(registration.names).toEqual([]);
  });

  test("refresh brings the registration in line with a changed listing (W6)", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    let tools = [add];
    const toolset = Toolset.fromBackend({
      listTools: () => Toolset.local(tools).listTools(),
      toolHandler: (name) => Toolset.local(tools).toolHandler(name),
      shutdown: async () => {},
    });
    const registration = await registerWebMcpTools(toolset, {
      signal: stop.signal,
      modelContext: context,
    });
    tools = [wipe];
    await registration.refresh();
    expect((await context.getTools()).map(nameOf)).toEqual(["wipe"]);
    expect(registration.names).toEqual(["wipe"]);
    stop.abort();
  });

  test("exposedTo reaches registerTool, for a page inside a cross-origin iframe", async () => {
    const context = new FakeModelContext();
    const stop = new AbortController();
    await registerWebMcpTools(Toolset.local([add]), {
      signal: stop.signal,
      modelContext: context,
      exposedTo: ["https://host.example"],
    });
    expect(context.entries.get("add")?.exposedTo).toEqual(["https://host.example"]);
    stop.abort();
  });

  test("a name the page already registered is duplicate_name and nothing stays registered", async () => {
    const context = new FakeModelContext();
    await context.registerTool({
      name: "wipe",
      description: "page's own",
      execute: async () => "",
    });
    const error = await caught(
      registerWebMcpTools(Toolset.local([add, wipe]), {
        signal: new AbortController().signal,
        modelContext: context,
      }),
    );
    expect(error.data).toEqual({ type: "duplicate_name", name: "wipe" });
    expect((await context.getTools()).map(nameOf)).toEqual(["wipe"]);
  });

  test("a missing signal is invalid_configuration", async () => {
    const error = await caught(
      registerWebMcpTools(Toolset.local([add]), {
        modelContext: new FakeModelContext(),
      } as never),
    );
    expect(error.type).toBe("invalid_configuration");
  });
});
