import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLIENT_HEADERS, fixtureHandler, nestedText, post, rpc, streamEvents } from "./fixture.ts";

const URL_ = "http://127.0.0.1:3000/mcp";
const DOCUMENTED_STATUSES = new Set([200, 202, 400, 404, 413]);

const methods = fc.constantFrom(
  "initialize",
  "ping",
  "tools/list",
  "tools/call",
  "logging/setLevel",
  "notifications/cancelled",
  "notifications/initialized",
  "resources/list",
  "",
);

const valid = fc.constantFrom<unknown>(
  rpc(1, "ping"),
  rpc("a", "tools/list", { cursor: "x" }),
  rpc(2, "tools/call", { name: "echo", arguments: { message: "m" } }),
  rpc(3, "tools/call", { name: "add", arguments: { a: 1, b: 2 } }),
  rpc(4, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "x" },
  }),
  rpc(5, "logging/setLevel", { level: "info" }),
  { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } },
  { jsonrpc: "2.0", id: 6, result: { action: "accept" } },
);

// A valid message with one field replaced, removed, or added.
const mutated = fc
  .tuple(
    valid,
    fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error", "name", "arguments"),
    fc.jsonValue(),
    fc.boolean(),
  )
  .map(([message, key, value, remove]) => {
    const copy = structuredClone(message) as Record<string, unknown>;
    const target =
      (key === "name" || key === "arguments") && typeof copy.params === "object" && copy.params
        ? (copy.params as Record<string, unknown>)
        : copy;
    if (remove) delete target[key];
    else target[key] = value;
    return JSON.stringify(copy);
  });

const shaped = fc
  .record(
    {
      jsonrpc: fc.oneof(fc.constant("2.0"), fc.jsonValue()),
      id: fc.jsonValue(),
      method: methods,
      params: fc.jsonValue(),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

const bodies = fc.oneof(
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.string(),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => bytes),
  mutated,
  shaped,
);

function isJsonRpcAnswer(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return false;
  if ("result" in message) return typeof message.id === "string" || typeof message.id === "number";
  const error = message.error as Record<string, unknown> | undefined;
  return (
    typeof error === "object" &&
    error !== null &&
    Number.isInteger(error.code) &&
    typeof error.message === "string" &&
    (message.id === null || typeof message.id === "string" || typeof message.id === "number")
  );
}

describe("fuzzing the handler", () => {
  it("answers every random or mutated message with a JSON-RPC message or a documented status", async () => {
    const { handler } = fixtureHandler();
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await handler.fetch(
          new Request(URL_, { method: "POST", headers: CLIENT_HEADERS, body }),
        );
        expect(DOCUMENTED_STATUSES.has(response.status)).toBe(true);
        const text = await response.text();
        if (response.status === 202) {
          expect(text).toBe("");
          return;
        }
        const type = response.headers.get("content-type");
        const payloads =
          type === "text/event-stream"
            ? text
                .split("\n")
                // An empty payload is a resumable stream's priming event, not a message.
                .filter((l) => l.startsWith("data: ") && l !== "data: ")
                .map((l) => l.slice(6))
            : [text];
        for (const payload of payloads) expect(isJsonRpcAnswer(JSON.parse(payload))).toBe(true);
      }),
      { numRuns: 3000 },
    );
    const after = await handler.fetch(
      new Request(URL_, {
        method: "POST",
        headers: CLIENT_HEADERS,
        body: JSON.stringify(
          rpc(99, "tools/call", { name: "echo", arguments: { message: "still here" } }),
        ),
      }),
    );
    expect(await after.json()).toMatchObject({
      id: 99,
      result: { content: [{ text: "echo: still here" }] },
    });
  }, 120_000);

  it("answers random headers and methods without a 500", async () => {
    const { handler } = fixtureHandler({ sessions: "memory" });
    const headerName = fc.constantFrom(
      "content-type",
      "accept",
      "mcp-protocol-version",
      "mcp-session-id",
      "origin",
      "host",
      "content-length",
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("POST", "GET", "DELETE", "OPTIONS", "PUT"),
        fc.dictionary(headerName, fc.string({ unit: "grapheme-ascii", maxLength: 30 })),
        async (method, headers) => {
          let request: Request;
          try {
            request = new Request(URL_, {
              method,
              headers: { ...CLIENT_HEADERS, ...headers },
              body:
                method === "GET" || method === "OPTIONS" ? null : JSON.stringify(rpc(1, "ping")),
            });
          } catch {
            return; // the Request constructor itself refused these headers
          }
          const response = await handler.fetch(request);
          expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps sessions, calls and pending questions consistent under random traffic from two callers", async () => {
    let resolvedQuestions = 0;
    let refusedStrangers = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 24 }), async (actions) => {
        const world = new World();
        for (const step of actions) await world.apply(step);
        await world.finish();
        resolvedQuestions += world.resolved;
        refusedStrangers += world.refused;
      }),
      { numRuns: 150 },
    );
    // The traffic reached the deep states: answers matched pending questions, and other
    // identities were turned away from live sessions.
    expect(resolvedQuestions).toBeGreaterThan(0);
    expect(refusedStrangers).toBeGreaterThan(0);
  }, 120_000);
});

