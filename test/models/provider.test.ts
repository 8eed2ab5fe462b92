import { afterEach, describe, expect, test, vi } from "vitest";
import { anthropic } from "../../src/models/anthropic.ts";
import type { ModelEvent } from "../../src/models/model.ts";
import { cancelled, isModelError } from "../../src/models/model-error.ts";
import { openAICompatible } from "../../src/models/openai-compatible.ts";
import {
  endpoint,
  type ProviderDecoder,
  type ProviderModelOptions,
  providerModel,
  toolArguments,
} from "../../src/models/provider.ts";
import { collect } from "../support/model-collect.ts";
import { type ReplayServer, startReplayServer } from "../support/model-replay-server.ts";
import { byteStream, sseFrame, utf8 } from "../support/sse-wire.ts";

// A decoder that emits each event's data as text and ends at `end`.
const echo = (): ProviderDecoder => ({
  event: (event, emit) => {
    if (event.data === "end") {
      emit({ type: "finish", reason: "stop" });
      return true;
    }
    emit({ type: "text_delta", text: event.data });
    return false;
  },
  end: () => {
    throw new Error("no end marker");
  },
});

function model(overrides: Partial<ProviderModelOptions> = {}) {
  return providerModel({
    provider: "p",
    providerName: "p",
    id: "m1",
    contextWindow: undefined,
    fetch: undefined,
    url: "https://x.test/v1",
    headers: { a: "1", authorization: "Bearer sk-1" },
    credentialHeaders: ["authorization"],
    extraHeaders: undefined,
    settings: undefined,
    retry: { initialDelayMs: 1 },
    body: () => ({ b: 2 }),
    decoder: echo,
    ...overrides,
  });
}

const request = { messages: [], tools: [] };
const sse = (...data: string[]) =>
  new Response(byteStream([utf8(data.map((d) => sseFrame(d)).join(""))]), {
    headers: { "content-type": "text/event-stream" },
  });
const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("providerModel", () => {
  test("has the model name as id and a context window only when one was given", () => {
    expect(model().id).toBe("m1");
    expect("contextWindow" in model()).toBe(false);
    expect(model({ contextWindow: 8000 }).contextWindow).toBe(8000);
  });

  test("POSTs the JSON body with the merged headers and stops at the decoder's end marker", async () => {
    const fetch = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) =>
      sse("a", "b", "end", "ignored"),
    );
    const m = model({ fetch, extraHeaders: { A: "2", "X-B": "3" } });
    const { events, error } = await collect(m.stream(request));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      { type: "text_delta", text: "a" },
      { type: "text_delta", text: "b" },
      { type: "finish", reason: "stop" },
    ] satisfies ModelEvent[]);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe("https://x.test/v1");
    expect(init).toMatchObject({
      method: "POST",
      headers: { a: "2", "x-b": "3", authorization: "Bearer sk-1" },
      body: '{"b":2}',
    });
  });

  test("merges the settings' extraBody last; an undefined field removes what the adapter sends", async () => {
    const fetch = vi.fn(async (_url: string | URL | Request, _init?: RequestInit) => sse("end"));
    const m = model({ fetch, settings: { extraBody: { top_k: 40, b: undefined } } });
    await collect(m.stream({ ...request, settings: { extraBody: { c: 1 } } }));
    await collect(m.stream(request));
    expect(fetch.mock.calls[0]?.[1]?.body).toBe('{"b":2,"c":1}');
    expect(fetch.mock.calls[1]?.[1]?.body).toBe('{"top_k":40}');
  });

  test("gives each attempt a fresh decoder with the credentials to redact", async () => {
    const seen: (readonly string[])[] = [];
    const answers = [json(503, { error: { message: "busy" } }), sse("end")];
    const fetch = vi.fn(async () => answers.shift() ?? sse("end"));
    const m = model({
      fetch,
      extraHeaders: { "X-Api-Key": "key-from-header" },
      decoder: (secrets) => {
        seen.push(secrets);
        return echo();
      },
    });
    await collect(m.stream(request));
    await collect(m.stream(request));
    expect(seen).toHaveLength(2); // the 503 attempt never reached a decoder
    expect(seen[0]).toEqual(expect.arrayContaining(["Bearer sk-1", "sk-1", "key-from-header"]));
  });

  test("looks up globalThis.fetch per request, not when the model was built", async () => {
    const built = model();
    const fetch = vi.fn(async () => sse("end"));
    vi.stubGlobal("fetch", fetch);
    await collect(built.stream(request));
    expect(fetch).toHaveBeenCalledOnce();
  });

  test("fails with cancelled before fetching when the signal is already aborted", async () => {
    const fetch = vi.fn(async () => sse("end"));
    const { error } = await collect(
      model({ fetch }).stream(request, { signal: AbortSignal.abort() }),
    );
    expect(isModelError(error, "cancelled")).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
  });

  test("turns a network failure into an http error without status, redacting credentials", async () => {
    const fetch = vi.fn(async () => {
      throw new TypeError("error sending request for url (https://x.test/?key=sk-1) sk-1");
    });
    const { error } = await collect(model({ fetch, retry: false }).stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect((error as Error).message).not.toContain("sk-1");
    expect((error as Error).cause).toBeUndefined();
  });

  test("aborts the fetch when the consumer cancels, and removes its abort listener", async () => {
    let seen: AbortSignal | undefined;
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      seen = init?.signal ?? undefined;
      return new Response(new ReadableStream({ start: (c) => c.enqueue(utf8(sseFrame("a"))) }));
    });
    const user = new AbortController();
    const remove = vi.spyOn(user.signal, "removeEventListener");
    const reader = model({ fetch }).stream(request, { signal: user.signal }).getReader();
    await reader.read();
    await reader.cancel();
    expect(seen?.aborted).toBe(true);
    expect(remove).toHaveBeenCalledWith("abort", expect.any(Function));
  });

  test("fails with invalid_response when a 2xx response has no body", async () => {
    const { error } = await collect(
      model({ fetch: async () => new Response(null) }).stream(request),
    );
    expect(isModelError(error, "invalid_response")).toBe(true);
  });

  test("keeps the server's message when it answers 200 with a JSON error body", async () => {
    const fetch = async () =>
      json(200, { error: "Unexpected endpoint or method. (POST /chat/completions)" });
    const { error } = await collect(model({ fetch }).stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect(error).toMatchObject({ status: 200 });
    expect((error as Error).message).toContain("Unexpected endpoint or method");
  });
});

