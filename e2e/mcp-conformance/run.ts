// `npm test` step: serves the conformance fixture on 127.0.0.1, runs every server scenario of
// @modelcontextprotocol/conformance against it with the expected-failures baseline, and stops
// the server. Exits with the suite's code (0: everything passed or failed as the baseline says).
import { spawn } from "node:child_process";
import { serve } from "../../src/node/index.ts";
import { conformanceHandler } from "./fixture.ts";

const baseline = new URL("expected-failures.yaml", import.meta.url).pathname;
const cli = new URL("../../node_modules/.bin/conformance", import.meta.url).pathname;
const server = await serve(conformanceHandler(), { port: 0 });
const args = ["server", "--url", `${server.url}/mcp`, "--suite", "all"];
if (!process.argv.includes("--no-baseline")) args.push("--expected-failures", baseline);
const child = spawn(cli, [...args, ...process.argv.slice(2).filter((a) => a !== "--no-baseline")], {
  stdio: "inherit",
});
const code = await new Promise<number>((resolve) => {
  child.once("close", (exit) => resolve(exit ?? 1));
  child.once("error", () => resolve(1));
});
await server.close();
process.exit(code);
