// A stand-in for WebLLM's engine, typed against `@mlc-ai/web-llm`'s own `MLCEngineInterface`:
// `reload` reports init progress the way WebLLM words it, `chat.completions.create` streams
// OpenAI chunks (tool calls, for its Hermes models, arrive in the last chunk), and
// `interruptGenerate` ends a running generation with `finish_reason: "abort"`. No GPU and no
// download: what the model says is scripted.
import type { MLCEngineInterface } from "@mlc-ai/web-llm";
// The package's index re-exports its protocol types through extensionless paths, which
// NodeNext resolution does not follow; the file itself is the same type.
import type { ChatCompletionChunk } from "@mlc-ai/web-llm/lib/openai_api_protocols/chat_completion.js";
import type { WebLlmEngine } from "../../src/in-browser/index.ts";

type InitProgress = Parameters<WebLlmEngine["setInitProgressCallback"]>[0];

type Script = (
  request: Record<string, unknown>,
  call: number,
) => { text?: string[]; toolCalls?: Array<{ name: string; arguments: object }> };

/** Creates a stand-in engine; `requests` records every chat request. */
export function webLlmStandIn(script: Script) {
  const requests: Array<Record<string, unknown>> = [];
  const reloads: string[] = [];
  let interrupted = false;
  let interrupts = 0;
  let progress: InitProgress | undefined;
  const chunk = (
    delta: ChatCompletionChunk["choices"][number]["delta"],
    finish: string | null,
    usage?: object,
  ): ChatCompletionChunk =>
    ({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 0,
      model: reloads.at(-1) ?? "",
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
      ...(usage ? { usage } : {}),
    }) as ChatCompletionChunk;
  const engine = {
    setInitProgressCallback: (callback: InitProgress) => {
      progress = callback;
    },
    reload: (async (modelId: string | string[]) => {
      reloads.push(String(modelId));
      for (const [p, text] of [
        [0, "Start to fetch params"],
        [0.5, "Fetching param cache[10/20]: 300MB fetched. 50% completed, 3 secs elapsed."],
        [1, "Loading model from cache[20/20]: 600MB loaded. 100% completed, 4 secs elapsed."],
        [1, "Finish loading on WebGPU - swiftshader"],
      ] as const) {
        progress?.({ progress: p, timeElapsed: 1, text });
      }
    }) satisfies MLCEngineInterface["reload"],
    interruptGenerate: (() => {
      interrupted = true;
      interrupts++;
    }) satisfies MLCEngineInterface["interruptGenerate"],
    unload: (async () => {}) satisfies MLCEngineInterface["unload"],
    chat: {
      completions: {
        create: async (
          request: Record<string, unknown>,
        ): Promise<AsyncIterable<ChatCompletionChunk>> => {
          requests.push(request);
          interrupted = false;
          const turn = script(request, requests.length - 1);
          async function* chunks(): AsyncGenerator<ChatCompletionChunk> {
            for (const text of turn.text ?? []) {
              await new Promise((resolve) => setTimeout(resolve, 1));
              if (interrupted) {
                yield chunk({}, "abort");
                return;
              }
              yield chunk({ content: text }, null);
            }
            const calls = turn.toolCalls ?? [];
            const toolCalls = calls.map((c, index) => ({
              index,
              id: `call_${index}`,
              type: "function" as const,
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            }));
            yield chunk(
              calls.length ? { tool_calls: toolCalls } : {},
              calls.length ? "tool_calls" : "stop",
            );
            yield {
              ...chunk({}, null),
              choices: [],
              usage: {
                prompt_tokens: 12,
                completion_tokens: 5,
                total_tokens: 17,
                extra: {
                  e2e_latency_s: 0.5,
                  prefill_tokens_per_s: 100,
                  decode_tokens_per_s: 20,
                  time_to_first_token_s: 0.1,
                  time_per_output_token_s: 0.05,
                },
              },
            } as ChatCompletionChunk;
          }
          return chunks();
        },
      },
    },
  } satisfies WebLlmEngine;
  return { engine, requests, reloads, interrupts: () => interrupts };
}
