// The demo signs in to an MCP server that needs OAuth (docs/design.md OW10): the server's 401
// names the local authorization server (e2e/oauth-servers.ts), `browserOAuth` opens its consent
// page in a popup, the user clicks Allow, and the demo lists and calls the server's tools. No
// code or token may show in the page, the console, or a URL, except the code in the one
// redirect that carries it back.
import { expect, type Request, test } from "@playwright/test";
import { send, watchErrors } from "./demo-page.ts";

/** The page's errors, but for Chromium's note on the 401 that starts the sign-in (expected). */
const unexpected = (errors: string[]) =>
  errors.filter((error) => !/status of 401 \(Unauthorized\)/.test(error));

const MCP_URL = "http://127.0.0.1:4176/mcp";
const SECRETS_URL = "http://127.0.0.1:4175/_test/secrets";

test("the demo signs in through the popup, then lists and calls the server's tools", async ({
  page,
  context,
  request,
}) => {
  const errors = watchErrors(page);
  const logged: string[] = [];
  const urls: string[] = [];
  const record = (entry: Request) => urls.push(entry.url());
  context.on("request", record);
  page.on("console", (message) => logged.push(message.text()));
  await page.goto("/");
  await page.getByRole("tab", { name: "Tools" }).click();
  await page.getByTestId("mcp-url").fill(MCP_URL);
  const popupOpened = page.waitForEvent("popup");
  await page.getByRole("button", { name: "Connect" }).click();
  const popup = await popupOpened;
  popup.on("console", (message) => logged.push(message.text()));
  await expect(page.getByTestId("mcp-status")).toHaveAttribute("data-sign-in", "signing_in");
  await popup.getByRole("button", { name: "Allow" }).click();
  // The popup comes back to the demo page, which hands the answer over and closes it.
  await expect.poll(() => popup.isClosed()).toBe(true);

  await expect(page.getByTestId("mcp-status")).toHaveText(
    "Signed in and connected: its tools joined the agent.",
  );
  await expect(page.getByTestId("signed-in")).toBeVisible();
  await expect(page.locator(".remote")).toContainText("remote__echo");
  await send(page, 'call remote__echo {"text":"stressed"}');
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("transcript")).toContainText("signed-in echo: desserts");
  await expect(page.getByTestId("send")).toBeEnabled();
  await send(page, "call remote__whoami {}");
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("transcript")).toContainText("you are user-1");

  const secrets: string[] = await (await request.get(SECRETS_URL)).json();
  const codes = secrets.filter((secret) => secret.startsWith("code_"));
  const tokens = secrets.filter((secret) => !secret.startsWith("code_"));
  expect(codes.length).toBe(1);
  expect(tokens.length).toBeGreaterThanOrEqual(2);
  const text = await page.evaluate(() => document.documentElement.textContent ?? "");
  for (const secret of secrets) {
    expect(text).not.toContain(secret);
    expect(logged.join("\n")).not.toContain(secret);
    expect(page.url()).not.toContain(secret);
  }
  // Tokens travel in headers and bodies only; the code only in the redirect back to the page.
  const carrying = urls.filter((url) => secrets.some((secret) => url.includes(secret)));
  expect(carrying.length).toBe(1);
  const redirect = new URL(carrying[0] ?? "");
  expect(redirect.origin + redirect.pathname).toBe("http://127.0.0.1:4173/");
  expect([...redirect.searchParams.keys()].sort()).toEqual(["code", "iss", "state"]);
  expect(unexpected(errors)).toEqual([]);
});

test("closing the sign-in popup fails the connection with the typed error, and nothing joins", async ({
  page,
}) => {
  const errors = watchErrors(page);
  await page.goto("/");
  await page.getByRole("tab", { name: "Tools" }).click();
  await page.getByTestId("mcp-url").fill(MCP_URL);
  const popupOpened = page.waitForEvent("popup");
  await page.getByRole("button", { name: "Connect" }).click();
  const popup = await popupOpened;
  await popup.getByRole("button", { name: "Allow" }).waitFor();
  await popup.close();
  await expect(page.getByTestId("mcp-status")).toContainText(
    "Sign-in failed: interaction_declined",
  );
  await expect(page.locator(".remote")).toHaveCount(0);
  expect(unexpected(errors)).toEqual([]);
});

// Redirect mode on a page of its own (e2e/oauth-servers.ts serves it on 127.0.0.1:4177, with
// toolwire bundled from the sources): the tab goes to the consent page and comes back,
// connecting again finishes the sign-in, and the code leaves the address bar (docs/design.md
// OW8).
test("redirect mode: the tab signs in and comes back, and the code leaves the address bar", async ({
  page,
}) => {
  const app = "http://127.0.0.1:4177/app.html";
  const errors = watchErrors(page);
  await page.goto(app);
  await page.getByRole("button", { name: "Connect" }).click();
  // The tab itself is now on the authorization server's consent page.
  await page.getByRole("button", { name: "Allow" }).click();
  await expect(page.locator("#out")).toHaveText("connected: echo, whoami; you are user-1");
  expect(page.url()).toBe(app);
  const secrets: string[] = await (await page.request.get(SECRETS_URL)).json();
  const text = (await page.locator("body").textContent()) ?? "";
  for (const secret of secrets) expect(text).not.toContain(secret);
  expect(unexpected(errors)).toEqual([]);
});
