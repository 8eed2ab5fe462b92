// Scale: a 10,000-tool inventory and 1,000 concurrent calls, each next to a same-run baseline.
import * as v from "valibot";
import { loadCore } from "./load.ts";
import { compare, section, time } from "./report.ts";

async function elapsed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return (performance.now() - start) * 1e6;
}

// One cold run mostly measures the JIT; the best of several is what a warm server pays.
async function best(run: () => Promise<unknown>, rounds = 20): Promise<number> {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < rounds; i++) min = Math.min(min, await elapsed(run));
  return min;
}

/** Measures listTools over 10,000 tools and 1,000 concurrent calls. */
export async function scale(): Promise<void> {
  const { defineTool, Toolset } = await loadCore();
  section("Scale");
  const input = v.object({ n: v.number() });
  const heapBefore = process.memoryUsage().heapUsed;
  const defineStart = performance.now();
  const many = Array.from({ length: 10_000 }, (_, i) =>
    defineTool({
      name: `tool_${i}`,
      description: `Tool ${i}`,
      readOnly: true,
      input,
      call: ({ n }) => String(n),
    }),
  );
  const defineNs = (performance.now() - defineStart) * 1e6;
  const tools = Toolset.local(many);
  const heapAfter = process.memoryUsage().heapUsed;
  const list = await best(() => tools.listTools());
  const copy = await best(async () =>
    many.map((tool) => tool.info).sort((a, b) => (a.name < b.name ? -1 : 1)),
  );
  compare("listTools, 10,000 tools", time(list), time(copy), list / copy);
  console.log(
    `  (best of 20; baseline: sorting the 10,000 declarations by hand; defineTool x10,000 took ${time(defineNs)}, heap +${((heapAfter - heapBefore) / 1048576).toFixed(1)} MiB)`,
  );
  const add = defineTool({
    name: "add",
    description: "Adds",
    readOnly: true,
    input,
    call: async ({ n }) => String(n + 1),
  });
  const one = Toolset.local([add]);
  const bare = async (args: unknown) => {
    const parsed = v.safeParse(input, args);
    if (!parsed.success) throw new Error("invalid");
    return String(parsed.output.n + 1);
  };
  await Promise.all(Array.from({ length: 1_000 }, (_, n) => one.call("add", { n })));
  const calls = await best(() =>
    Promise.all(Array.from({ length: 1_000 }, (_, n) => one.call("add", { n }))),
  );
  const floor = await best(() => Promise.all(Array.from({ length: 1_000 }, (_, n) => bare({ n }))));
  compare("1,000 concurrent calls", time(calls), time(floor), calls / floor);
}
