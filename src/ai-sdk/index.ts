/**
 * The AI SDK bridge: `aiSdkModel(languageModel)` runs any AI SDK provider model (the
 * `LanguageModelV3` spec of `@ai-sdk/provider`) as a toolwire `Model`, and
 * `aiSdkTools(toolset)` hands a toolwire `Toolset` to `generateText` / `streamText`, and
 * `agentChatTransport` lets the AI SDK's `useChat` drive an in-page toolwire `Agent`. The AI
 * SDK is an optional peer: this entry imports none of it, and its declarations name none of its
 * types.
 *
 * @module
 */

export { type AiSdkLanguageModel, type AiSdkModelOptions, aiSdkModel } from "./ai-sdk-model.ts";
export { type AiSdkTool, type AiSdkToolsOptions, aiSdkTools } from "./ai-sdk-tools.ts";
export {
  type AgentChatChunk,
  type AgentChatGates,
  type AgentChatMessage,
  type AgentChatMetadata,
  type AgentChatProgress,
  type AgentChatQuestion,
  type AgentChatSendOptions,
  type AgentChatTransport,
  type AgentChatTransportOptions,
  agentChatTransport,
  approvalAnswered,
} from "./chat-transport.ts";
