import * as v from "valibot";
import { loadCore } from "./load.ts";
import { compare, interleaved, section, time } from "./report.ts";

/** Measures `toolset.call` against `v.safeParse` + the bare function, p50 and p99. */
export async function callOverhead(): Promise<void> {
  const { defineTool, Toolset } = await loadCore();
  const schema = v.object({ a: v.number(), b: v.number() });
  const add = defineTool({
    name: "add",
    description: "Adds",
    readOnly: true,
    input: schema,
    call: ({ a, b }) => String(a + b),
  });
  const tools = Toolset.local([add]);
  const bare = async (args: unknown) => {
    const parsed = v.safeParse(schema, args);
    if (!parsed.success) throw new Error("invalid");
    return String(parsed.output.a + parsed.output.b);
  };
  const { floor, call } = await interleaved({
    floor: () => bare({ a: 1, b: 2 }),
    call: () => tools.call("add", { a: 1, b: 2 }),
  });
  section("Per-call overhead: local toolset.call vs bare async function + v.safeParse");
  compare("p50", time(call.p50), time(floor.p50), call.p50 / floor.p50, "<= 10x");
  compare("p99", time(call.p99), time(floor.p99), call.p99 / floor.p99);
  compare("avg", time(call.avg), time(floor.avg), call.avg / floor.avg);
}
