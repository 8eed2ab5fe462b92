import { describe, expect, test } from "vitest";
import { readSamplingRequest, readSamplingResult } from "../../src/interaction/read-sampling.ts";

const hello = { role: "user", content: { type: "text", text: "Hello" } };

describe("readSamplingRequest", () => {
  test("copies only the known fields of a valid request", () => {
    const stop = ["END"];
    const request = {
      messages: [
        hello,
        { role: "assistant", content: { type: "audio", mimeType: "audio/wav", data: "AA==" } },
      ],
      maxTokens: 100,
      systemPrompt: "Be brief.",
      temperature: 0,
      stopSequences: stop,
      modelPreferences: { hints: [{ name: "x" }] },
      includeContext: "thisServer",
    };
    const read = readSamplingRequest(request);
    expect(read).toEqual({
      messages: request.messages,
      maxTokens: 100,
      systemPrompt: "Be brief.",
      temperature: 0,
      stopSequences: ["END"],
    });
    // A copy, so the asker changing its arrays later cannot change what was read.
    stop.push("MORE");
    expect((read as { stopSequences: string[] }).stopSequences).toEqual(["END"]);
  });

  test("leaves unset optional fields absent", () => {
    expect(readSamplingRequest({ messages: [hello], maxTokens: 1 })).toEqual({
      messages: [hello],
      maxTokens: 1,
    });
  });

  test.each([
    ["null", null, "the request is not an object"],
    ["no messages", { maxTokens: 1 }, "`messages` must be a non-empty array"],
    ["empty messages", { messages: [], maxTokens: 1 }, "`messages` must be a non-empty array"],
    [
      "a bad role",
      { messages: [{ ...hello, role: "system" }], maxTokens: 1 },
      "`messages[0]` must have the role `user` or `assistant`",
    ],
    [
      "array content",
      { messages: [{ role: "user", content: [hello.content] }], maxTokens: 1 },
      "`messages[0]` has content that must be one text, image or audio block",
    ],
    [
      "tool_use content",
      { messages: [{ role: "assistant", content: { type: "tool_use" } }], maxTokens: 1 },
      "`messages[0]` has content that must be one text, image or audio block",
    ],
    [
      "an image without data",
      { messages: [{ role: "user", content: { type: "image", mimeType: "x" } }], maxTokens: 1 },
      "`messages[0]` has content that needs string `mimeType` and `data` (base64) for image",
    ],
    ["maxTokens 0", { messages: [hello], maxTokens: 0 }, "`maxTokens` must be a positive integer"],
    [
      "maxTokens 1.5",
      { messages: [hello], maxTokens: 1.5 },
      "`maxTokens` must be a positive integer",
    ],
    [
      "a number as systemPrompt",
      { messages: [hello], maxTokens: 1, systemPrompt: 1 },
      "`systemPrompt` must be a string",
    ],
    [
      "NaN temperature",
      { messages: [hello], maxTokens: 1, temperature: Number.NaN },
      "`temperature` must be a finite number",
    ],
    [
      "numbers as stop sequences",
      { messages: [hello], maxTokens: 1, stopSequences: [1] },
      "`stopSequences` must be an array of strings",
    ],
  ])("names what is wrong with %s", (_label, value, problem) => {
    expect(readSamplingRequest(value)).toBe(problem);
  });
});

describe("readSamplingResult", () => {
  const reply = { role: "assistant", content: { type: "text", text: "Hi" }, model: "m" };

  test("copies a valid reply without extra fields", () => {
    expect(readSamplingResult({ ...reply, stopReason: "endTurn", _meta: { x: 1 } })).toEqual({
      ...reply,
      stopReason: "endTurn",
    });
    const image = { type: "image", mimeType: "image/png", data: "AA==", annotations: {} };
    expect(readSamplingResult({ ...reply, content: image })).toEqual({
      ...reply,
      content: { type: "image", mimeType: "image/png", data: "AA==" },
    });
  });

  test.each([
    ["a string", "Hi", "the reply is not an object"],
    ["the user role", { ...reply, role: "user" }, "`role` must be `assistant`"],
    [
      "text content as a string",
      { ...reply, content: "Hi" },
      "`content` must be one text, image or audio block",
    ],
    [
      "text without text",
      { ...reply, content: { type: "text" } },
      "`content` needs a string `text`",
    ],
    ["no model", { role: "assistant", content: reply.content }, "`model` must be a string"],
    ["a numeric stopReason", { ...reply, stopReason: 1 }, "`stopReason` must be a string"],
  ])("names what is wrong with %s", (_label, value, problem) => {
    expect(readSamplingResult(value)).toBe(problem);
  });
});
