// One agent in three front ends (examples/web-ui, issue 29): React over toolwire/ui's store,
// React through the AI SDK's useChat with toolwire's transport, and Svelte over the store. One
// script for all three: send, stream, approve, deny, answer a question, cancel, and reload
// while a call waits for approval, then approve it: the tool runs once. The tools' effects are
// counted in the page's localStorage (examples/web-ui/agent.ts).
import { expect, type Page, test } from "@playwright/test";
import { watchErrors } from "./demo-page.ts";

const apps = [
  { name: "React, through the store", path: "/examples/web-ui/react/" },
  { name: "React, through useChat", path: "/examples/web-ui/react/?mode=chat" },
  { name: "Svelte, through the store", path: "/examples/web-ui/svelte/" },
];

async function send(page: Page, text: string): Promise<void> {
  await expect(page.getByTestId("send")).toBeEnabled();
  await page.getByTestId("input").fill(text);
  await page.getByTestId("send").click();
}

/** The last assistant message. */
const answer = (page: Page) =>
  page.locator('[data-testid="message"][data-role="assistant"]').last();

const idle = (page: Page) => expect(page.getByTestId("stop")).toBeDisabled();

/** A list the agent's tools keep in the page's localStorage. */
const effects = (page: Page, key: "web-ui-notes" | "web-ui-counts") =>
  page.evaluate((name) => JSON.parse(localStorage.getItem(name) ?? "[]") as string[], key);

for (const app of apps) {
  test(`${app.name}: send, approve, deny, answer, cancel, and a reload mid-approval runs the tool once`, async ({
    page,
  }) => {
    const errors = watchErrors(page);
    await page.goto(app.path);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(app.name);

    // Send: the user's message, and the model's streamed answer.
    await send(page, "hello");
    await expect(page.locator('[data-role="user"]')).toHaveText(["hello"]);
    await expect(answer(page)).toContainText("Hello! Ask me to save a note");
    await idle(page);

    // Approve: the call waits with its arguments, runs once approved, the model reads it.
    await send(page, "note: buy bread");
    // Each model turn is a message of the store's; the card is in the turn that called it.
    const card = page.getByTestId("tool").last();
    await expect(card).toHaveAttribute("data-tool", "save_note");
    await expect(card.getByTestId("arguments")).toContainText('"text":"buy bread"');
    expect(await effects(page, "web-ui-notes")).toEqual([]);
    await page.getByTestId("approve").click();
    await expect(card.getByTestId("result")).toHaveText("Saved note #1: buy bread");
    await expect(answer(page)).toContainText("Done. Saved note #1: buy bread");
    await idle(page);
    expect(await effects(page, "web-ui-notes")).toEqual(["buy bread"]);

    // Deny: nothing runs, and the model reads the person's reason.
    await send(page, "note: sell the car");
    await page.getByTestId("deny").click();
    await expect(answer(page)).toContainText("Nothing done: Denied by the user: not now");
    await idle(page);
    expect(await effects(page, "web-ui-notes")).toEqual(["buy bread"]);

    // A question from a running tool: answered, the tool and then the model go on.
    await send(page, "what is my favourite colour?");
    await expect(page.getByTestId("question")).toContainText("Your favourite colour?");
    await page.getByTestId("answer").fill("teal");
    await page.getByTestId("submit-answer").click();
    await expect(answer(page)).toContainText("Done. Favourite colour: teal");
    await expect(page.getByTestId("question")).toHaveCount(0);
    await idle(page);

    // Cancel: a slow tool reports progress; Stop aborts it where it is.
    await send(page, "count slowly");
    await expect(page.getByTestId("progress").last()).toContainText(/step \d+ of 50/);
    await page.getByTestId("stop").click();
    await idle(page);
    await expect
      .poll(() => effects(page, "web-ui-counts"))
      .toEqual([expect.stringMatching(/^cancelled at step \d+$/)]);

    // A reload while a call waits for approval: the card comes back, approving runs it once.
    await send(page, "note: buy oat milk");
    await expect(page.getByTestId("approve")).toBeVisible();
    for (let reload = 0; reload < 2; reload++) {
      await page.reload();
      await expect(page.getByTestId("approve")).toBeVisible();
      await expect(page.getByTestId("arguments").last()).toContainText("buy oat milk");
    }
    await expect(page.locator('[data-role="user"]').first()).toHaveText("hello");
    expect(await effects(page, "web-ui-notes")).toEqual(["buy bread"]);
    await page.getByTestId("approve").click();
    await expect(answer(page)).toContainText("Done. Saved note #2: buy oat milk");
    await idle(page);
    expect(await effects(page, "web-ui-notes")).toEqual(["buy bread", "buy oat milk"]);

    // Nothing waits any more: another reload runs nothing, and the conversation goes on.
    await page.reload();
    await expect(answer(page)).toContainText("Saved note #2: buy oat milk");
    await expect(page.getByTestId("approve")).toHaveCount(0);
    await send(page, "hello again");
    await expect(answer(page)).toContainText("Hello! Ask me");
    await idle(page);
    expect(await effects(page, "web-ui-notes")).toEqual(["buy bread", "buy oat milk"]);
    expect(await effects(page, "web-ui-counts")).toHaveLength(1);
    await expect(page.getByTestId("error")).toHaveCount(0);
    expect(errors).toEqual([]);
  });
}
