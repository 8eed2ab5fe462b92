// The demo with WebMCP on (design.md "WebMCP"): it offers its tools to the browser's agent, and
// its own agent can call what other scripts register in the page, behind the approval gate.
// Runs in the `chromium-webmcp` project (playwright.config.ts), Chromium started with the flag.
import { chromium, expect, test } from "@playwright/test";
import { chromiumLaunchOptions } from "../scripts/chromium.ts";
import { send, watchErrors } from "./demo-page.ts";

interface PageModelContext {
  getTools(): Promise<{ name: string; annotations?: Record<string, unknown> }[]>;
  executeTool(tool: unknown, input: Record<string, unknown>): Promise<unknown>;
  registerTool(tool: unknown): Promise<void>;
}

test("the demo offers its tools to the browser's agent and calls the page's WebMCP tools", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await page.getByRole("tab", { name: "Tools" }).click();
  await expect(page.getByRole("heading", { name: "Page tools (WebMCP)" })).toBeVisible();
  await expect(page.getByTestId("webmcp-offered")).toContainText("calculator");

  // Direction one: the browser's agent sees the demo's tools and runs the calculator.
  const offered = await page.evaluate(async () => {
    const context = (document as unknown as { modelContext: PageModelContext }).modelContext;
    const tools = await context.getTools();
    const calculator = tools.find((tool) => tool.name === "calculator");
    return {
      names: tools.map((tool) => tool.name),
      readOnly: calculator?.annotations?.readOnlyHint,
      result: String(await context.executeTool(calculator, { expression: "6*7" })),
    };
  });
  expect(offered.names).toEqual(expect.arrayContaining(["calculator", "todo"]));
  expect(offered.readOnly).toBe(true);
  expect(JSON.parse(offered.result)).toMatchObject({
    content: [{ type: "text", text: "6*7 = 42" }],
    isError: false,
  });

  // Direction two: a tool another script registers joins the Tools tab and the demo's agent.
  await page.evaluate(async () => {
    const context = (document as unknown as { modelContext: PageModelContext }).modelContext;
    await context.registerTool({
      name: "greet",
      description: "Greets someone by name",
      inputSchema: { type: "object", properties: { name: { type: "string" } } },
      execute: async ({ name }: { name: string }) => `Hello, ${name}!`,
    });
  });
  await expect(page.getByTestId("webmcp-tools")).toContainText("page__greet");
  await send(page, 'call page__greet with {"name":"Ada"}');
  // It does not claim to be read-only, so the same approval gate as local writes applies.
  await expect(page.getByTestId("approve")).toBeVisible();
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("transcript")).toContainText("Hello, Ada!");
  expect(errors).toEqual([]);
});

test("without the flag the demo has no WebMCP section and no errors", async ({ baseURL }) => {
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(baseURL ?? "/");
    await page.getByRole("tab", { name: "Tools" }).click();
    await expect(page.getByRole("heading", { name: "In this page" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Page tools (WebMCP)" })).toBeHidden();
    expect(await page.evaluate(() => "modelContext" in document)).toBe(false);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
});
