// A reload keeps the person's place (issue 25, part 5; docs/demo.md "A reload keeps your
// place"): the demo page with its offline scripted model, reloaded while a run waits for the
// person or works.
import { expect, type Page, test } from "@playwright/test";
import { send, watchErrors } from "./demo-page.ts";

async function idle(page: Page): Promise<void> {
  await expect(page.getByTestId("send")).toBeEnabled();
  await expect(page.getByTestId("stop")).toBeDisabled();
}

/** The effect counter: the notes `save_note` wrote to the page's IndexedDB. */
function savedNotes(page: Page): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open("toolwire-demo");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const read = open.result.transaction("kv").objectStore("kv").get("notes");
          read.onsuccess = () => {
            open.result.close();
            resolve(((read.result ?? []) as { text: string }[]).map((note) => note.text));
          };
          read.onerror = () => reject(read.error);
        };
      }),
  );
}

test("a reload during an approval brings the card back, and approving runs the tool once", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  const transcript = page.getByTestId("transcript");
  const cards = page.getByTestId("tool-call");
  await send(page, "add a note: buy oat milk");
  await expect(cards.nth(0)).toHaveAttribute("data-status", "awaiting_approval");
  await expect(page.getByTestId("approve")).toBeVisible();

  // Reloaded twice while it waits: each time the message and the card come back.
  for (let reload = 0; reload < 2; reload += 1) {
    await page.reload();
    await expect(page.locator(".msg-user")).toHaveText(["add a note: buy oat milk"]);
    await expect(cards).toHaveCount(1);
    await expect(cards.nth(0)).toHaveAttribute("data-status", "awaiting_approval");
    await expect(page.getByTestId("approve")).toBeVisible();
    await expect(page.locator(".dock")).toContainText("buy oat milk");
  }
  expect(await savedNotes(page)).toEqual([]);

  await page.getByTestId("approve").click();
  await expect(transcript).toContainText("Saved note #1: buy oat milk");
  await expect(cards.nth(0)).toHaveAttribute("data-status", "done");
  await idle(page);
  expect(await savedNotes(page)).toEqual(["buy oat milk"]);

  // Nothing is pending any more: another reload shows the finished run and runs nothing.
  await page.reload();
  await expect(transcript).toContainText("Saved note #1: buy oat milk");
  await idle(page);
  await expect(page.getByTestId("approve")).toHaveCount(0);
  await send(page, "list my notes");
  await expect(transcript).toContainText("#1: buy oat milk");
  await idle(page);
  expect(await savedNotes(page)).toEqual(["buy oat milk"]);
  expect(errors).toEqual([]);
});

test("a reload during a tool's question asks it again, and the answer reaches the model", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  const question = page.getByRole("heading", {
    name: "ask_user asks: What is your favourite colour?",
  });
  await send(page, "ask me my favourite colour");
  await expect(question).toBeVisible();

  await page.reload();
  await expect(page.locator(".msg-user")).toHaveText(["ask me my favourite colour"]);
  await expect(question).toBeVisible();
  await page.getByTestId("interaction-input").fill("teal");
  await page.getByTestId("interaction-submit").click();
  await expect(page.getByTestId("transcript")).toContainText("Thanks! You said: “teal”.");
  const cards = page.getByTestId("tool-call");
  await expect(cards).toHaveCount(1);
  await expect(cards.nth(0)).toHaveAttribute("data-status", "done");
  await idle(page);
  expect(errors).toEqual([]);
});

test("a reload while a tool runs stops the run there and reports the call, never re-running it", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  const cards = page.getByTestId("tool-call");
  await send(page, "run the slow task");
  await expect(cards.nth(0)).toHaveAttribute("data-status", "running");
  await expect(cards.nth(0).locator("progress")).toBeVisible();

  await page.reload();
  await expect(page.locator(".msg-user")).toHaveText(["run the slow task"]);
  await expect(cards).toHaveCount(1);
  await expect(cards.nth(0)).toHaveAttribute("data-status", "interrupted");
  await expect(cards.nth(0)).toContainText("it was not run again");
  await expect(page.locator(".notice").last()).toContainText(
    "slow_task was interrupted: it may or may not have taken effect, and it was not run again.",
  );
  await idle(page);
  await expect(cards.nth(0).locator("progress")).toHaveCount(0);

  // The conversation goes on from there.
  await send(page, "calculate 2+3*4");
  await expect(page.getByTestId("transcript")).toContainText("The result is 14");
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0)).toHaveAttribute("data-status", "interrupted");
  await idle(page);
  expect(errors).toEqual([]);
});
