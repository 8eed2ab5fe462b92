import { readFile } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { send, watchErrors } from "./demo-page.ts";

const CARRIED_LIST_BODY = "[~] 1. draft the post\n[ ] 2. review it\n[ ] 3. publish";

async function idle(page: Page): Promise<void> {
  await expect(page.getByTestId("send")).toBeEnabled();
  await expect(page.getByTestId("stop")).toBeDisabled();
}

async function compactionCount(page: Page): Promise<number> {
  return Number(await page.getByTestId("compaction-count").textContent());
}

test("the offline demo walks through tools, approvals, questions, Stop, compaction and reload", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  const transcript = page.getByTestId("transcript");
  const cards = page.getByTestId("tool-call");
  await expect(page.getByText("Offline scripted model (no AI)").first()).toBeVisible();
  await page.screenshot({ path: "test-results/demo-start.png" });

  // A read-only call runs without asking.
  await send(page, "calculate 2+3*4");
  await expect(transcript).toContainText("The result is 14 (2+3*4 = 14).");
  await expect(cards.nth(0)).toHaveAttribute("data-status", "done");
  await expect(cards.nth(0)).toHaveAttribute("data-tool", "calculator");
  await idle(page);

  // The todo list writes, so it asks until the visitor ticks "Allow without asking" in Tools.
  await page.getByRole("tab", { name: "Tools" }).click();
  const allowTodo = page.getByRole("checkbox", { name: /Allow todo without asking/ });
  await expect(allowTodo).not.toBeChecked();
  await allowTodo.check();
  await send(page, "add todos: draft the post, review it, publish");
  await expect(cards.nth(1)).toHaveAttribute("data-status", "done");
  await expect(cards.nth(1)).toContainText("Allowed automatically");
  await idle(page);
  await page.getByRole("tab", { name: "Context" }).click();

  // An approved write.
  await send(page, "add a note: buy oat milk");
  await expect(page.getByTestId("approve")).toBeVisible();
  await expect(cards.nth(2)).toHaveAttribute("data-status", "awaiting_approval");
  await page.screenshot({ path: "test-results/demo-approval.png" });
  await page.getByTestId("approve").click();
  await expect(transcript).toContainText("Saved note #1: buy oat milk");
  await expect(cards.nth(2)).toContainText("Allowed once by you");
  await idle(page);

  // A denied write, with a reason the model reads.
  await send(page, "add a note: sell the car");
  await page.getByTestId("deny-reason").fill("not that one");
  await page.getByTestId("deny").click();
  await expect(transcript).toContainText(
    "OK, I did not run save_note: you denied it (“not that one”).",
  );
  await expect(cards.nth(3)).toHaveAttribute("data-status", "refused");
  // The reason shows once on the card (the approval line), not again as the call's result.
  await expect(cards.nth(3)).toContainText("Denied by you: not that one");
  expect((await cards.nth(3).textContent())?.split("not that one").length).toBe(2);
  await idle(page);

  // A tool asks the person a question.
  await send(page, "ask me my favourite colour");
  await expect(
    page.getByRole("heading", { name: "ask_user asks: What is your favourite colour?" }),
  ).toBeVisible();
  await page.screenshot({ path: "test-results/demo-question.png" });
  await page.getByTestId("interaction-input").fill("teal");
  await page.getByTestId("interaction-submit").click();
  await expect(transcript).toContainText("Thanks! You said: “teal”.");
  await idle(page);

  // Stop cancels a slow tool mid-way.
  await send(page, "run the slow task");
  const slow = cards.nth(5);
  await expect(slow).toHaveAttribute("data-status", "running");
  await expect(slow.locator("progress")).toBeVisible();
  // The token meter follows the run live: turn 1's usage is in while its tool still runs.
  await expect(page.getByTestId("token-meter")).toContainText("model's count, turn 1");
  await expect(page.getByTestId("stop")).toBeEnabled();
  await page.getByTestId("stop").click();
  await expect(slow).toHaveAttribute("data-status", "cancelled");
  await expect(transcript).toContainText("Stopped. Everything in flight was cancelled.");
  await idle(page);

  await send(page, "start todo 1");
  await expect(transcript).toContainText(`The todo list now reads:`);
  await idle(page);

  // Keep talking until the agent has compacted twice; after each, the todo list is carried.
  const carried = page.getByTestId("carried-state");
  let seen = await compactionCount(page);
  for (let i = 1; i <= 20 && seen < 2; i += 1) {
    await send(page, i % 3 === 0 ? "what time is it?" : `calculate ${i} * 7 + ${i}`);
    await idle(page);
    const now = await compactionCount(page);
    if (now > seen) {
      expect(await carried.textContent()).toContain(`## todo\n${CARRIED_LIST_BODY}`);
      seen = now;
    }
  }
  expect(seen).toBeGreaterThanOrEqual(2);
  await expect(page.locator(".divider").first()).toContainText("older ones replaced by a summary");
  await expect(page.getByTestId("token-meter")).toContainText("tokens");
  await page.screenshot({ path: "test-results/demo-compacted.png" });
  await page
    .locator(".compaction-log")
    .screenshot({ path: "test-results/demo-compaction-log.png" });

  // With the threshold raised out of the way, "Compact now" compacts on demand, and still
  // carries the list verbatim.
  await page.getByLabel(/Compaction threshold/).fill("16000");
  await expect(page.getByTestId("token-meter")).toContainText("/ 16,000 tokens");
  for (const text of ["calculate 6*7", "what time is it?"]) {
    await send(page, text);
    await idle(page);
  }
  expect(await compactionCount(page)).toBe(seen);
  await page.getByTestId("compact-now").click();
  await expect(page.getByTestId("compaction-count")).toHaveText(String(seen + 1));
  expect(await carried.textContent()).toContain(`## todo\n${CARRIED_LIST_BODY}`);
  await idle(page);

  // The conversation survives a reload.
  const before = await transcript.textContent();
  await page.reload();
  await expect(transcript).toContainText("Saved note #1: buy oat milk");
  expect(await transcript.textContent()).toBe(before);
  await expect(page.getByTestId("compaction-count")).toHaveText(String(seen + 1));
  expect(await carried.textContent()).toContain(`## todo\n${CARRIED_LIST_BODY}`);
  await send(page, "list my notes");
  await expect(transcript).toContainText("#1: buy oat milk");
  await idle(page);

  // Timeline and a phone-width view.
  await page.getByRole("tab", { name: "Timeline" }).click();
  await expect(page.locator(".timeline-item").first()).toBeVisible();
  await page.screenshot({ path: "test-results/demo-timeline.png" });
  await page.getByRole("tab", { name: "Settings" }).click();
  await page.getByLabel(/OpenAI-compatible/).check();
  await expect(page.getByLabel("API key")).toBeVisible();
  await expect(page.locator(".warning")).toContainText("sessionStorage for this tab only");
  await page.locator(".sidebar").screenshot({ path: "test-results/demo-settings.png" });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: "test-results/demo-phone.png" });

  // "New conversation" clears it (the confirm dialog is accepted).
  page.once("dialog", (dialog) => dialog.accept());
  await page.getByTestId("new-conversation").click();
  await expect(cards).toHaveCount(0);
  await expect(page.getByTestId("compaction-count")).toHaveText("0");

  expect(errors).toEqual([]);
});