// Issue 23 (5): arguments nested up to the 1 MiB body cap, in either era, as arrays, objects or
// both, beside strings full of brackets and quotes; nesting within `maxJsonDepth` is served.
describe("fuzzing argument depth", () => {
  const MODERN = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const shape = fc.array(fc.constantFrom("[", "{"), { minLength: 1, maxLength: 12 });
  const noise = fc.string({ unit: fc.constantFrom("[", "]", "{", "}", '"', "\\", "a", "\n") });
  const id = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.string({ maxLength: 8 }));

  const request = (era: "2025" | "2026", body: string) =>
    new Request(URL_, {
      method: "POST",
      headers: {
        ...CLIENT_HEADERS,
        ...(era === "2026"
          ? { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" }
          : {}),
      },
      body,
    });
  const deepBody = (era: "2025" | "2026", callId: number | string, text: string, levels: string) =>
    nestedText(
      rpc(callId, "tools/call", {
        name: "echo",
        arguments: { message: "<deep>", noise: text },
        ...(era === "2026" ? { _meta: MODERN } : {}),
      }),
      levels,
    );

  it("refuses nesting past the limit, up to 200,000 levels, 400 with the request's own id", async () => {
    const errors: unknown[] = [];
    const { handler } = fixtureHandler({ onError: (error) => errors.push(error) });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<"2025" | "2026">("2025", "2026"),
        id,
        shape,
        fc.integer({ min: 126, max: 200_000 }),
        noise,
        async (era, callId, pattern, levels, text) => {
          // An object level takes 6 bytes, an array level 2: stay under the 1 MiB body cap.
          const fits = Math.min(levels, pattern.includes("{") ? 170_000 : 200_000);
          const kinds = pattern
            .join("")
            .repeat(Math.ceil(fits / pattern.length))
            .slice(0, fits);
          const body = deepBody(era, callId, text, kinds);
          expect(body.length).toBeLessThan(1024 * 1024);
          const response = await handler.fetch(request(era, body));
          expect(response.status).toBe(400);
          expect(await response.json()).toMatchObject({ id: callId, error: { code: -32602 } });
        },
      ),
      { numRuns: 15, examples: [["2026", 7, ["["], 200_000, ""]] },
    );
    expect(errors).toEqual([]);
  }, 120_000);

  it("serves nesting within the limit, brackets in strings not counted", async () => {
    const { handler } = fixtureHandler();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<"2025" | "2026">("2025", "2026"),
        id,
        shape,
        fc.integer({ min: 1, max: 125 }),
        noise,
        async (era, callId, pattern, levels, text) => {
          const kinds = pattern
            .join("")
            .repeat(Math.ceil(levels / pattern.length))
            .slice(0, levels);
          const response = await handler.fetch(request(era, deepBody(era, callId, text, kinds)));
          expect(response.status).toBe(200);
          // echo wants a string: an isError result for the call's own id.
          expect(await response.json()).toMatchObject({ id: callId, result: { isError: true } });
        },
      ),
      { numRuns: 200 },
    );
  });
});

const WHO = ["alice", "bob"] as const;

