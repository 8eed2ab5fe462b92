/**
 * An agent on Node with a real provider: any OpenAI-compatible endpoint, the key from the
 * environment (never from the code). `npm start` with, for example:
 *
 *   OPENAI_API_KEY=sk-… npm start                                     # OpenAI
 *   OPENAI_BASE_URL=http://127.0.0.1:11434/v1 MODEL=qwen3 npm start   # Ollama, no key
 *
 * The answer streams to stdout; the tools it may call are a calculator (read-only, so it needs
 * no approval) and a note writer, which asks you on the terminal first.
 */
import { createInterface } from "node:readline/promises";
import { defineTool } from "toolwire";
import { Agent, type Approver } from "toolwire/agent";
import { openAICompatible } from "toolwire/models";
import * as v from "valibot";

const add = defineTool({
  name: "add",
  description: "Adds two numbers",
  readOnly: true,
  input: v.object({ a: v.number(), b: v.number() }),
  call: ({ a, b }) => ({ sum: a + b }),
});
const notes: string[] = [];
const saveNote = defineTool({
  name: "save_note",
  description: "Saves a note for later",
  input: v.object({ text: v.string() }),
  call: ({ text }) => {
    notes.push(text);
    return "saved";
  },
});

// A tool that is not read-only runs only once someone says yes (no TTY: refused).
const approver: Approver = async (request) => {
  if (!process.stdin.isTTY) return { type: "deny", reason: "nobody to ask" };
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await terminal.question(`Run ${request.toolName}? [y/N] `);
  terminal.close();
  return answer.trim().toLowerCase() === "y" ? { type: "allow" } : { type: "deny", reason: "no" };
};

const agent = new Agent({
  model: openAICompatible({
    baseURL: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    // No key: no Authorization header (local servers need none).
    ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
    model: process.env.MODEL ?? "gpt-4.1-mini",
  }),
  tools: [add, saveNote],
  approver,
  instructions: "Use the add tool for arithmetic.",
});

const question = process.argv[2] ?? "What is 2 + 3?";
const run = agent.run(question);
for await (const event of run) {
  if (event.type === "text_delta") process.stdout.write(event.text);
  if (event.type === "tool_result") process.stderr.write(`[${event.toolName}: ${event.outcome}]\n`);
}
const result = await run.result;
process.stdout.write("\n");
if (result.stop === "error") process.exitCode = 1;
console.log(result.stop); // "done"
