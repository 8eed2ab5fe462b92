// The model adapters in every runtime (docs/design.md, "Models"): the same bytes decode the
// same in Node, a browser, workerd and Deno, through each runtime's own fetch types, Web
// Streams and TextDecoderStream. Web standards only.
import { anthropic } from "../../src/models/anthropic.ts";
import type { ModelEvent } from "../../src/models/model.ts";
import { openAICompatible } from "../../src/models/openai-compatible.ts";
import { assert, assertEqual, type PortableCase } from "./harness.ts";

const encoder = new TextEncoder();

/** A `fetch` that answers each request with the next response and records the bodies. */
function fakeFetch(responses: (() => Response)[]) {
  const bodies: unknown[] = [];
  const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
    bodies.push(JSON.parse(String(init?.body)));
    const next = responses.shift();
    if (!next) throw new Error("no response left");
    return next();
  };
  return { fetch: fetch as typeof globalThis.fetch, bodies };
}

/** An event stream cut every 5 bytes, so frames and characters split across reads. */
function sse(text: string): Response {
  const bytes = encoder.encode(text);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + 5));
      at += 5;
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function events(stream: ReadableStream<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) out.push(read.value);
  return out;
}

const request = {
  messages: [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }],
  tools: [{ name: "get", inputSchema: { type: "object" } }],
};
const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

export const cases: PortableCase[] = [
  {
    name: "openAICompatible retries a 429 after its hint, then decodes reasoning, text and calls",
    async run() {
      const { fetch, bodies } = fakeFetch([
        () =>
          new Response(JSON.stringify({ error: { message: "slow down" } }), {
            status: 429,
            headers: { "content-type": "application/json", "retry-after-ms": "1" },
          }),
        () =>
          sse(
            chunk({ reasoning_content: "think ☕" }) +
              chunk({ content: "Hé" }) +
              chunk({
                tool_calls: [{ index: 0, id: "a", function: { name: "get", arguments: "{}" } }],
              }) +
              chunk({
                tool_calls: [{ index: 0, id: "b", function: { name: "get", arguments: "{}" } }],
              }) +
              chunk({}, "tool_calls") +
              "data: [DONE]\n\n",
          ),
      ]);
      const model = openAICompatible({ baseURL: "http://x/v1", model: "m", fetch });
      const out = await events(model.stream(request));
      assertEqual(
        out.map((e) => e.type),
        [
          "retry",
          "reasoning_delta",
          "text_delta",
          "tool_input_delta",
          "tool_input_delta",
          "reasoning",
          "tool_call",
          "tool_call",
          "finish",
        ],
      );
      assertEqual(out[2], { type: "text_delta", text: "Hé" });
      assertEqual(bodies.length, 2);
    },
  },
  {
    name: "anthropic keeps a thinking block's signature and sends it back",
    async run() {
      const frame = (data: { type: string }) =>
        `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
      const { fetch, bodies } = fakeFetch([
        () =>
          sse(
            frame({ type: "message_start", message: { usage: { input_tokens: 1 } } } as never) +
              frame({
                type: "content_block_start",
                index: 0,
                content_block: { type: "thinking", thinking: "" },
              } as never) +
              frame({
                type: "content_block_delta",
                index: 0,
                delta: { type: "thinking_delta", thinking: "hm" },
              } as never) +
              frame({
                type: "content_block_delta",
                index: 0,
                delta: { type: "signature_delta", signature: "S" },
              } as never) +
              frame({ type: "content_block_stop", index: 0 } as never) +
              frame({ type: "message_delta", delta: { stop_reason: "end_turn" } } as never) +
              frame({ type: "message_stop" }),
          ),
        () => sse(frame({ type: "message_stop" })),
      ]);
      const model = anthropic({ apiKey: "k-test", model: "c", fetch, thinkingBudget: 1024 });
      const out = await events(model.stream(request));
      const block = out.find((e) => e.type === "reasoning");
      assert(block?.type === "reasoning", "a reasoning block");
      await events(
        model.stream({
          ...request,
          messages: [...request.messages, { role: "assistant", content: [block.block] }],
        }),
      );
      const sent = bodies[1] as { messages: { content: unknown[] }[] };
      assertEqual(sent.messages[1]?.content, [
        { type: "thinking", thinking: "hm", signature: "S" },
      ]);
    },
  },
];
