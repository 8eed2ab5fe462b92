/**
 * The agent both apps drive (examples/README.md, `web-ui/`): an offline scripted model that
 * answers by what the person wrote, and three tools that show what a UI must handle.
 *
 * - "note: buy milk": `save_note` needs approval (it writes), then saves the note;
 * - "colour": `ask_colour` asks the person a question while it runs;
 * - "count slowly": `count_slowly` reports progress for ten seconds and stops when cancelled;
 * - anything else: a streamed greeting.
 *
 * The effects land in `localStorage`, where the page (and its tests) can count them.
 */

import { defineTool, type Store } from "toolwire";
import { Agent, type AgentOptions, type Message } from "toolwire/agent";
import { scriptedModel } from "toolwire/models";
import * as v from "valibot";

/** Where `save_note` keeps the notes, and `count_slowly` what happened to each count. */
export const NOTES_KEY = "web-ui-notes";
export const COUNTS_KEY = "web-ui-counts";

const readList = (key: string): string[] => JSON.parse(localStorage.getItem(key) ?? "[]");
const append = (key: string, item: string) =>
  localStorage.setItem(key, JSON.stringify([...readList(key), item]));

const saveNote = defineTool({
  name: "save_note",
  description: "Saves a note in this page",
  input: v.object({ text: v.pipe(v.string(), v.minLength(1)) }),
  call: ({ text }) => {
    append(NOTES_KEY, text);
    return `Saved note #${readList(NOTES_KEY).length}: ${text}`;
  },
});

const askColour = defineTool({
  name: "ask_colour",
  description: "Asks the person their favourite colour",
  readOnly: true,
  interactions: { text: true },
  input: v.object({}),
  call: async (_, ctx) => `Favourite colour: ${await ctx.requestText("Your favourite colour?")}`,
});

const countSlowly = defineTool({
  name: "count_slowly",
  description: "Counts to fifty, a step every 200 ms",
  readOnly: true,
  input: v.object({}),
  call: async (_, ctx) => {
    const total = 50;
    for (let step = 1; step <= total; step++) {
      ctx.progress({ progress: step, total, message: `step ${step} of ${total}` });
      try {
        await sleep(200, ctx.signal);
      } catch (error) {
        append(COUNTS_KEY, `cancelled at step ${step}`);
        throw error;
      }
    }
    append(COUNTS_KEY, "finished");
    return `Counted to ${total}.`;
  },
});

/** The tools, in the order the model is offered them. */
export const tools = [saveNote, askColour, countSlowly];

/** The scripted model: the first turn by the person's words, the next from the tool's result. */
export function notesModel() {
  return scriptedModel((request) => {
    // The person's words, else the result of the call the model made (a cancelled call's
    // result and the next message arrive together, in one user message).
    const last = request.messages.at(-1) as Message;
    const said = last.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    const result = last.content.find((block) => block.type === "tool_result");
    if (result && !said) {
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return { text: result.isError ? `Nothing done: ${text}` : `Done. ${text}` };
    }
    const note = /^note:\s*(.+)$/i.exec(said.trim());
    if (note) {
      const call = { name: "save_note", arguments: { text: note[1] } };
      return { text: "I will save that note.", toolCalls: [call], streamArguments: true };
    }
    if (/colou?r/i.test(said)) return { toolCalls: [{ name: "ask_colour", arguments: {} }] };
    if (/count/i.test(said)) return { toolCalls: [{ name: "count_slowly", arguments: {} }] };
    return {
      text: "Hello! Ask me to save a note (note: …), to ask your favourite colour, or to count slowly.",
    };
  });
}

/**
 * The agent, with the gates the store or the chat transport hands it. It keeps signed
 * snapshots, so a run waiting for the person survives a reload; the key lives in this page's
 * `localStorage`, which signs against tampering by nothing but the page itself (a server's
 * key would).
 */
export function notesAgent(gates: Pick<AgentOptions, "approver" | "onInteraction">, store?: Store) {
  return new Agent({
    model: notesModel(),
    tools,
    ...gates,
    snapshots: store ? { secret: pageSecret(), store } : { secret: pageSecret() },
  });
}

function pageSecret(): string {
  let secret = localStorage.getItem("web-ui-secret");
  if (!secret) {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    secret = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    localStorage.setItem("web-ui-secret", secret);
  }
  return secret;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}
