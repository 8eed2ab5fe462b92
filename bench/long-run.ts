// A 10,000-turn agent run with compaction (docs/design.md, "Compaction", C5-C7): a scripted
// model ticks one item of a rolling 20-item todo list per turn, so the carried state changes
// every turn, under `thresholdTokens: 3000, keepRecent: 6` and the extractive summariser. At
// 1k, 2k, 5k and 10k turns it prints the compactions so far, message 0 and the whole
// transcript (characters), the time of the last 1,000 turns and the heap after a GC, each next
// to the same figure at 1k turns in the same run: flat cost and bounded memory mean ratios
// near 1.
//
// Run: `npx tsx bench/long-run.ts`.
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as v from "valibot";
import { loadAgentEntries } from "./load.ts";
import { compare, figure, section } from "./report.ts";

type Message = import("../src/agent/index.ts").Message;

const TURNS = 10_000;
const CHECKPOINTS = [1_000, 2_000, 5_000, 10_000];
const THRESHOLD = 3_000;
const OPEN_ITEMS = 20;

interface Checkpoint {
  turn: number;
  compactions: number;
  summaries: number;
  folds: number;
  headChars: number;
  transcriptChars: number;
  msPer1k: number;
  heapMb: number;
}

/** `global.gc` when node runs with `--expose-gc`, else the same function exposed at run time. */
function collector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

const chars = (messages: readonly Message[]) => JSON.stringify(messages).length;

type Loaded = Awaited<ReturnType<typeof loadAgentEntries>>;

/** Runs the 10,000-turn agent (after a 3,000-turn warm-up) and prints its checkpoints. */
export async function longRun(): Promise<void> {
  const loaded = await loadAgentEntries();
  // A first, unmeasured 3,000-turn run warms the JIT, so the 1k window is not mostly compilation.
  await scenario(loaded, 3_000, []);
  const { checkpoints, stop, turns, largest } = await scenario(loaded, TURNS, CHECKPOINTS);
  print(checkpoints, `${stop}, ${turns} turns`, largest);
}

async function scenario(
  { core, agent: entry, models }: Loaded,
  turns: number,
  at: readonly number[],
): Promise<{ checkpoints: Checkpoint[]; stop: string; turns: number; largest: number }> {
  const gc = collector();
  const items: { id: number; done: boolean }[] = [];
  let next = 1;
  const body = () =>
    items.map((item) => `${item.done ? "[x]" : "[ ]"} ${item.id}. migrate module m${item.id}`);
  const todo = core.defineTool({
    name: "todo",
    description: "Completes an item and plans the next one",
    input: v.object({ complete: v.number() }),
    carriedState: () => ({ label: "todo", body: body().join("\n") }),
    call: ({ complete }) => {
      const item = items.find((i) => i.id === complete);
      if (item) item.done = true;
      items.push({ id: next++, done: false });
      while (items.length > OPEN_ITEMS) items.shift();
      return body().join("\n");
    },
  });
  for (let i = 0; i < OPEN_ITEMS; i++) items.push({ id: next++, done: false });

  const checkpoints: Checkpoint[] = [];
  let compactions = 0;
  let summaries = 0;
  let folds = 0;
  let windowStart = performance.now();
  let largest = 0;
  const model = models.scriptedModel((request, n) => {
    // The scripted model records every request for tests; emptied here so the heap figures
    // are toolwire's own.
    (model.requests as unknown[]).length = 0;
    const tokens = Math.ceil(chars(request.messages) / 4) + 200;
    largest = Math.max(largest, tokens);
    const usage = { inputTokens: tokens, outputTokens: 20 };
    if (at.includes(n)) {
      const now = performance.now();
      const msPer1k = (now - windowStart) / ((n - (checkpoints.at(-1)?.turn ?? 0)) / 1000);
      gc();
      const heapMb = process.memoryUsage().heapUsed / 2 ** 20;
      checkpoints.push({
        turn: n,
        compactions,
        summaries,
        folds,
        headChars: chars(request.messages.slice(0, 1)),
        transcriptChars: chars(request.messages),
        msPer1k,
        heapMb,
      });
      // The window restarts after the GC and the bookkeeping, so neither is timed.
      windowStart = performance.now();
    }
    if (n >= turns) return { text: "done", usage };
    const open = items.find((i) => !i.done);
    return {
      text: `Step ${n}: ticking item ${open?.id}.`,
      toolCalls: [{ name: "todo", arguments: { complete: open?.id ?? 0 } }],
      usage,
    };
  });
  const agent = new entry.Agent({
    model,
    tools: [todo],
    approver: entry.modeApprover("allow"),
    maxTurns: turns + 1,
    compaction: {
      thresholdTokens: THRESHOLD,
      keepRecent: 6,
      summarizer: entry.extractiveSummarizer(),
    },
  });
  const run = agent.run("TASK: migrate every module, one per turn, ticking the todo list.");
  for await (const event of run) {
    if (event.type !== "compacted") continue;
    compactions++;
    if (event.summarized) summaries++;
    if (event.folded) folds++;
  }
  const result = await run.result;
  return { checkpoints, stop: result.stop, turns: result.turns, largest };
}

function print(checkpoints: readonly Checkpoint[], stop: string, largest: number): void {
  section(
    `long run — ${TURNS.toLocaleString()} agent turns with compaction (threshold ${THRESHOLD})`,
  );
  figure("stop", stop);
  // A compaction runs once a prompt reaches the threshold, so the largest is one turn past it.
  compare(
    "largest prompt, tokens (est.) vs threshold",
    String(largest),
    String(THRESHOLD),
    largest / THRESHOLD,
    "< 1x, predicted",
  );
  const first = checkpoints[0] as Checkpoint;
  for (const c of checkpoints) {
    const at = `${c.turn / 1000}k`;
    figure(
      `${at}: compactions / summaries / folds`,
      `${c.compactions} / ${c.summaries} / ${c.folds}`,
    );
    figure(`${at}: message 0 / transcript chars`, `${c.headChars} / ${c.transcriptChars}`);
    compare(
      `${at}: ms per 1,000 turns`,
      c.msPer1k.toFixed(0),
      first.msPer1k.toFixed(0),
      c.msPer1k / first.msPer1k,
      "≤ 1.10x",
    );
    compare(
      `${at}: heap after GC, MB`,
      c.heapMb.toFixed(1),
      first.heapMb.toFixed(1),
      c.heapMb / first.heapMb,
      "≤ 1.10x",
    );
  }
}

// `bench/index.ts` imports and calls `longRun`; run directly, the file runs itself.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await longRun();