const DIST = resolve("demo-dist");
const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
  ".svg": "image/svg+xml",
};

test("the built demo runs from any static folder (relative asset paths)", async ({ page }) => {
  const errors = watchErrors(page);
  const html = await readFile(join(DIST, "index.html"), "utf8");
  expect(html).not.toMatch(/(src|href)="\/(?!\/)/);
  const base = "https://static.example/some/nested/folder/";
  await page.route(`${base}**`, async (route) => {
    const path = new URL(route.request().url()).pathname.slice(new URL(base).pathname.length);
    const file = path === "" ? "index.html" : path;
    try {
      const body = await readFile(join(DIST, file));
      const contentType = TYPES[extname(file)] ?? "application/octet-stream";
      await route.fulfill({ body, contentType });
    } catch {
      await route.fulfill({ status: 404, body: "not found" });
    }
  });
  await page.goto(base);
  await send(page, "calculate (1 + 2) * 3");
  await expect(page.getByTestId("transcript")).toContainText("The result is 9");
  expect(errors).toEqual([]);
});

test("the demo fits a phone-width screen and works from the keyboard", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.screenshot({ path: "test-results/demo-phone-start.png" });
  const prompt = page.getByTestId("prompt");
  await prompt.focus();
  await page.keyboard.type("add a note: from the keyboard");
  await page.keyboard.press("Enter");
  // The approval prompt takes the focus, so Enter on "Allow once" approves.
  await expect(page.getByTestId("approve")).toBeFocused();
  await page.screenshot({ path: "test-results/demo-phone-approval.png" });
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("transcript")).toContainText("Saved note #1: from the keyboard");
  await expect(prompt).toBeFocused();
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBe(0);
  expect(errors).toEqual([]);
});