describe("retries", () => {
  test("retries a 429 after the hinted delay, each retry an event before any output", async () => {
    const answers = [
      json(429, { error: { message: "slow down" } }, { "retry-after-ms": "5" }),
      json(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
      sse("hi", "end"),
    ];
    const fetch = vi.fn(async () => answers.shift() ?? sse("end"));
    const { events, error } = await collect(model({ fetch }).stream(request));
    expect(error).toBeUndefined();
    expect(
      events.map((e) =>
        e.type === "retry" ? `retry ${e.attempt} ${e.delayMs} ${e.error.type}` : e.type,
      ),
    ).toEqual(["retry 1 5 rate_limit", "retry 2 2 http", "text_delta", "finish"]);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  test("gives up after maxRetries, and not at all with retry: false", async () => {
    const fetch = vi.fn(async () => json(503, { error: { message: "busy" } }));
    const limited = await collect(
      model({ fetch, retry: { maxRetries: 1, initialDelayMs: 1 } }).stream(request),
    );
    expect(limited.events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(limited.error).toMatchObject({ type: "http", status: 503 });
    fetch.mockClear();
    const off = await collect(model({ fetch, retry: false }).stream(request));
    expect(off.events).toEqual([]);
    expect(fetch).toHaveBeenCalledOnce();
  });

  test("does not retry a bad request, a context overflow or a hint longer than maxDelayMs", async () => {
    for (const answer of [
      () => json(400, { error: { message: "bad field" } }),
      () => json(400, { error: { code: "context_length_exceeded", message: "too long" } }),
      () => json(429, { error: { message: "later" } }, { "retry-after": "3600" }),
    ]) {
      const fetch = vi.fn(async () => answer());
      const { events, error } = await collect(model({ fetch }).stream(request));
      expect(events).toEqual([]);
      expect(isModelError(error)).toBe(true);
      expect(fetch).toHaveBeenCalledOnce();
    }
  });

  test("retries a stream that broke before its first event, never one that already gave output", async () => {
    const broken = (first?: string) => {
      const pieces = first ? [utf8(sseFrame(first))] : [];
      return new Response(
        new ReadableStream({
          pull(c) {
            const piece = pieces.shift();
            if (piece) c.enqueue(piece);
            else c.error(new TypeError("socket hang up"));
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    };
    const early = [broken(), sse("ok", "end")];
    const fetchEarly = vi.fn(async () => early.shift() ?? sse("end"));
    const a = await collect(model({ fetch: fetchEarly }).stream(request));
    expect(a.error).toBeUndefined();
    expect(a.events.map((e) => e.type)).toEqual(["retry", "text_delta", "finish"]);

    const fetchLate = vi.fn(async () => broken("partial"));
    const b = await collect(model({ fetch: fetchLate }).stream(request));
    expect(b.events.map((e) => e.type)).toEqual(["text_delta"]);
    expect(isModelError(b.error, "stream")).toBe(true);
    expect(fetchLate).toHaveBeenCalledOnce();
  });

  test("an abort during the backoff ends the wait with cancelled and sends no further request", async () => {
    const fetch = vi.fn(async () =>
      json(429, { error: { message: "x" } }, { "retry-after-ms": "60000" }),
    );
    const user = new AbortController();
    const reader = model({ fetch, retry: { maxDelayMs: 120_000 } })
      .stream(request, { signal: user.signal })
      .getReader();
    const first = await reader.read();
    expect(first.value).toMatchObject({ type: "retry", delayMs: 60_000 });
    user.abort();
    await expect(reader.read()).rejects.toMatchObject({ type: "cancelled" });
    expect(fetch).toHaveBeenCalledOnce();
  });
});

// Issue 23, item 6: a baseURL that answers 307 to another host must not get the key or the
// conversation sent there.
describe("redirects", () => {
  const servers: ReplayServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  // `elsewhere` records every request; `named` answers each with `status` to it.
  async function redirecting(status: number) {
    const elsewhere = await startReplayServer((exchange) => {
      exchange.head(404);
      exchange.end();
    });
    servers.push(elsewhere);
    const target = `${elsewhere.url}/steal?sig=location-secret-4242`;
    const named = await startReplayServer((exchange) => {
      exchange.head(status, { location: target });
      exchange.end();
    });
    servers.push(named);
    return { named, elsewhere };
  }

  const KEY = "sk-redirect-secret-123456789";
  const conversation = {
    messages: [
      { role: "user" as const, content: [{ type: "text" as const, text: "private plan" }] },
    ],
    tools: [],
  };

  test.each([307, 308, 302, 301])(
    "anthropic() and openAICompatible() refuse a %i: nothing reaches the other host",
    async (status) => {
      const { named, elsewhere } = await redirecting(status);
      const models = [
        anthropic({ baseURL: named.url, apiKey: KEY, model: "claude-test" }),
        openAICompatible({ baseURL: `${named.url}/v1`, apiKey: KEY, model: "gpt-test" }),
      ];
      for (const m of models) {
        const { events, error } = await collect(m.stream(conversation));
        expect(elsewhere.requests).toEqual([]);
        expect(isModelError(error, "http")).toBe(true);
        expect(error).toMatchObject({ status, code: "redirect" });
        const message = (error as Error).message;
        expect(message).toContain(`redirected to ${elsewhere.url}/steal (HTTP ${status})`);
        expect(message).toContain("baseURL");
        const shown = JSON.stringify([events, message, error]);
        expect(shown).not.toContain("location-secret-4242");
        expect(shown).not.toContain(KEY);
        // Not retried: the same request meets the same redirect.
        expect(events.filter((event) => event.type === "retry")).toEqual([]);
      }
      expect(named.requests).toHaveLength(2);
    },
  );

  test("a custom fetch is asked not to follow, and a browser's opaque redirect fails the same way", async () => {
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      expect(init?.redirect).toBe("manual");
      const opaque = new Response(null, { status: 200 });
      Object.defineProperty(opaque, "type", { value: "opaqueredirect" });
      Object.defineProperty(opaque, "status", { value: 0 });
      return opaque;
    });
    const { error } = await collect(model({ fetch }).stream(request));
    expect(isModelError(error, "http")).toBe(true);
    expect(error).toMatchObject({ code: "redirect" });
    expect((error as Error).message).toContain("(HTTP 3xx); redirects are not followed");
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe("endpoint", () => {
  test("appends the path before an Azure api-version query", () => {
    expect(
      endpoint(
        "https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21",
        "/chat/completions",
      ),
    ).toBe(
      "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-10-21",
    );
    expect(endpoint("http://127.0.0.1:11434/v1/", "/chat/completions")).toBe(
      "http://127.0.0.1:11434/v1/chat/completions",
    );
  });
});

describe("toolArguments", () => {
  test("parses JSON, gives {} for empty text and keeps text that is not JSON", () => {
    expect(toolArguments('{"a":1}')).toEqual({ a: 1 });
    expect(toolArguments("  ")).toEqual({});
    expect(toolArguments('{"a":')).toBe('{"a":');
  });
});

describe("cancelled", () => {
  test("keeps a meaningful reason and leaves out the generic AbortError", () => {
    expect(cancelled("p", "stop").toJSON()).toEqual({
      type: "cancelled",
      provider: "p",
      reason: "stop",
    });
    expect(cancelled("p", new DOMException("aborted", "AbortError")).toJSON()).toEqual({
      type: "cancelled",
      provider: "p",
    });
  });
});
