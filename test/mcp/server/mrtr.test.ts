// Questions without sessions (2026-07-28): a tool's question becomes `input_required`, the retry
// with `inputResponses` and the signed `requestState` resumes it by running the tool again, on
// any handler sharing the secret; bad answers and bad state are -32602, a capability the request
// did not declare is -32021, and nothing waits on the server for a client that never retries.
import { describe, expect, it } from "vitest";
import type { McpHandler } from "../../../src/mcp/index.ts";
import { fixtureHandler } from "./fixture.ts";
import { json, META_SERVER_INFO, modern } from "./modern.ts";

const SECRET = "a-test-secret-of-at-least-32-characters";
const FORM = { elicitation: {} };

async function call(
  handler: McpHandler,
  id: number,
  name: string,
  extra: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = FORM,
  args: Record<string, unknown> = {},
) {
  const response = await handler.fetch(
    modern(id, "tools/call", { name, arguments: args, ...extra }, { capabilities }),
  );
  return { status: response.status, body: await json(response) };
}

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

describe("a question as input_required", () => {
  it("asks with an elicitation/create under a key, and the retry completes with the answer", async () => {
    const { handler } = fixtureHandler({ stateSecret: SECRET });
    const first = await call(handler, 1, "ask");
    expect(first.status).toBe(200);
    const result = first.body.result;
    expect(result).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        q0: {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "Your name?",
            requestedSchema: { type: "object", properties: { name: { type: "string" } } },
          },
        },
      },
    });
    expect(typeof result.requestState).toBe("string");
    expect(result).not.toHaveProperty("ttlMs");
    expect(result._meta[META_SERVER_INFO]).toBeDefined();
    const retry = await call(handler, 2, "ask", {
      inputResponses: { q0: accept({ name: "Ada" }) },
      requestState: result.requestState,
    });
    expect(retry.body).toMatchObject({
      id: 2,
      result: { resultType: "complete", content: [{ type: "text", text: "Hello Ada" }] },
    });
  });

  it("hands a declined question to the tool as a refusal", async () => {
    const { handler } = fixtureHandler();
    const first = (await call(handler, 1, "ask")).body.result;
    const retry = await call(handler, 2, "ask", {
      inputResponses: { q0: { action: "decline" } },
      requestState: first.requestState,
    });
    expect(retry.body.result.content[0].text).toMatch(/^no name: /);
  });

  it("answers a text question from the form's text field", async () => {
    const { handler } = fixtureHandler();
    const first = (await call(handler, 1, "ask_text")).body.result;
    expect(first.inputRequests.q0.params.requestedSchema.required).toEqual(["text"]);
    const retry = await call(handler, 2, "ask_text", {
      inputResponses: { q0: accept({ text: "hi" }) },
      requestState: first.requestState,
    });
    expect(retry.body.result.content).toEqual([{ type: "text", text: "got hi" }]);
  });

  it("asks for sampling with sampling/createMessage and completes with the model's reply", async () => {
    const { handler } = fixtureHandler();
    const sampling = { sampling: {} };
    const first = (await call(handler, 1, "sample", {}, sampling, { prompt: "Hi" })).body.result;
    expect(first.inputRequests.q0).toMatchObject({
      method: "sampling/createMessage",
      params: {
        maxTokens: 50,
        messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
      },
    });
    const reply = { role: "assistant", content: { type: "text", text: "Hello" }, model: "m" };
    const retry = await call(
      handler,
      2,
      "sample",
      { inputResponses: { q0: reply }, requestState: first.requestState },
      sampling,
      { prompt: "Hi" },
    );
    expect(retry.body.result.content[0].text).toBe("m said Hello (no reason)");
  });

  it("carries earlier answers in the state: each round asks the next question with a new state", async () => {
    const { handler } = fixtureHandler();
    const one = (await call(handler, 1, "two_questions")).body.result;
    expect(Object.keys(one.inputRequests)).toEqual(["q0"]);
    const two = (
      await call(handler, 2, "two_questions", {
        inputResponses: { q0: accept({ name: "Ada" }) },
        requestState: one.requestState,
      })
    ).body.result;
    expect(two.resultType).toBe("input_required");
    expect(Object.keys(two.inputRequests)).toEqual(["q1"]);
    expect(two.requestState).not.toBe(one.requestState);
    const three = await call(handler, 3, "two_questions", {
      inputResponses: { q1: accept({ color: "blue" }) },
      requestState: two.requestState,
    });
    expect(three.body.result.content).toEqual([{ type: "text", text: "Ada likes blue" }]);
  });

  it("asks again for a missing answer, ignores unknown keys, and takes answers without state", async () => {
    const { handler } = fixtureHandler();
    const wrong = await call(handler, 1, "ask", { inputResponses: { other: accept({ x: 1 }) } });
    expect(wrong.body.result).toMatchObject({ resultType: "input_required" });
    const extra = await call(handler, 2, "ask", {
      inputResponses: { q0: accept({ name: "Bo" }), unknown: accept({ y: 2 }) },
    });
    expect(extra.body.result.content).toEqual([{ type: "text", text: "Hello Bo" }]);
  });

  it("keeps nothing for a client that never retries: the call's slot is free at once", async () => {
    const { handler } = fixtureHandler({ maxInFlightCalls: 1 });
    for (let id = 1; id <= 3; id++) {
      expect((await call(handler, id, "ask")).body.result.resultType).toBe("input_required");
    }
  });
});

