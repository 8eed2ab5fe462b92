/**
 * The AI SDK bridge: `aiSdkModel(languageModel)` runs any AI SDK provider model (the
 * `LanguageModelV3` spec of `@ai-sdk/provider`) as a toolwire `Model`, and
 * `aiSdkTools(toolset)` hands a toolwire `Toolset` to `generateText` / `streamText`. The AI
 * SDK is an optional peer: this entry imports it for types only.
 *
 * @module
 */

export { type AiSdkModelOptions, aiSdkModel } from "./ai-sdk-model.ts";
export { type AiSdkToolsOptions, aiSdkTools } from "./ai-sdk-tools.ts";
