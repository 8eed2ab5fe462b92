// Issue 30 point 6: a model URL where nothing listens, an unknown host, a browser's opaque
// "Failed to fetch" and a 200 that is a web page each say what happened, and are not retried
// as if the model were busy. Real local servers (node:http on port 0) and a closed port.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { anthropic } from "../../src/models/anthropic.ts";
import type { ModelRequest } from "../../src/models/model.ts";
import { isModelError } from "../../src/models/model-error.ts";
import { openAICompatible } from "../../src/models/openai-compatible.ts";
import { collect } from "../support/model-collect.ts";
import { type ReplayServer, startReplayServer } from "../support/model-replay-server.ts";

const KEY = "sk-test-SECRET-0123456789";
const request: ModelRequest = {
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  tools: [],
};
const PAGE = `<!doctype html>\n<html>\n  <head><title>Open WebUI</title></head>\n  <body>${"x".repeat(2000)} ${KEY}</body>\n</html>\n`;

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// A port that was just free: bound, then closed, so a connection is refused.
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe("a model URL where nothing answers", () => {
  test("a closed port is ECONNREFUSED naming the host, with no retry (default options)", async () => {
    const port = await closedPort();
    const model = openAICompatible({
      baseURL: `http://127.0.0.1:${port}/v1?key=${KEY}`,
      model: "m",
    });
    const { events, error } = await collect(model.stream(request));
    expect(events.filter((event) => event.type === "retry")).toEqual([]);
    expect(isModelError(error, "http")).toBe(true);
    expect(error).toMatchObject({ code: "ECONNREFUSED" });
    expect(error).not.toHaveProperty("status");
    expect((error as Error).message).toBe(
      `openai-compatible: request failed: nothing is listening at http://127.0.0.1:${port} (ECONNREFUSED)`,
    );
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  test("anthropic says the same for a closed port", async () => {
    const port = await closedPort();
    const model = anthropic({ baseURL: `http://127.0.0.1:${port}`, apiKey: KEY, model: "m" });
    const { events, error } = await collect(model.stream(request));
    expect(events.some((event) => event.type === "retry")).toBe(false);
    expect((error as Error).message).toContain(
      `nothing is listening at http://127.0.0.1:${port} (ECONNREFUSED)`,
    );
  });

  test("an unknown host (Node's ENOTFOUND under `cause`) names the host and is not retried", async () => {
    let calls = 0;
    const model = openAICompatible({
      baseURL: "https://api.nothere.invalid/v1",
      model: "m",
      // What Node's fetch throws for a name DNS does not know.
      fetch: async () => {
        calls += 1;
        const cause = Object.assign(new Error("getaddrinfo ENOTFOUND api.nothere.invalid"), {
          code: "ENOTFOUND",
        });
        throw new TypeError("fetch failed", { cause });
      },
    });
    const { error } = await collect(model.stream(request));
    expect(calls).toBe(1);
    expect(error).toMatchObject({ type: "http", code: "ENOTFOUND" });
    expect((error as Error).message).toContain("the host api.nothere.invalid was not found");
  });

  test("a browser's opaque TypeError hints at CORS or a server that is down, without retry", async () => {
    let calls = 0;
    const model = openAICompatible({
      baseURL: "http://127.0.0.1:1234/v1",
      model: "m",
      // What Chromium's fetch throws for a refused connection and for a CORS refusal alike.
      fetch: async () => {
        calls += 1;
        throw new TypeError("Failed to fetch");
      },
    });
    const { events, error } = await collect(model.stream(request));
    expect(calls).toBe(1);
    expect(events).toEqual([]);
    expect(error).toMatchObject({ type: "http", code: "unreachable" });
    const message = (error as Error).message;
    expect(message).toContain("could not reach http://127.0.0.1:1234 (Failed to fetch)");
    expect(message).toContain("CORS");
  });

  test("another network failure keeps its cause in the message and is still retried", async () => {
    let calls = 0;
    const model = openAICompatible({
      baseURL: "http://127.0.0.1:1234/v1",
      model: "m",
      retry: { maxRetries: 1, initialDelayMs: 1 },
      fetch: async () => {
        calls += 1;
        const cause = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
        throw new TypeError("fetch failed", { cause });
      },
    });
    const { error } = await collect(model.stream(request));
    expect(calls).toBe(2);
    expect((error as Error).message).toBe(
      "openai-compatible: request failed: fetch failed (read ECONNRESET)",
    );
  });
});

describe("a 200 that is no event stream", () => {
  test("an HTML page is invalid_response naming text/html with a short scrubbed excerpt (default options)", async () => {
    server = await startReplayServer(async (exchange) => {
      exchange.head(200, { "content-type": "text/html; charset=utf-8" });
      await exchange.write(PAGE);
      exchange.end();
    });
    const model = openAICompatible({ baseURL: server.url, apiKey: KEY, model: "m" });
    const { events, error } = await collect(model.stream(request));
    expect(events).toEqual([]);
    expect(server.requests).toHaveLength(1);
    expect(isModelError(error, "invalid_response")).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain("the server answered text/html, not an event stream");
    expect(message).toContain("<!doctype html> <html> <head><title>Open WebUI</title>");
    expect(message).not.toContain("stream ended early");
    expect(message.length).toBeLessThan(400);
    expect(message).not.toContain(KEY);
  });

  test("anthropic reports an HTML page the same way", async () => {
    server = await startReplayServer(async (exchange) => {
      exchange.head(200, { "content-type": "text/html" });
      await exchange.write("<html><body>Sign in</body></html>");
      exchange.end();
    });
    const model = anthropic({ baseURL: server.url, apiKey: KEY, model: "m" });
    const { error } = await collect(model.stream(request));
    expect(error).toMatchObject({ type: "invalid_response" });
    expect((error as Error).message).toContain(
      "the server answered text/html, not an event stream; check that `baseURL` points at the API: <html><body>Sign in</body></html>",
    );
  });

  test("plain text with no SSE field is invalid_response, not a broken stream", async () => {
    server = await startReplayServer(async (exchange) => {
      exchange.head(200, { "content-type": "text/plain" });
      await exchange.write("Ollama is running");
      exchange.end();
    });
    const model = openAICompatible({ baseURL: server.url, model: "m" });
    const { error } = await collect(model.stream(request));
    expect(server.requests).toHaveLength(1);
    expect(error).toMatchObject({ type: "invalid_response" });
    expect((error as Error).message).toContain(
      "the server answered text/plain, not an event stream; check that `baseURL` points at the API: Ollama is running",
    );
  });

  test("a stream cut before its first event is still a stream error, retried", async () => {
    server = await startReplayServer(async (exchange) => {
      exchange.head(200, { "content-type": "text/event-stream" });
      await exchange.write(': keep-alive\n\ndata: {"choices":[');
      exchange.end();
    });
    const model = openAICompatible({
      baseURL: server.url,
      model: "m",
      retry: { maxRetries: 1, initialDelayMs: 1 },
    });
    const { error } = await collect(model.stream(request));
    expect(server.requests).toHaveLength(2);
    expect(error).toMatchObject({ type: "stream" });
  });
});