test("tools from an MCP server join the agent, and untrusted they all ask for approval", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await page.getByRole("tab", { name: "Tools" }).click();
  await page.getByTestId("mcp-url").fill("http://127.0.0.1:4174/mcp");
  await page.getByRole("button", { name: "Connect" }).click();
  await expect(page.getByText("Connected: its tools joined the agent.")).toBeVisible();
  await expect(page.locator(".remote")).toContainText("remote__echo");
  await expect(page.locator(".remote")).toContainText("externalSend");
  await page.locator(".sidebar").screenshot({ path: "test-results/demo-mcp.png" });

  const cards = page.getByTestId("tool-call");
  // The server says echo is read-only, but a remote server's hints are not believed unless the
  // user opts in (docs/design.md, "Trust"): even echo waits for a person.
  await send(page, 'call remote__echo {"text":"stressed"}');
  await expect(cards.nth(0)).toHaveAttribute("data-status", "awaiting_approval");
  await page.getByTestId("approve").click();
  await expect(cards.nth(0)).toHaveAttribute("data-status", "done");
  await expect(page.getByTestId("transcript")).toContainText("echo from the MCP server: desserts");
  await idle(page);

  await send(page, 'call remote__post_message {"text":"hello"}');
  await expect(page.getByTestId("approve")).toBeVisible();
  await expect(page.locator(".dock")).toContainText("externalSend");
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("transcript")).toContainText("posted: hello");
  await idle(page);
  expect(errors).toEqual([]);
});

test("a real OpenAI-compatible provider can be switched on, and its key stays in sessionStorage", async ({
  page,
}) => {
  const errors = watchErrors(page);
  const key = "sk-test-demo-123";
  const seen: { authorization: string | undefined; roles: string[] }[] = [];
  const cors = { "access-control-allow-origin": "*", "access-control-allow-headers": "*" };
  await page.route("http://127.0.0.1:11434/v1/chat/completions", async (route) => {
    const request = route.request();
    if (request.method() === "OPTIONS") return route.fulfill({ status: 204, headers: cors });
    const body = request.postDataJSON() as { messages: { role: string }[] };
    const roles = body.messages.map((message) => message.role);
    seen.push({ authorization: request.headers().authorization, roles });
    const chunk = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
    const toolCall = {
      index: 0,
      id: "call_a",
      type: "function",
      function: { name: "calculator", arguments: '{"expression":"6*7"}' },
    };
    const events = roles.includes("tool")
      ? [
          chunk({ choices: [{ index: 0, delta: { content: "Six times seven " } }] }),
          chunk({ choices: [{ index: 0, delta: { content: "is 42." }, finish_reason: "stop" }] }),
        ]
      : [
          chunk({
            choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: "tool_calls" }],
          }),
        ];
    await route.fulfill({
      status: 200,
      headers: { ...cors, "content-type": "text/event-stream" },
      body: `${events.join("")}data: [DONE]\n\n`,
    });
  });

  await page.goto("/");
  await page.getByRole("tab", { name: "Settings" }).click();
  await page.getByLabel(/OpenAI-compatible/).check();
  await page.getByRole("textbox", { name: "Model" }).fill("test-model");
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.locator(".model-badge")).toContainText("test-model · OpenAI-compatible");

  await send(page, "what is six times seven?");
  await expect(page.getByTestId("transcript")).toContainText("Six times seven is 42.");
  await expect(page.getByTestId("tool-call").first()).toHaveAttribute("data-status", "done");
  await idle(page);
  expect(seen.map((s) => s.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
  expect(seen[1]?.roles).toContain("tool");

  // The key is in sessionStorage and nowhere that outlives the tab.
  const stored = await page.evaluate(async () => {
    const idb = await new Promise<string>((resolve, reject) => {
      const open = indexedDB.open("toolwire-demo");
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const all = open.result.transaction("kv").objectStore("kv").getAll();
        all.onsuccess = () => resolve(JSON.stringify(all.result));
        all.onerror = () => reject(all.error);
      };
    });
    return {
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      idb,
      url: location.href,
    };
  });
  expect(stored.session).toContain(key);
  expect(stored.local).not.toContain(key);
  expect(stored.idb).not.toContain(key);
  expect(stored.idb).toContain("Six times seven is 42.");
  expect(stored.url).not.toContain(key);
  expect(errors).toEqual([]);
});