describe("what is refused", () => {
  it("answers -32021 (HTTP 400) when the request did not declare the capability a question needs", async () => {
    const { handler } = fixtureHandler();
    for (const capabilities of [{}, { elicitation: { url: {} } }, { sampling: {} }]) {
      const response = await call(handler, 1, "ask", {}, capabilities);
      expect(response).toEqual({
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: 1,
          error: expect.objectContaining({
            code: -32021,
            data: { requiredCapabilities: { elicitation: { form: {} } } },
          }),
        },
      });
    }
    const sampling = await call(handler, 2, "sample", {}, FORM, { prompt: "x" });
    expect(sampling.status).toBe(400);
    expect(sampling.body.error.data).toEqual({ requiredCapabilities: { sampling: {} } });
  });

  it("answers -32602 to malformed inputResponses and to an answer that is not one", async () => {
    const { handler } = fixtureHandler();
    for (const inputResponses of ["yes", null, { q0: 12345 }, { q0: { action: "maybe" } }]) {
      const response = await call(handler, 1, "ask", { inputResponses });
      expect(response.body).toMatchObject({ id: 1, error: { code: -32602 } });
    }
  });

  it("answers -32602 to tampered state, state for other arguments or another tool, and expired state", async () => {
    const { handler } = fixtureHandler({ requestStateTtlMs: 50 });
    const first = (await call(handler, 1, "ask")).body.result;
    const answer = { q0: accept({ name: "Ada" }) };
    const refused = async (
      name: string,
      requestState: unknown,
      args: Record<string, unknown> = {},
    ) => {
      const response = await call(
        handler,
        2,
        name,
        { inputResponses: answer, requestState },
        FORM,
        args,
      );
      expect(response.body).toMatchObject({ id: 2, error: { code: -32602 } });
    };
    await refused("ask", `${first.requestState}-TAMPERED`);
    await refused(
      "ask",
      first.requestState.replace(/^./, (c: string) => (c === "a" ? "b" : "a")),
    );
    await refused("ask", 42);
    await refused("ask", first.requestState, { extra: 1 });
    await refused("ask_text", first.requestState);
    await new Promise((resolve) => setTimeout(resolve, 80));
    await refused("ask", first.requestState);
  });

  it("binds the state to the caller: another identity's state is -32602", async () => {
    const { handler } = fixtureHandler({
      authorize: (request) => ({ subject: request.headers.get("x-user") ?? "anonymous" }),
    });
    const as = (user: string, id: number, extra: Record<string, unknown> = {}) =>
      handler
        .fetch(
          modern(
            id,
            "tools/call",
            { name: "ask", arguments: {}, ...extra },
            {
              capabilities: FORM,
              headers: { "x-user": user },
            },
          ),
        )
        .then(json);
    const first = (await as("alice", 1)).result;
    const retry = {
      inputResponses: { q0: accept({ name: "Eve" }) },
      requestState: first.requestState,
    };
    expect(await as("mallory", 2, retry)).toMatchObject({ error: { code: -32602 } });
    expect((await as("alice", 3, retry)).result.content[0].text).toBe("Hello Eve");
  });
});

describe("across instances", () => {
  it("completes on another handler that shares the secret, and not on one with its own key", async () => {
    const asking = fixtureHandler({ stateSecret: SECRET }).handler;
    const sharing = fixtureHandler({ stateSecret: SECRET }).handler;
    const stranger = fixtureHandler().handler;
    const first = (await call(asking, 1, "ask")).body.result;
    const retry = {
      inputResponses: { q0: accept({ name: "Ada" }) },
      requestState: first.requestState,
    };
    expect((await call(sharing, 2, "ask", retry)).body.result.content[0].text).toBe("Hello Ada");
    expect((await call(stranger, 3, "ask", retry)).body).toMatchObject({ error: { code: -32602 } });
  });

  it("names questions with questionKey", async () => {
    const { handler } = fixtureHandler({ questionKey: (question) => `key:${question.prompt}` });
    const first = (await call(handler, 1, "ask")).body.result;
    expect(Object.keys(first.inputRequests)).toEqual(["key:Your name?"]);
  });
});
