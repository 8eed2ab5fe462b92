/// <reference types="vite/client" />
/**
 * The in-browser adapters and wllama's WebAssembly, in a module of their own so the page loads
 * them only when it runs an in-browser model (the first visit with the scripted model ships none
 * of them). The runtimes themselves load later still, on the model's first `load()`.
 */

/** wllama's WebAssembly, served with the page rather than from a CDN. */
export { default as wllamaWasmUrl } from "@wllama/wllama/esm/wasm/wllama.wasm?url";
export { promptApiModel, webLlmModel, wllamaModel } from "../../src/in-browser/index.ts";
