import { isJsonObject } from "../schema/is-json-object.ts";
import type {
  SamplingContent,
  SamplingMessage,
  SamplingRequest,
  SamplingResult,
} from "./sampling.ts";

/**
 * Returns a clean copy of a sampling request (only its known fields), or a phrase naming what
 * is wrong: messages must be a non-empty array of `user`/`assistant` messages with text, image
 * or audio content, `maxTokens` a positive integer, and the optional fields of their types.
 *
 * @param value The candidate, from a tool or from the wire.
 * @returns The copy, or a phrase such as "`maxTokens` must be a positive integer".
 */
export function readSamplingRequest(value: unknown): SamplingRequest | string {
  if (!isJsonObject(value)) return "the request is not an object";
  const { messages, maxTokens, systemPrompt, temperature, stopSequences } = value;
  if (!Array.isArray(messages) || messages.length === 0) {
    return "`messages` must be a non-empty array";
  }
  const copies: SamplingMessage[] = [];
  for (const [index, message] of messages.entries()) {
    const copy = readMessage(message);
    if (typeof copy === "string") return `\`messages[${index}]\` ${copy}`;
    copies.push(copy);
  }
  if (!Number.isSafeInteger(maxTokens) || (maxTokens as number) <= 0) {
    return "`maxTokens` must be a positive integer";
  }
  const request: SamplingRequest = { messages: copies, maxTokens: maxTokens as number };
  if (systemPrompt !== undefined) {
    if (typeof systemPrompt !== "string") return "`systemPrompt` must be a string";
    request.systemPrompt = systemPrompt;
  }
  if (temperature !== undefined) {
    if (typeof temperature !== "number" || !Number.isFinite(temperature)) {
      return "`temperature` must be a finite number";
    }
    request.temperature = temperature;
  }
  if (stopSequences !== undefined) {
    if (!Array.isArray(stopSequences) || !stopSequences.every((s) => typeof s === "string")) {
      return "`stopSequences` must be an array of strings";
    }
    request.stopSequences = stopSequences.slice();
  }
  return request;
}

/**
 * Returns a clean copy of a sampling reply (only its known fields), or a phrase naming what is
 * wrong: `role` must be `assistant`, `content` one text, image or audio block, `model` a
 * string, and `stopReason`, when present, a string.
 *
 * @param value The candidate, from the caller or from the wire.
 * @returns The copy, or a phrase such as "`model` must be a string".
 */
export function readSamplingResult(value: unknown): SamplingResult | string {
  if (!isJsonObject(value)) return "the reply is not an object";
  if (value.role !== "assistant") return "`role` must be `assistant`";
  const content = readContent(value.content);
  if (typeof content === "string") return `\`content\` ${content}`;
  if (typeof value.model !== "string") return "`model` must be a string";
  const result: SamplingResult = { role: "assistant", content, model: value.model };
  if (value.stopReason !== undefined) {
    if (typeof value.stopReason !== "string") return "`stopReason` must be a string";
    result.stopReason = value.stopReason;
  }
  return result;
}

function readMessage(value: unknown): SamplingMessage | string {
  if (!isJsonObject(value)) return "must be an object";
  const { role } = value;
  if (role !== "user" && role !== "assistant") return "must have the role `user` or `assistant`";
  const content = readContent(value.content);
  return typeof content === "string" ? `has content that ${content}` : { role, content };
}

function readContent(value: unknown): SamplingContent | string {
  if (!isJsonObject(value)) return "must be one text, image or audio block";
  const { type } = value;
  if (type === "text") {
    return typeof value.text === "string" ? { type, text: value.text } : "needs a string `text`";
  }
  if (type !== "image" && type !== "audio") return "must be one text, image or audio block";
  const { mimeType, data } = value;
  if (typeof mimeType !== "string" || typeof data !== "string") {
    return `needs string \`mimeType\` and \`data\` (base64) for ${type}`;
  }
  return { type, mimeType, data };
}
