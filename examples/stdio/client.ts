/**
 * Starts server.ts as a desktop client would (a child process speaking MCP over stdio), lists
 * its tools and calls one. `npm start` runs it.
 */
import { fileURLToPath } from "node:url";
import { connectStdio } from "toolwire/node";

const calc = await connectStdio({
  // The Node running this file, with tsx loaded, so server.ts needs no build step.
  command: process.execPath,
  args: ["--import", "tsx", fileURLToPath(new URL("server.ts", import.meta.url))],
  namespace: "calc",
});
try {
  console.log((await calc.listTools()).map((tool) => tool.name)); // ["calc__add"]
  console.log((await calc.call("calc__add", { a: 1, b: 2 })).structuredContent); // {"sum": 3}
} finally {
  await calc.shutdown();
}
