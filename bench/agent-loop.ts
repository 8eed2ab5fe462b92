// The agent loop's own cost per turn with one tool call (scripted model, no I/O), next to a
// hand-written minimal loop doing the same work in the same run: read the scripted model's
// events, call the tool function directly, append the messages.
import { pathToFileURL } from "node:url";
import { tool as aiTool, generateText, jsonSchema, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import * as v from "valibot";
import { loadAgentEntries } from "./load.ts";
import { compare, figure, interleaved, section, time } from "./report.ts";

const TURNS = 10;

/** Measures one agent turn with one tool call against a bare loop, per turn. */
export async function agentLoop(): Promise<void> {
  const { core, agent: agentEntry, models, from } = await loadAgentEntries();
  const schema = v.object({ text: v.string() });
  const echo = (text: string) => `echo ${text}`;
  const tool = core.defineTool({
    name: "echo",
    description: "Echoes",
    readOnly: true,
    input: schema,
    call: ({ text }) => echo(text),
  });
  const tools = [tool];
  const script = (_request: unknown, turn: number) =>
    turn < TURNS - 1
      ? { toolCalls: [{ name: "echo", arguments: { text: `t${turn}` } }] }
      : { text: "done" };

  const agentRun = async () => {
    const model = models.scriptedModel(script);
    const agent = new agentEntry.Agent({ model, tools });
    return (await agent.run("go").result).turns;
  };

  const bareRun = async () => {
    const model = models.scriptedModel(script);
    const messages: import("../src/models/message.ts").Message[] = [
      { role: "user", content: [{ type: "text", text: "go" }] },
    ];
    const specs = [{ name: "echo", inputSchema: { type: "object" } }];
    for (let turn = 0; ; turn++) {
      const reader = model.stream({ messages: messages.slice(), tools: specs }).getReader();
      let text = "";
      const calls: { id: string; name: string; arguments: unknown }[] = [];
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        if (read.value.type === "text_delta") text += read.value.text;
        if (read.value.type === "tool_call") calls.push(read.value);
      }
      if (calls.length === 0) return text === "" ? 0 : turn + 1;
      messages.push({
        role: "assistant",
        content: calls.map((c) => ({
          type: "tool_use",
          id: c.id,
          name: c.name,
          input: c.arguments,
        })),
      });
      const results = [];
      for (const call of calls) {
        const parsed = v.safeParse(schema, call.arguments);
        const output = parsed.success ? echo(parsed.output.text) : "invalid";
        results.push({
          type: "tool_result" as const,
          toolUseId: call.id,
          content: [{ type: "text" as const, text: output }],
          isError: !parsed.success,
        });
      }
      messages.push({ role: "user", content: results });
    }
  };

  // The Vercel AI SDK doing the same turns: a mock model asks for the tool, generateText runs it.
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const aiRun = async () => {
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        const turn = step++;
        return turn < TURNS - 1
          ? {
              content: [
                {
                  type: "tool-call" as const,
                  toolCallId: `call_${turn}`,
                  toolName: "echo",
                  input: JSON.stringify({ text: `t${turn}` }),
                },
              ],
              finishReason: { unified: "tool-calls" as const, raw: undefined },
              usage,
              warnings: [],
            }
          : {
              content: [{ type: "text" as const, text: "done" }],
              finishReason: { unified: "stop" as const, raw: undefined },
              usage,
              warnings: [],
            };
      },
    });
    const echoTool = aiTool({
      description: "Echoes",
      inputSchema: jsonSchema<{ text: string }>({
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      }),
      execute: async ({ text }) => echo(text),
    });
    const result = await generateText({
      model,
      tools: { echo: echoTool },
      stopWhen: stepCountIs(TURNS),
      prompt: "go",
    });
    return result.steps.length;
  };

  if ((await agentRun()) !== TURNS || (await bareRun()) !== TURNS || (await aiRun()) !== TURNS) {
    throw new Error("bad script");
  }
  const { peer, floor, loop } = await interleaved({ peer: aiRun, floor: bareRun, loop: agentRun });
  section(`Agent loop: per turn with one tool call (scripted model, ${TURNS}-turn runs, ${from})`);
  const per = (ns: number) => ns / TURNS;
  compare(
    "p50 per turn: Agent vs bare loop",
    time(per(loop.p50)),
    time(per(floor.p50)),
    loop.p50 / floor.p50,
  );
  compare(
    "p99 per turn: Agent vs bare loop",
    time(per(loop.p99)),
    time(per(floor.p99)),
    loop.p99 / floor.p99,
  );
  compare(
    "avg per turn: Agent vs bare loop",
    time(per(loop.avg)),
    time(per(floor.avg)),
    loop.avg / floor.avg,
  );
  figure("loop's own overhead per turn (avg difference)", time(per(loop.avg - floor.avg)));
  compare(
    "p50 per turn: AI SDK generateText vs Agent",
    time(per(peer.p50)),
    time(per(loop.p50)),
    peer.p50 / loop.p50,
    ">= 5x",
  );
  compare(
    "avg per turn: AI SDK generateText vs Agent",
    time(per(peer.avg)),
    time(per(loop.avg)),
    peer.avg / loop.avg,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await agentLoop();
