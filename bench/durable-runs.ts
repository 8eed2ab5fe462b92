// Runs that pause and resume (docs/design.md A9, A10): a 100-turn run, one call a turn, whose
// last call waits for an approval. Printed beside a plain run of the same turns in the same
// run: the same run keeping snapshots (a signed checkpoint before each call starts and after it
// ends), the snapshot's size when it pauses, the time `pause()` takes to hand it back and
// `resume()` to finish the run from it on a fresh agent. The same runs at 4× the turns show how
// the cost grows: each checkpoint signs only what changed since the last one, so the ratio to
// the plain run stays flat (it grew with the turns while every checkpoint signed the whole
// conversation); a run kept in a store also writes the whole snapshot's JSON at each
// checkpoint, which still grows with the conversation. Then what an agent without `snapshots` pays for their existence: a plain run
// before and after the snapshot module was loaded.
//
// Run: `npm run bench` (or `npx tsx bench/durable-runs.ts` after `npm run build`).
import { pathToFileURL } from "node:url";
import * as v from "valibot";
import { loadAgentEntries } from "./load.ts";
import { compare, figure, interleaved, section, time } from "./report.ts";

type AgentEntry = typeof import("../src/agent/index.ts");

const TURNS = 100;
const SECRET = "a-bench-secret-of-at-least-32-characters";

/** Prints the durable-run figures. */
export async function durableRuns(): Promise<void> {
  const { core, agent: entry, models } = await loadAgentEntries();
  section(`Durable runs: a ${TURNS}-turn run, one call a turn, the last one waiting for approval`);
  const note = core.defineTool({
    name: "note",
    description: "Notes a line",
    readOnly: true,
    input: v.object({ line: v.string() }),
    call: ({ line }) => `noted ${line}`,
  });
  const pay = core.defineTool({
    name: "pay",
    description: "Pays an amount",
    input: v.object({ amount: v.number() }),
    call: ({ amount }) => `paid ${amount}`,
  });
  const tools = [note, pay];
  // Decides from the transcript alone, so a fresh agent continues a resumed run.
  const model = (turns = TURNS) =>
    models.scriptedModel((request) => {
      const turn = request.messages.filter((message) => message.role === "assistant").length;
      if (turn < turns - 1) {
        return { toolCalls: [{ name: "note", arguments: { line: `line ${turn}` } }] };
      }
      return turn === turns - 1
        ? { toolCalls: [{ id: "pay-1", name: "pay", arguments: { amount: 7 } }] }
        : { text: "done" };
    });
  const allow = entry.modeApprover("allow");
  const plainRun = async (turns = TURNS) => {
    const agent = new entry.Agent({
      model: model(turns),
      tools,
      approver: allow,
      maxTurns: turns + 1,
    });
    return (await agent.run("go").result).turns;
  };
  const keptRun = async (turns = TURNS) => {
    const agent = new entry.Agent({
      model: model(turns),
      tools,
      approver: allow,
      maxTurns: turns + 1,
      snapshots: { secret: SECRET },
    });
    return (await agent.run("go", { onCheckpoint: () => {} }).result).turns;
  };
  // The same kept in a store (in memory): each checkpoint is also a compare-and-set of the
  // whole snapshot's JSON, which still grows with the conversation.
  const storedRun = async (turns = TURNS) => {
    const agent = new entry.Agent({
      model: model(turns),
      tools,
      approver: allow,
      maxTurns: turns + 1,
      snapshots: { secret: SECRET, store: core.memoryStore() },
    });
    return (await agent.run("go").result).turns;
  };

  // A run that never pauses, before anything loaded the snapshot module (it loads on the first
  // run of an agent with `snapshots`).
  const before = await interleaved({ plain: () => plainRun() }, 3);
  await keptRun();
  const runs = await interleaved(
    { plain: () => plainRun(), kept: () => keptRun(), stored: () => storedRun() },
    3,
  );
  const ratio = runs.kept.p50 / runs.plain.p50;
  compare("run with snapshots, p50", time(runs.kept.p50), time(runs.plain.p50), ratio);
  const storedRatio = runs.stored.p50 / runs.plain.p50;
  compare(
    "the same, kept in a memory store, p50",
    time(runs.stored.p50),
    time(runs.plain.p50),
    storedRatio,
  );
  const longer = await interleaved(
    {
      plain: () => plainRun(4 * TURNS),
      kept: () => keptRun(4 * TURNS),
      stored: () => storedRun(4 * TURNS),
    },
    3,
  );
  compare(
    `run with snapshots, ${4 * TURNS} turns, p50`,
    time(longer.kept.p50),
    time(longer.plain.p50),
    longer.kept.p50 / longer.plain.p50,
    `≈ ${ratio.toFixed(1)}x: linear`,
  );
  compare(
    `the same, kept in a memory store, ${4 * TURNS} turns`,
    time(longer.stored.p50),
    time(longer.plain.p50),
    longer.stored.p50 / longer.plain.p50,
    `≈ ${storedRatio.toFixed(1)}x: linear`,
  );

  // Pausing at the approval, and resuming from the snapshot on another agent.
  const pauses: number[] = [];
  const resumes: number[] = [];
  let bytes = 0;
  for (let round = 0; round < 15; round++) {
    let run: ReturnType<InstanceType<AgentEntry["Agent"]>["run"]> | undefined;
    let asked = 0;
    const pausing = new entry.Agent({
      model: model(),
      tools,
      maxTurns: TURNS + 1,
      snapshots: { secret: SECRET },
      approver: (_request, signal) => {
        asked = performance.now();
        run?.pause();
        return new Promise((_resolve, reject) => signal.addEventListener("abort", reject));
      },
    });
    run = pausing.run("go");
    const paused = await run.result;
    pauses.push(performance.now() - asked);
    const text = JSON.stringify(paused.snapshot);
    bytes = text.length;
    const later = new entry.Agent({
      model: model(),
      tools,
      maxTurns: TURNS + 1,
      snapshots: { secret: SECRET },
    });
    const started = performance.now();
    const resumed = await later.resume(JSON.parse(text), {
      decisions: { "pay-1": { type: "allow" } },
    }).result;
    resumes.push(performance.now() - started);
    if (resumed.stop !== "done") throw new Error(`the resumed run ended ${resumed.stop}`);
  }
  const median = (values: number[]) =>
    (values.sort((a, b) => a - b)[Math.floor(values.length / 2)] as number) * 1e6;
  figure("snapshot at the pause (JSON)", `${(bytes / 1024).toFixed(1)} KB`);
  compare(
    "pause(): approval → paused result, median",
    time(median(pauses)),
    time(runs.plain.p50),
    median(pauses) / runs.plain.p50,
  );
  compare(
    "resume(): snapshot → done, median",
    time(median(resumes)),
    time(runs.plain.p50),
    median(resumes) / runs.plain.p50,
  );
  console.log(`  (baseline: the plain ${TURNS}-turn run, p50)`);

  // No cost to a run that never pauses: the same plain run once the module is loaded.
  const after = await interleaved({ plain: () => plainRun() }, 3);
  compare(
    "plain run, snapshot module loaded / not, p50",
    time(after.plain.p50),
    time(before.plain.p50),
    after.plain.p50 / before.plain.p50,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await durableRuns();
