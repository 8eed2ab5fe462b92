// `npm run bench`: every figure next to a baseline measured in the same run, as a ratio,
// because these machines are noisy. Figures, not assertions: budgets live in the tests.
import { agentLoop } from "./agent-loop.ts";
import { bundleSizes } from "./bundle-size.ts";
import { callOverhead } from "./call-overhead.ts";
import { coldStarts } from "./cold-start.ts";
import { benchCompaction } from "./compaction.ts";
import { durableRuns } from "./durable-runs.ts";
import { edgeCpu } from "./edge-cpu.ts";
import { longRun } from "./long-run.ts";
import { mcpRoundTrip } from "./mcp-round-trip.ts";
import { scale } from "./scale.ts";
import { serving } from "./serving.ts";

console.log(`toolwire bench — node ${process.version}, ${new Date().toISOString()}`);
await callOverhead();
await scale();
await mcpRoundTrip();
await serving();
await edgeCpu();
await agentLoop();
await durableRuns();
await benchCompaction();
await longRun();
await bundleSizes();
await coldStarts();
