// A newcomer's first screen (issue 30, point 9): what it shows before anything is sent.
import { expect, test } from "@playwright/test";
import { send, watchErrors } from "./demo-page.ts";

test("on a 390×844 phone the inspector's tabs show on the first screen", async ({ page }) => {
  const errors = watchErrors(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await expect(page.getByTestId("send")).toBeEnabled();
  for (const name of ["Context", "Timeline", "Tools", "Settings"]) {
    const box = await page.getByRole("tab", { name }).boundingBox();
    expect(box).not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(844);
  }
  // Chips wrap on whole rows: none is wider than its row or clipped inside itself.
  const clipped = await page
    .locator(".chip")
    .evaluateAll((chips) =>
      chips.filter((chip) => chip.scrollWidth > chip.clientWidth + 1).map((c) => c.textContent),
    );
  expect(clipped).toEqual([]);
  const row = await page.locator(".chips").boundingBox();
  for (const chip of await page.locator(".chip").all()) {
    const box = await chip.boundingBox();
    if (!box || !row) continue;
    expect(box.x).toBeGreaterThanOrEqual(row.x - 1);
    expect(box.x + box.width).toBeLessThanOrEqual(row.x + row.width + 1);
  }
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow).toBe(0);
  await expect(page.locator(".intro-links a").first()).toBeVisible();
  await page.screenshot({ path: "test-results/demo-first-visit-phone.png" });
  // A tab brings its panel up.
  await page.getByRole("tab", { name: "Tools" }).click();
  await expect(page.getByRole("heading", { name: "In this page" })).toBeInViewport();
  await page.getByRole("tab", { name: "Settings" }).click();
  await expect(page.locator(".about a").first()).toBeVisible();
  expect(errors).toEqual([]);
});

test("the header fits every width between a phone and a laptop", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByTestId("send")).toBeEnabled();
  for (const width of [360, 480, 561, 640, 760, 901, 1024]) {
    await page.setViewportSize({ width, height: 800 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect({ width, overflow }).toEqual({ width, overflow: 0 });
    await expect(page.getByTestId("new-conversation")).toBeInViewport({ ratio: 1 });
  }
});

test("an empty conversation reads 0 tokens, nothing is pre-allowed, and the docs are linked", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await expect(page.getByTestId("token-meter")).toContainText(/^Transcript size0 \//);
  // Compaction's jargon stays out of what a visitor reads.
  for (const area of [page.locator(".intro"), page.locator(".sidebar")]) {
    await expect(area).not.toContainText(/message 0|\bfold\b|carried|lossless/i);
  }
  await page.getByRole("tab", { name: "Tools" }).click();
  for (const box of await page.getByRole("checkbox", { name: /without asking/ }).all()) {
    await expect(box).not.toBeChecked();
  }
  const docs = page.locator(".project-links").getByRole("link", { name: "Docs" });
  const readme = await page.request.get(
    new URL((await docs.getAttribute("href")) ?? "", page.url()).href,
  );
  expect(await readme.text()).toMatch(/^# toolwire/);
  const design = page.locator(".project-links").getByRole("link", { name: "Design" });
  const designText = await page.request.get(
    new URL((await design.getAttribute("href")) ?? "", page.url()).href,
  );
  expect(designText.ok()).toBe(true);
  expect(errors).toEqual([]);
});

test("the timeline shows a run header only with events, and its labels do not overlap", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await page.getByTestId("new-conversation").click();
  await page.getByRole("tab", { name: "Timeline" }).click();
  await expect(page.locator(".timeline-run")).toHaveCount(0);
  await send(page, "ask me my favourite colour");
  await page.getByTestId("interaction-input").fill("teal");
  await page.getByTestId("interaction-submit").click();
  await expect(page.getByTestId("transcript")).toContainText("Thanks! You said");
  await expect(page.locator(".timeline-run")).toHaveText(["Run 1"]);
  // Each label's text (not its grid cell, which text can overflow) ends before the next begins.
  const overlaps = await page.locator(".timeline-item").evaluateAll((items) =>
    items.flatMap((item) => {
      const [time, type, detail] = [...item.children].map((cell) => {
        const range = document.createRange();
        range.selectNodeContents(cell);
        return range.getBoundingClientRect();
      });
      if (!time || !type || !detail) return [];
      const sameLine = (a: DOMRect, b: DOMRect) => a.top < b.bottom && b.top < a.bottom;
      return (sameLine(type, detail) && type.right > detail.left + 0.5) ||
        (sameLine(time, type) && time.right > type.left + 0.5)
        ? [item.textContent]
        : [];
    }),
  );
  expect(overlaps).toEqual([]);
  await page.locator(".sidebar").screenshot({ path: "test-results/demo-first-visit-timeline.png" });
  expect(errors).toEqual([]);
});
