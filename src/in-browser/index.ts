/**
 * Models that run in the page, on the visitor's own device: `wllamaModel` (a GGUF file on the
 * CPU through llama.cpp in WebAssembly), `promptApiModel` (the browser's built-in model through
 * the Prompt API) and `webLlmModel` (WebLLM on WebGPU). Each is a `Model` like the others, with
 * `load()`, `unload()` and load progress events; the runtimes (`@wllama/wllama`,
 * `@mlc-ai/web-llm`) are optional peers imported on first use, so this entry costs nothing
 * until a model loads. `InBrowserModel` failures are `ModelError`s; `unsupported` names what
 * the browser or device lacks.
 *
 * @example
 * ```ts
 * import { wllamaModel } from "toolwire/in-browser";
 *
 * const model = wllamaModel({ model: "https://example.com/qwen2.5-0.5b-instruct-q4_k_m.gguf" });
 * model.onProgress((e) => console.log(e));
 * const agent = new Agent({ model, tools: [add] });
 * ```
 *
 * @module
 */

export type {
  InBrowserModel,
  LoadOptions,
  LoadProgressEvent,
} from "./in-browser-model.ts";
export { type PromptApiModelOptions, promptApiModel } from "./prompt-api-model.ts";
export { type WebLlmEngine, type WebLlmModelOptions, webLlmModel } from "./web-llm-model.ts";
export { type WllamaModelOptions, wllamaModel } from "./wllama-model.ts";