type Action =
  | { type: "initialize"; who: number; elicit: boolean }
  | { type: "ask"; session: number }
  | { type: "answer"; question: number; from: number; reply: unknown }
  | { type: "cancel"; question: number; from: number }
  | { type: "ping"; session: number; who: number }
  | { type: "noise"; session: number; body: string }
  | { type: "delete"; session: number; who: number };

const reply = fc.oneof(
  fc.record({ action: fc.constant("accept"), content: fc.record({ name: fc.string() }) }),
  fc.record({ action: fc.constantFrom("decline", "cancel") }),
  fc.record({ action: fc.constant("accept"), content: fc.jsonValue() }),
  fc.constant({ error: { code: -1, message: "no" } }),
  fc.jsonValue().map((value) => ({ garbage: value })),
);

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ type: fc.constant("initialize"), who: fc.nat(1), elicit: fc.boolean() }),
  fc.record({ type: fc.constant("ask"), session: fc.nat(7) }),
  fc.record({ type: fc.constant("ask"), session: fc.nat(7) }),
  fc.record({
    type: fc.constant("answer"),
    question: fc.nat(7),
    from: fc.nat(7),
    reply,
  }),
  fc.record({ type: fc.constant("cancel"), question: fc.nat(7), from: fc.nat(7) }),
  fc.record({ type: fc.constant("ping"), session: fc.nat(7), who: fc.nat(1) }),
  fc.record({
    type: fc.constant("noise"),
    session: fc.nat(7),
    body: bodies as fc.Arbitrary<string>,
  }),
  fc.record({ type: fc.constant("delete"), session: fc.nat(7), who: fc.nat(1) }),
) as fc.Arbitrary<Action>;

interface LiveSession {
  id: string;
  who: number;
  elicit: boolean;
  open: boolean;
}

interface Question {
  session: LiveSession;
  callId: number;
  questionId: string;
  events: AsyncGenerator<Record<string, unknown>>;
  settled: boolean;
}

/** One handler with sessions and a model of what it should hold. */
class World {
  readonly handler = fixtureHandler({
    sessions: "memory",
    interactionPolicy: "elicit",
    authorize: (request) => ({ subject: request.headers.get("authorization") ?? "" }),
  }).handler;
  readonly sessions: LiveSession[] = [];
  readonly questions: Question[] = [];
  resolved = 0;
  refused = 0;
  #nextId = 1000;

