// The transport under the AI SDK's own client: `AbstractChat` (what `useChat` in React, Vue,
// Svelte and Angular wraps) of AI SDK 6 and of AI SDK 7, with the options a user leaves out
// left out, driving a real toolwire agent over a scripted model.
import {
  AbstractChat as AbstractChat6,
  type ChatState as ChatState6,
  type ChatTransport as ChatTransport6,
  readUIMessageStream,
  type UIMessage as UIMessage6,
  type UIMessageChunk,
} from "ai";
import {
  AbstractChat as AbstractChat7,
  type ChatTransport as ChatTransport7,
  type UIMessage as UIMessage7,
} from "ai-7";
import * as v from "valibot";
import { describe, expect, test, vi } from "vitest";
import { Agent } from "../../src/agent/agent.ts";
import {
  type AgentChatMessage,
  type AgentChatTransport,
  agentChatTransport,
  approvalAnswered,
} from "../../src/ai-sdk/chat-transport.ts";
import { defineTool } from "../../src/local/define-tool.ts";
import { type ScriptedTurns, scriptedModel } from "../../src/models/scripted-model.ts";
import { memoryStore } from "../../src/store/store.ts";

type Status = "submitted" | "streaming" | "ready" | "error";

/** The chat state a framework keeps (React's, Vue's refs…): here plain arrays, with a log. */
class ArrayState<M extends { id: string }> {
  status: Status = "ready";
  error: Error | undefined = undefined;
  messages: M[] = [];
  /** Every assistant message as it was written, to see what streamed on the way. */
  readonly written: M[] = [];
  pushMessage = (message: M) => {
    this.messages = [...this.messages, message];
    this.written.push(structuredClone(message));
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: M) => {
    this.messages = this.messages.map((m, i) => (i === index ? message : m));
    this.written.push(structuredClone(message));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** What the tests use of a chat, the same in both majors. */
interface TestChat {
  readonly messages: AgentChatMessage[];
  readonly status: Status;
  readonly error: Error | undefined;
  readonly written: AgentChatMessage[];
  sendMessage(message: { text: string }): Promise<void>;
  addToolApprovalResponse(answer: {
    id: string;
    approved: boolean;
    reason?: string;
  }): void | PromiseLike<void>;
  stop(): Promise<void>;
}

class Chat6 extends AbstractChat6<UIMessage6> {
  readonly #state: ArrayState<UIMessage6>;
  constructor(transport: ChatTransport6<UIMessage6>, messages: UIMessage6[] = []) {
    const state = new ArrayState<UIMessage6>();
    state.messages = messages;
    // The state's shape is the AI SDK's `ChatState`; checked here for AI SDK 6.
    const checked: ChatState6<UIMessage6> = state;
    super({ transport, state: checked, sendAutomaticallyWhen: approvalAnswered });
    this.#state = state;
  }
  get written() {
    return this.#state.written;
  }
}

class Chat7 extends AbstractChat7<UIMessage7> {
  readonly #state: ArrayState<UIMessage7>;
  constructor(transport: ChatTransport7<UIMessage7>, messages: UIMessage7[] = []) {
    const state = new ArrayState<UIMessage7>();
    state.messages = messages;
    super({ transport, state, sendAutomaticallyWhen: approvalAnswered });
    this.#state = state;
  }
  get written() {
    return this.#state.written;
  }
}

/** Makes a chat over `transport`, starting from saved messages (a reloaded page's). */
type NewChat = (transport: AgentChatTransport, messages?: AgentChatMessage[]) => TestChat;

const majors: [string, NewChat][] = [
  ["AI SDK 6", (transport, messages) => new Chat6(transport, messages as UIMessage6[])],
  ["AI SDK 7", (transport, messages) => new Chat7(transport, messages as UIMessage7[])],
];

const write = (log: string[]) =>
  defineTool({
    name: "write",
    description: "Writes a file",
    input: v.object({ path: v.string(), text: v.string() }),
    call: ({ path }) => {
      log.push(path);
      return `wrote ${path}`;
    },
  });

function setup(turns: ScriptedTurns, tools = [write([])]) {
  const model = scriptedModel(turns);
  const transport = agentChatTransport({
    agent: (gates) => new Agent({ model, tools, ...gates }),
  });
  return { model, transport };
}

function assistant(chat: TestChat): AgentChatMessage {
  const last = chat.messages.at(-1);
  expect(last?.role).toBe("assistant");
  return last as AgentChatMessage;
}

/** The assistant message's parts, without the step markers. */
function parts(chat: TestChat): Record<string, unknown>[] {
  return assistant(chat).parts.filter(
    (part): part is Record<string, unknown> => (part as { type: string }).type !== "step-start",
  );
}

const settled = (chat: TestChat, status: Status = "ready") =>
  vi.waitFor(() => expect(chat.status).toBe(status));

describe.each(majors)("the agent chat transport under %s's Chat", (_, newChat) => {
  test("a message streams reasoning and text into one assistant message", async () => {
    const { transport } = setup([
      { reasoning: "The user greets me", text: "Hello there, how can I help?" },
    ]);
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Hi" });
    expect(chat.status).toBe("ready");
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(parts(chat)).toMatchObject([
      { type: "reasoning", text: "The user greets me", state: "done" },
      { type: "text", text: "Hello there, how can I help?", state: "done" },
    ]);
    // It streamed: the text grew over several writes before it was done.
    const texts = chat.written.flatMap((m) =>
      m.parts.flatMap((p) =>
        (p as { type: string }).type === "text" ? [(p as { text: string }).text] : [],
      ),
    );
    expect(new Set(texts).size).toBeGreaterThan(2);
  });

  test("the next message continues the same conversation", async () => {
    const { model, transport } = setup([{ text: "I am Ada." }, { text: "You asked my name." }]);
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Who are you?" });
    await chat.sendMessage({ text: "What did I ask?" });
    expect(parts(chat)).toMatchObject([{ type: "text", text: "You asked my name." }]);
    expect(model.requests[1]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Who are you?" }] },
      { role: "assistant", content: [{ type: "text", text: "I am Ada." }] },
      { role: "user", content: [{ type: "text", text: "What did I ask?" }] },
    ]);
  });

  test("a call that needs approval waits for the chat; approved, it runs once and the run goes on", async () => {
    const log: string[] = [];
    const { model, transport } = setup(
      [
        {
          streamArguments: true,
          toolCalls: [
            { id: "w1", name: "write", arguments: { path: "notes.txt", text: "a long text" } },
          ],
        },
        { text: "Saved." },
      ],
      [write(log)],
    );
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Save my notes" });
    expect(chat.status).toBe("ready");
    const [call] = parts(chat);
    expect(call).toMatchObject({
      type: "tool-write",
      toolCallId: "w1",
      state: "approval-requested",
      input: { path: "notes.txt", text: "a long text" },
      approval: { id: expect.any(String) },
    });
    expect(log).toEqual([]);
    // The arguments streamed in as the model wrote them.
    expect(
      chat.written.some((m) =>
        m.parts.some((p) => (p as { state?: string }).state === "input-streaming"),
      ),
    ).toBe(true);

    await chat.addToolApprovalResponse({
      id: (call?.approval as { id: string } | undefined)?.id ?? "none",
      approved: true,
    });
    await vi.waitFor(() =>
      expect(parts(chat).at(-1)).toMatchObject({ type: "text", text: "Saved." }),
    );
    await settled(chat);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(parts(chat)[0]).toMatchObject({ state: "output-available", output: "wrote notes.txt" });
    expect(log).toEqual(["notes.txt"]);
    expect(model.requests[1]?.messages.at(-1)?.content).toEqual([
      {
        type: "tool_result",
        toolUseId: "w1",
        content: [{ type: "text", text: "wrote notes.txt" }],
        isError: false,
      },
    ]);
  });

  test("a denied call does not run; the model reads the user's reason", async () => {
    const log: string[] = [];
    const { model, transport } = setup(
      [
        { toolCalls: [{ name: "write", arguments: { path: "x", text: "y" } }] },
        { text: "Understood." },
      ],
      [write(log)],
    );
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Write x" });
    const approval = parts(chat)[0]?.approval as { id: string };
    await chat.addToolApprovalResponse({ id: approval.id, approved: false, reason: "not today" });
    await vi.waitFor(() => expect(parts(chat).at(-1)).toMatchObject({ text: "Understood." }));
    await settled(chat);
    expect(parts(chat)[0]).toMatchObject({ type: "tool-write", state: "output-denied" });
    expect(log).toEqual([]);
    expect(JSON.stringify(model.requests[1]?.messages.at(-1))).toContain(
      "Denied by the user: not today",
    );
  });

  test("two calls of one turn are put to the chat one after the other, each answer resuming the run", async () => {
    const log: string[] = [];
    const { transport } = setup(
      [
        {
          toolCalls: [
            { name: "write", arguments: { path: "a", text: "1" } },
            { name: "write", arguments: { path: "b", text: "2" } },
          ],
        },
        { text: "Both written." },
      ],
      [write(log)],
    );
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Write a and b" });
    const approvalOf = (index: number) => {
      const part = parts(chat)[index];
      expect(part).toMatchObject({ state: "approval-requested" });
      return (part?.approval as { id: string } | undefined)?.id ?? "none";
    };
    await chat.addToolApprovalResponse({ id: approvalOf(0), approved: true });
    await vi.waitFor(() => expect(parts(chat)[1]).toMatchObject({ state: "approval-requested" }));
    await settled(chat);
    expect(log).toEqual([]);
    await chat.addToolApprovalResponse({ id: approvalOf(1), approved: true });
    await vi.waitFor(() => expect(parts(chat).at(-1)).toMatchObject({ text: "Both written." }));
    await settled(chat);
    expect(log).toEqual(["a", "b"]);
    expect(chat.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  test("a new message instead of an answer cancels the waiting call and is answered", async () => {
    const log: string[] = [];
    const { transport } = setup(
      [
        { toolCalls: [{ name: "write", arguments: { path: "x", text: "y" } }] },
        { text: "Fine, no file." },
      ],
      [write(log)],
    );
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Write x" });
    await chat.sendMessage({ text: "Never mind" });
    expect(parts(chat)).toMatchObject([{ type: "text", text: "Fine, no file." }]);
    expect(log).toEqual([]);
  });

  test("stop() cancels the run: the running tool's signal aborts, and the chat goes on", async () => {
    let started = false;
    let aborted = false;
    const wait = defineTool({
      name: "wait",
      description: "Waits",
      readOnly: true,
      input: v.object({}),
      call: (_, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          started = true;
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(signal.reason);
          });
        }),
    });
    const { model, transport } = setup(
      [{ toolCalls: [{ name: "wait", arguments: {} }] }, { text: "Back again." }],
      [wait],
    );
    const chat = newChat(transport);
    const sending = chat.sendMessage({ text: "Wait" });
    await vi.waitFor(() => expect(started).toBe(true));
    await chat.stop();
    await sending;
    await vi.waitFor(() => expect(aborted).toBe(true));
    expect(chat.status).toBe("ready");
    await chat.sendMessage({ text: "Hello?" });
    expect(parts(chat)).toMatchObject([{ type: "text", text: "Back again." }]);
    expect(model.requests).toHaveLength(2);
  });

  test("a running tool's progress is one data part, updated in place", async () => {
    const count = defineTool({
      name: "count",
      description: "Counts to three",
      readOnly: true,
      input: v.object({}),
      call: (_, ctx) => {
        for (let n = 1; n <= 3; n++) ctx.progress({ progress: n, total: 3, message: `${n} of 3` });
        return "counted";
      },
    });
    const { transport } = setup(
      [{ toolCalls: [{ id: "k1", name: "count", arguments: {} }] }, { text: "Done." }],
      [count],
    );
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Count" });
    const progress = parts(chat).filter((part) => part.type === "data-tool-progress");
    expect(progress).toEqual([
      {
        type: "data-tool-progress",
        id: "k1",
        data: { toolCallId: "k1", progress: 3, total: 3, message: "3 of 3" },
      },
    ]);
    // It was written as it went: the chat saw the first step before the last.
    const seen = chat.written.flatMap((m) =>
      m.parts.flatMap((p) =>
        (p as { type: string }).type === "data-tool-progress"
          ? [(p as { data: { progress: number } }).data.progress]
          : [],
      ),
    );
    expect(seen).toContain(1);
  });

  test("a running tool's question waits in a data part; the answer reaches the tool and the model", async () => {
    const ask = defineTool({
      name: "ask",
      description: "Asks the user",
      readOnly: true,
      interactions: { text: true },
      input: v.object({}),
      call: async (_, ctx) => `The user said: ${await ctx.requestText("Your favourite colour?")}`,
    });
    const { model, transport } = setup(
      [{ toolCalls: [{ id: "q1", name: "ask", arguments: {} }] }, { text: "Blue it is." }],
      [ask],
    );
    const chat = newChat(transport);
    const sending = chat.sendMessage({ text: "Ask me" });
    await vi.waitFor(() =>
      expect(parts(chat).find((part) => part.type === "data-tool-question")).toMatchObject({
        id: "q1",
        data: {
          toolCallId: "q1",
          toolName: "ask",
          state: "asked",
          request: { kind: { type: "text" }, prompt: "Your favourite colour?" },
        },
      }),
    );
    expect(chat.status).toBe("streaming");
    expect(() => transport.answer("nope", "red")).toThrow(
      expect.objectContaining({ data: expect.objectContaining({ type: "invalid_interaction" }) }),
    );
    transport.answer("q1", "blue");
    await sending;
    expect(parts(chat)).toMatchObject([
      { type: "tool-ask", state: "output-available", output: "The user said: blue" },
      { type: "data-tool-question", id: "q1", data: { state: "answered" } },
      { type: "text", text: "Blue it is." },
    ]);
    expect(model.requests).toHaveLength(2);
  });

  test("a declined question: the tool goes on without the answer, and the part says declined", async () => {
    const ask = defineTool({
      name: "ask",
      description: "Asks the user",
      readOnly: true,
      interactions: { text: true },
      input: v.object({}),
      call: async (_, ctx) => {
        try {
          return `said ${await ctx.requestText("Your name?")}`;
        } catch {
          return "no name given";
        }
      },
    });
    const { transport } = setup(
      [{ toolCalls: [{ id: "q2", name: "ask", arguments: {} }] }, { text: "Fine." }],
      [ask],
    );
    const chat = newChat(transport);
    const sending = chat.sendMessage({ text: "Ask me" });
    await vi.waitFor(() =>
      expect(parts(chat).some((part) => part.type === "data-tool-question")).toBe(true),
    );
    transport.decline("q2", "rather not");
    await sending;
    expect(parts(chat)).toMatchObject([
      { type: "tool-ask", state: "output-available", output: "no name given" },
      { type: "data-tool-question", id: "q2", data: { state: "declined" } },
      { type: "text", text: "Fine." },
    ]);
    expect(() => transport.decline("q2")).toThrow(
      expect.objectContaining({ data: expect.objectContaining({ type: "invalid_interaction" }) }),
    );
  });

  test("after a reload, an approval answered in the saved messages resumes the run from the store: the call runs once", async () => {
    const log: string[] = [];
    const store = memoryStore();
    const snapshots = { secret: "s".repeat(32), store };
    const turns: ScriptedTurns = [
      { toolCalls: [{ id: "w1", name: "write", arguments: { path: "a.txt", text: "x" } }] },
      { text: "Saved." },
    ];
    const page = (model = scriptedModel(turns)) => ({
      model,
      transport: agentChatTransport({
        agent: (gates) => new Agent({ model, tools: [write(log)], snapshots, ...gates }),
      }),
    });
    const first = newChat(page().transport);
    await first.sendMessage({ text: "Save it" });
    expect(parts(first)[0]).toMatchObject({ state: "approval-requested" });
    const runId = (assistant(first).metadata as { toolwireRunId?: string }).toolwireRunId;
    expect(runId).toEqual(expect.any(String));

    // The page reloads: a new agent and transport, the chat's messages as the app saved them.
    const saved = structuredClone(first.messages);
    const second = page(scriptedModel(turns.slice(1)));
    const chat = newChat(second.transport, saved);
    const [call] = parts(chat);
    await chat.addToolApprovalResponse({
      id: (call?.approval as { id: string } | undefined)?.id ?? "none",
      approved: true,
    });
    await vi.waitFor(() =>
      expect(parts(chat).at(-1)).toMatchObject({ type: "text", text: "Saved." }),
    );
    await settled(chat);
    expect(parts(chat)[0]).toMatchObject({ state: "output-available", output: "wrote a.txt" });
    expect(log).toEqual(["a.txt"]);
    expect(second.model.requests[0]?.messages.at(-1)?.content).toMatchObject([
      { type: "tool_result", toolUseId: "w1", isError: false },
    ]);

    // The same answer sent again (another tab with the same saved messages) runs nothing.
    const third = newChat(page(scriptedModel(turns.slice(1))).transport, saved);
    const [again] = parts(third);
    await third.addToolApprovalResponse({
      id: (again?.approval as { id: string } | undefined)?.id ?? "none",
      approved: true,
    });
    await settled(third, "error");
    expect(third.error?.message).toMatch(/snapshot refused/);
    expect(log).toEqual(["a.txt"]);
  });

  test("a failing model turn puts the chat in error with the model's message", async () => {
    const { transport } = setup([
      {
        text: "Partial",
        error: { type: "stream", provider: "scripted", message: "connection reset" },
      },
    ]);
    const chat = newChat(transport);
    await chat.sendMessage({ text: "Hi" });
    expect(chat.status).toBe("error");
    expect(chat.error?.message).toContain("connection reset");
  });
});

describe("the agent chat transport's stream", () => {
  test("is the AI SDK's ChatTransport and reads as UI message chunks", async () => {
    const { transport } = setup([{ text: "Hello there" }]);
    const six: ChatTransport6<UIMessage6> = transport;
    const seven: ChatTransport7<UIMessage7> = transport;
    expect(six).toBe(seven);
    const stream = (await transport.sendMessages({
      trigger: "submit-message",
      chatId: "c",
      messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Hi" }] }],
      abortSignal: undefined,
    })) as ReadableStream<UIMessageChunk>;
    let last: UIMessage6 | undefined;
    for await (const message of readUIMessageStream({ stream, terminateOnError: true }))
      last = message;
    expect(last?.parts).toMatchObject([
      { type: "step-start" },
      { type: "text", text: "Hello there" },
    ]);
    expect(await transport.reconnectToStream({ chatId: "c" })).toBeNull();
  });

  test("a history the agent did not produce is rebuilt from the messages' text and tool parts", async () => {
    const { model, transport } = setup([{ text: "It was 5." }]);
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "restored",
      messageId: undefined,
      messages: [
        { id: "u1", role: "user", parts: [{ type: "text", text: "Add 2 and 3" }] },
        {
          id: "a1",
          role: "assistant",
          parts: [
            { type: "step-start" },
            {
              type: "tool-add",
              toolCallId: "c1",
              state: "output-available",
              input: { a: 2, b: 3 },
              output: "5",
            },
            { type: "step-start" },
            { type: "text", text: "5", state: "done" },
          ],
        },
        { id: "u2", role: "user", parts: [{ type: "text", text: "What was it?" }] },
      ],
      abortSignal: undefined,
    });
    for await (const _ of stream) {
      // drained
    }
    expect(model.requests[0]?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Add 2 and 3" }] },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "c1", name: "add", input: { a: 2, b: 3 } }],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: "c1",
            content: [{ type: "text", text: "5" }],
            isError: false,
          },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "5" }] },
      { role: "user", content: [{ type: "text", text: "What was it?" }] },
    ]);
  });

  test("aborting the request's signal cancels the run, and the stream ends with abort", async () => {
    let aborted = false;
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const wait = defineTool({
      name: "wait",
      description: "Waits",
      readOnly: true,
      input: v.object({}),
      call: (_, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          started();
          signal.addEventListener("abort", () => {
            aborted = true;
            reject(signal.reason);
          });
        }),
    });
    const { transport } = setup([{ toolCalls: [{ name: "wait", arguments: {} }] }], [wait]);
    const request = new AbortController();
    const stream = await transport.sendMessages({
      trigger: "submit-message",
      chatId: "c",
      messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Wait" }] }],
      abortSignal: request.signal,
    });
    const chunks: string[] = [];
    for await (const chunk of stream) {
      chunks.push(chunk.type);
      if (chunk.type === "tool-input-available") {
        await running;
        request.abort();
      }
    }
    expect(aborted).toBe(true);
    expect(chunks.slice(-3)).toEqual(["tool-output-error", "finish-step", "abort"]);
  });

  test("misuse is a typed error: nothing to answer", async () => {
    const { transport } = setup([]);
    await expect(
      transport.sendMessages({
        trigger: "submit-message",
        chatId: "c",
        messageId: undefined,
        messages: [],
        abortSignal: undefined,
      }),
    ).rejects.toMatchObject({ data: { type: "invalid_configuration" } });
  });
});
