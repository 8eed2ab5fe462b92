/**
 * The real providers' adapters, in a module of their own so the page loads them only when a
 * real model is selected (the offline page does not ship them).
 *
 * Re-exported from the public entry, not imported from its files: the bundler still
 * resolves each name to the module that defines it, so only the adapters land in this chunk.
 */
export { anthropic, openAICompatible } from "../../src/models/index.ts";