  async apply(step: Action): Promise<void> {
    switch (step.type) {
      case "initialize": {
        const capabilities = step.elicit ? { elicitation: {} } : {};
        const response = await this.#post(
          rpc(this.#nextId++, "initialize", { protocolVersion: "2025-11-25", capabilities }),
          step.who,
        );
        expect(response.status).toBe(200);
        await response.text();
        const id = response.headers.get("mcp-session-id") as string;
        this.sessions.push({ id, who: step.who, elicit: step.elicit, open: true });
        return;
      }
      case "ask": {
        const session = this.#pick(this.sessions, step.session);
        if (!session?.open) return;
        const callId = this.#nextId++;
        const response = await this.#post(
          rpc(callId, "tools/call", { name: "ask", arguments: {} }),
          session.who,
          session.id,
        );
        expect(response.status).toBe(200);
        if (!session.elicit) {
          // The client did not declare elicitation: the tool is told so at once.
          expect(await response.json()).toMatchObject({ id: callId, result: {} });
          return;
        }
        const events = streamEvents(response);
        const first = (await events.next()).value as Record<string, unknown>;
        expect(first).toMatchObject({ method: "elicitation/create" });
        const questionId = first.id as string;
        this.questions.push({ session, callId, questionId, events, settled: false });
        return;
      }
      case "answer": {
        const question = this.#pick(this.questions, step.question);
        const from = this.#pick(this.sessions, step.from);
        if (!question || !from?.open) return;
        const body = { jsonrpc: "2.0", id: question.questionId, ...this.#replyBody(step.reply) };
        const response = await this.#post(body, from.who, from.id);
        await response.text();
        const mine = from === question.session && !question.settled && question.session.open;
        if ("garbage" in (step.reply as object)) {
          expect([202, 400]).toContain(response.status);
          // Any object `result` is a well-formed response: the asker takes it as a malformed
          // answer, which cancels the question (S11), and the call then finishes.
          const { garbage } = step.reply as { garbage: unknown };
          const wellFormed =
            typeof garbage === "object" && garbage !== null && !Array.isArray(garbage);
          if (!wellFormed || !mine) return;
          expect(response.status).toBe(202);
          question.settled = true;
          const last = (await question.events.next()).value as Record<string, unknown>;
          expect(last).toMatchObject({ id: question.callId });
          return;
        }
        expect(response.status).toBe(202);
        if (!mine) return;
        // Answered from the session that was asked: the call finishes with this request's id.
        question.settled = true;
        const last = (await question.events.next()).value as Record<string, unknown>;
        expect(last).toMatchObject({ id: question.callId });
        this.resolved++;
        return;
      }
      case "cancel": {
        const question = this.#pick(this.questions, step.question);
        const from = this.#pick(this.sessions, step.from);
        if (!question || !from?.open) return;
        const note = {
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: question.callId },
        };
        const response = await this.#post(note, from.who, from.id);
        expect(response.status).toBe(202);
        if (from !== question.session || question.settled) return;
        // A cancelled call's stream ends without a response.
        question.settled = true;
        expect((await question.events.next()).done).toBe(true);
        return;
      }
      case "ping": {
        const session = this.#pick(this.sessions, step.session);
        if (!session) return;
        const response = await this.#post(rpc(this.#nextId++, "ping"), step.who, session.id);
        const owner = session.open && session.who === step.who;
        expect(response.status).toBe(owner ? 200 : 404);
        if (!owner && session.open) this.refused++;
        await response.text();
        return;
      }
      case "noise": {
        const session = this.#pick(this.sessions, step.session);
        if (!session?.open) return;
        const response = await this.handler.fetch(
          new Request(URL_, {
            method: "POST",
            headers: { ...this.#headers(session.who, session.id) },
            body: step.body,
          }),
        );
        expect(DOCUMENTED_STATUSES.has(response.status)).toBe(true);
        // A random message may be a tools/call that streams; reading it must end.
        await response.text();
        return;
      }
      case "delete": {
        const session = this.#pick(this.sessions, step.session);
        if (!session) return;
        const response = await this.handler.fetch(
          new Request(URL_, { method: "DELETE", headers: this.#headers(step.who, session.id) }),
        );
        const owner = session.open && session.who === step.who;
        expect(response.status).toBe(owner ? 204 : 404);
        if (owner) {
          session.open = false;
          // Its pending calls are cancelled: their streams end.
          for (const question of this.questions) {
            if (question.session !== session || question.settled) continue;
            question.settled = true;
            expect((await question.events.next()).done).toBe(true);
          }
        } else if (session.open) this.refused++;
        return;
      }
    }
  }

  /** Ends every session; every stream must then end, and the handler still answers. */
  async finish(): Promise<void> {
    for (const session of this.sessions) {
      if (session.open)
        await this.apply({
          type: "delete",
          session: this.sessions.indexOf(session),
          who: session.who,
        });
    }
    const fresh = await this.handler.fetch(
      post(rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {} }), {
        authorization: "alice",
      }),
    );
    expect(fresh.status).toBe(200);
  }

  #replyBody(value: unknown): Record<string, unknown> {
    const record = value as Record<string, unknown>;
    if ("garbage" in record) return { result: record.garbage };
    if ("error" in record) return { error: record.error };
    return { result: record };
  }

  #pick<T>(list: T[], index: number): T | undefined {
    return list.length === 0 ? undefined : list[index % list.length];
  }

  #headers(who: number, session: string): Record<string, string> {
    return { ...CLIENT_HEADERS, authorization: WHO[who] ?? "alice", "mcp-session-id": session };
  }

  #post(body: unknown, who: number, session?: string): Promise<Response> {
    const headers: Record<string, string> = { authorization: WHO[who] ?? "alice" };
    if (session !== undefined) headers["mcp-session-id"] = session;
    return this.handler.fetch(post(body, headers));
  }
}
