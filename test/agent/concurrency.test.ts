import * as v from "valibot";
import { describe, expect, test } from "vitest";
import { runConcurrently } from "../../src/agent/concurrency.ts";
import { Agent, type Concurrency, modeApprover } from "../../src/agent/index.ts";
import { defineTool } from "../../src/index.ts";
import { scriptedModel } from "../../src/models/scripted-model.ts";
import { caught } from "../support/caught.ts";

interface Recorder {
  log: string[];
  maxActive: number;
}

function tools(recorder: Recorder) {
  let active = 0;
  const make = (name: string, readOnly: boolean) =>
    defineTool({
      name,
      description: name,
      readOnly,
      input: v.object({}),
      call: async () => {
        active += 1;
        recorder.maxActive = Math.max(recorder.maxActive, active);
        recorder.log.push(`start ${name}`);
        // Hint: a macrotask, so every call that may overlap this one has started meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 0));
        recorder.log.push(`end ${name}`);
        active -= 1;
        return name;
      },
    });
  return [
    make("r1", true),
    make("r2", true),
    make("r3", true),
    make("r4", true),
    make("w1", false),
    make("w2", false),
    make("w3", false),
  ];
}

async function runTurn(names: string[], concurrency?: Concurrency): Promise<Recorder> {
  const recorder: Recorder = { log: [], maxActive: 0 };
  const model = scriptedModel([
    { toolCalls: names.map((name) => ({ name, arguments: {} })) },
    { text: "ok" },
  ]);
  const agent = new Agent({
    model,
    tools: tools(recorder),
    approver: modeApprover("allow"),
    ...(concurrency === undefined ? {} : { concurrency }),
  });
  const result = await agent.run("go").result;
  expect(result.stop).toBe("done");
  return recorder;
}

describe("concurrency policy", () => {
  test("runs the read-only calls of a turn in parallel by default", async () => {
    const { log, maxActive } = await runTurn(["r1", "r2", "r3"]);
    expect(maxActive).toBe(3);
    expect(log.slice(0, 3)).toEqual(["start r1", "start r2", "start r3"]);
  });

  test("runs writing calls strictly one at a time, in call order", async () => {
    const { log, maxActive } = await runTurn(["w2", "w1", "w3"]);
    expect(maxActive).toBe(1);
    expect(log).toEqual(["start w2", "end w2", "start w1", "end w1", "start w3", "end w3"]);
  });

  test("a write waits for earlier reads, and later reads wait for it", async () => {
    const { log } = await runTurn(["r1", "r2", "w1", "r3"]);
    expect(log.slice(0, 2)).toEqual(["start r1", "start r2"]);
    expect(log.slice(4)).toEqual(["start w1", "end w1", "start r3", "end r3"]);
  });

  test("a number caps how many read-only calls run at once", async () => {
    const { log, maxActive } = await runTurn(["r1", "r2", "r3", "r4"], 2);
    expect(maxActive).toBe(2);
    expect(log.filter((line) => line.startsWith("end"))).toHaveLength(4);
  });

  test("sequential runs every call alone, in call order", async () => {
    const { log, maxActive } = await runTurn(["r2", "r1", "w1"], "sequential");
    expect(maxActive).toBe(1);
    expect(log).toEqual(["start r2", "end r2", "start r1", "end r1", "start w1", "end w1"]);
  });

  test("rejects a concurrency that is not a positive integer", async () => {
    const model = scriptedModel([]);
    for (const concurrency of [0, 1.5, -1]) {
      const error = await caught(() => new Agent({ model, concurrency }));
      expect(error.type).toBe("invalid_configuration");
    }
  });
});

describe("runConcurrently", () => {
  test("runs a lone job, read-only or not, once, and returns its result in a list", async () => {
    for (const readOnly of [true, false]) {
      let runs = 0;
      const job = { readOnly, run: async () => ++runs };
      expect(await runConcurrently([job], Number.POSITIVE_INFINITY)).toEqual([1]);
      expect(runs).toBe(1);
    }
    expect(await runConcurrently([], 1)).toEqual([]);
  });

  test("returns results in job order whatever order they finish in", async () => {
    const jobs = [30, 10, 20].map((delay, index) => ({
      readOnly: true,
      run: () => new Promise<number>((resolve) => setTimeout(() => resolve(index), delay)),
    }));
    expect(await runConcurrently(jobs, Number.POSITIVE_INFINITY)).toEqual([0, 1, 2]);
  });
});
