// Issue 23, item 2: a server's regex in a foreign schema must not block the client's event
// loop. Each scenario runs in a child process killed if it does not finish: on a vulnerable
// client `^(a+)+$` against "a" × 34 + "!" runs for minutes, and no timer in the blocked process
// could end the test. The kill is a guard against a hang, not a budget: a fixed client
// refuses the pattern before any regex runs.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const fixture = join(import.meta.dirname, "fixtures/redos-client.ts");
// Far above what the fixed client needs (a tsx start, about a second), far below the
// vulnerable match.
const KILL_AFTER_MS = 60_000;

function runScenario(scenario: string): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", fixture, scenario], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), KILL_AFTER_MS);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

describe("connectMcp with jsonSchemaValidator against a server's ReDoS pattern", () => {
  it.each([
    ["pattern", "an output schema's pattern"],
    ["patternProperties", "an output schema's patternProperties"],
    ["form", "an elicitation's schema checked against the form reply"],
    ["format", "an output schema's format url, the interpreter's own backtracking regex"],
  ])(
    "finishes the call when the pattern is in %s (%s)",
    async (scenario) => {
      const { code, stdout } = await runScenario(scenario);
      expect(code).toBe(0);
      // The check was left to the server: the call completes as the server answered it.
      expect(JSON.parse(stdout.trim())).toEqual({ done: true, isError: false });
    },
    120_000,
  );
});
