import { afterEach, describe, expect, test } from "vitest";
import {
  DEFAULT_GGUF_URL,
  DEFAULT_WEBLLM_MODEL,
  InBrowserChoice,
  type InBrowserState,
} from "../../demo/model/in-browser-choice.ts";
import { collect, textOf } from "../support/model-collect.ts";
import { installPromptApi } from "../support/prompt-api-stand-in.ts";

function memoryStorage(): Storage {
  const values = new Map<string, string>();
  return {
    get length() {
      return values.size;
    },
    clear: () => values.clear(),
    getItem: (key) => values.get(key) ?? null,
    key: (index) => [...values.keys()][index] ?? null,
    removeItem: (key) => void values.delete(key),
    setItem: (key, value) => void values.set(key, String(value)),
  };
}

const options = (storage: Storage) => ({
  ggufUrl: () => DEFAULT_GGUF_URL,
  webLlmModel: () => DEFAULT_WEBLLM_MODEL,
  storage,
});

function watch(choice: InBrowserChoice): InBrowserState["type"][] {
  const seen: InBrowserState["type"][] = [];
  choice.on("state", (state) => seen.push(state.type));
  return seen;
}

let remove = () => {};
afterEach(() => remove());

describe("InBrowserChoice", () => {
  test("auto picks the built-in model where it is available and loads it without asking", async () => {
    remove = installPromptApi(() => ["Hi from the device."]).remove;
    const choice = new InBrowserChoice(options(memoryStorage()));
    const seen = watch(choice);
    await choice.select("auto");
    expect(choice.state).toEqual({
      type: "ready",
      kind: "built-in",
      label: "Built-in model · Prompt API",
    });
    expect(seen).toEqual(["loading", "ready"]);
    const model = choice.model;
    expect(model).toBeDefined();
    if (model)
      expect(
        textOf(
          (
            await collect(
              model.stream({
                messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
                tools: [],
              }),
            )
          ).events,
        ),
      ).toBe("Hi from the device.");
  });

  test("offers a model that must be downloaded, with its size, loads it on consent, and remembers the consent for the next visit", async () => {
    const stand = installPromptApi(() => ["ok"], { availability: "downloadable" });
    remove = stand.remove;
    const storage = memoryStorage();
    const choice = new InBrowserChoice(options(storage));
    await choice.select("auto");
    expect(choice.state).toMatchObject({
      type: "offer",
      kind: "built-in",
      size: expect.stringContaining("download"),
    });
    expect(choice.model).toBeUndefined();
    expect(stand.sessions).toEqual([]);
    const progress: string[] = [];
    choice.on("state", (state) => state.type === "loading" && progress.push(state.progress));
    await choice.accept();
    expect(choice.state.type).toBe("ready");
    expect(progress).toContain("downloading 50%");
    // The next visit: the browser has the model, and the visitor agreed before.
    const next = new InBrowserChoice(options(storage));
    await next.select("built-in");
    expect(next.state.type).toBe("ready");
  });

  test("chooses none where no in-browser runtime can run, so the scripted model keeps answering", async () => {
    const wasm = WebAssembly as unknown as Record<string, unknown>;
    const suspending = wasm.Suspending;
    delete wasm.Suspending;
    try {
      const choice = new InBrowserChoice(options(memoryStorage()));
      await choice.select("auto");
      expect(choice.state).toEqual({ type: "none" });
      expect(choice.model).toBeUndefined();
    } finally {
      if (suspending !== undefined) wasm.Suspending = suspending;
    }
  });

  test("reports a model that cannot start, with the reason, and keeps the scripted model", async () => {
    remove = installPromptApi(() => [], {
      availability: "downloadable",
      createError: new DOMException("no execution config", "NotSupportedError"),
    }).remove;
    const choice = new InBrowserChoice(options(memoryStorage()));
    await choice.select("built-in");
    await choice.accept();
    expect(choice.state).toMatchObject({
      type: "failed",
      kind: "built-in",
      message: expect.stringContaining("the built-in model"),
    });
    expect(choice.model).toBeUndefined();
  });
});
