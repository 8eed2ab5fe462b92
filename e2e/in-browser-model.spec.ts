// The demo with a model that runs in the page: wllama (llama.cpp in WebAssembly) on the CPU of
// headless Chromium, loading a GGUF this test writes (test/support/tiny-gguf.ts) from a URL the
// visitor names in Settings. The URL's host is answered here, so nothing is downloaded.
import { expect, type Page, test } from "@playwright/test";
import { tinyGguf } from "../test/support/tiny-gguf.ts";
import { send, watchErrors } from "./demo-page.ts";

// After a user turn it calls save_note({"text": "save"}) (the grammar llama.cpp builds from the
// demo's tool schemas fixes everything else); after the tool result it answers "ok".
const AGENT_SCRIPT = {
  default: ["<tool_call>", "</tool_call>", "}", '"', "<|im_end|>"],
  after: {
    "<tool_call>": ["\n"],
    "</tool_call>": ["<|im_end|>"],
    '"': ["s"],
    s: ["a"],
    a: ["v"],
    v: ["e"],
    e: ['"'],
    " ": ["o"],
    o: ["k"],
    k: ["<|im_end|>"],
  },
};

// "ababab…" until the token bound: a generation to stop mid-stream.
const ENDLESS_SCRIPT = { default: ["a"], after: { a: ["b"], b: ["a"] } };

async function serveModel(page: Page, url: string, bytes: Uint8Array): Promise<string[]> {
  const fetched: string[] = [];
  await page.route(url, async (route) => {
    const headers = {
      "access-control-allow-origin": "*",
      "content-length": String(bytes.length),
      "content-type": "application/octet-stream",
    };
    if (route.request().method() === "HEAD") return route.fulfill({ status: 200, headers });
    fetched.push(route.request().method());
    await route.fulfill({ status: 200, headers, body: Buffer.from(bytes) });
  });
  return fetched;
}

async function useCpuModel(page: Page, url: string): Promise<void> {
  await page.getByRole("tab", { name: "Settings" }).click();
  await page.getByLabel(/GGUF on the CPU/).check();
  await page.getByRole("textbox", { name: "GGUF URL" }).fill(url);
  await page.getByRole("button", { name: "Save" }).click();
}

test("the demo offers the CPU model with its size, downloads it on consent, and it completes an approved tool call", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  const url = "https://models.example/toolwire-agent.gguf";
  const fetched = await serveModel(page, url, tinyGguf({ script: AGENT_SCRIPT }));
  await page.goto("/");
  // Headless Chromium has no built-in model and no WebGPU adapter, so the page picks the CPU
  // path and offers it, with its size, before fetching anything.
  const status = page.getByTestId("model-status");
  await expect(status).toContainText("CPU (wllama)");
  await expect(status).toContainText("to download once");
  await expect(page.locator(".model-badge")).toContainText("Offline scripted model (no AI)");

  await useCpuModel(page, url);
  await expect(status).toContainText("toolwire-agent · CPU (wllama)");
  expect(fetched).toEqual([]);
  const started = Date.now();
  await page.getByTestId("model-download").click();
  await expect(status).toContainText("runs on this device", { timeout: 60_000 });
  await expect(page.locator(".model-badge")).toContainText("toolwire-agent · CPU (wllama)");

  await send(page, "Save a note for me");
  await expect(page.getByTestId("approve")).toBeVisible({ timeout: 60_000 });
  const card = page.getByTestId("tool-call").first();
  await expect(card).toHaveAttribute("data-tool", "save_note");
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("transcript")).toContainText("Saved note #1: save");
  await expect(card).toContainText("Allowed once by you");
  await expect(page.getByTestId("transcript")).toContainText("ok");
  await expect(page.getByTestId("send")).toBeEnabled();
  // Reported, not asserted (no wall-clock budgets in tests): issue 26 asks for under 60 s.
  console.log(`download click to answer: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  expect(fetched).toEqual(["GET"]);

  // The next visit loads the accepted model from the browser's cache without asking again.
  await page.reload();
  await expect(status).toContainText("runs on this device", { timeout: 60_000 });
  expect(fetched).toEqual(["GET"]);
  expect(errors).toEqual([]);
});

test("Stop cancels the CPU model mid-stream", async ({ page }) => {
  test.setTimeout(120_000);
  const errors = watchErrors(page);
  const url = "https://models.example/toolwire-endless.gguf";
  await serveModel(page, url, tinyGguf({ script: ENDLESS_SCRIPT }));
  await page.goto("/");
  await useCpuModel(page, url);
  await page.getByTestId("model-download").click();
  const status = page.getByTestId("model-status");
  await expect(status).toContainText("runs on this device", { timeout: 60_000 });

  await send(page, "Tell me a long story");
  const transcript = page.getByTestId("transcript");
  await expect(transcript).toContainText("ababab", { timeout: 60_000 });
  await page.getByTestId("stop").click();
  await expect(page.getByTestId("send")).toBeEnabled();
  await expect(page.getByTestId("stop")).toBeDisabled();
  await expect(transcript).toContainText("Stopped. Everything in flight was cancelled.");
  // Cut mid-stream: the answer is shorter than the 1024-token bound it would otherwise reach.
  const answer = (await transcript.textContent())?.match(/(?:ab)+a?/)?.[0] ?? "";
  expect(answer.length).toBeGreaterThan(5);
  expect(answer.length).toBeLessThan(1024);
  expect(errors).toEqual([]);
});
