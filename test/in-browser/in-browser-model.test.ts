// `inBrowserModel`, the part every in-browser adapter shares: what it tells about itself.
import { expect, test } from "vitest";
import { promptApiModel, webLlmModel, wllamaModel } from "../../src/in-browser/index.ts";

test("an in-browser model names its adapter as its provider (gen_ai.provider.name)", () => {
  // The page serves these models: no provider the GenAI conventions name, so each adapter's own.
  expect(promptApiModel().provider).toBe("prompt-api");
  expect(webLlmModel({ model: "Qwen3-0.6B-q4f32_1-MLC" }).provider).toBe("web-llm");
  expect(wllamaModel({ model: "https://example.test/qwen.gguf" }).provider).toBe("wllama");
});
