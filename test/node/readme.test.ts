import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";

// The README's examples are documentation users copy; run each ```ts block as written (blocks
// fenced as ```typescript are fragments) and check that it prints what its comments say.
afterEach(() => vi.restoreAllMocks());

const root = join(import.meta.dirname, "../..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const entries: Record<string, string> = {
  toolwire: "src/index.ts",
  "toolwire/agent": "src/agent/index.ts",
  "toolwire/models": "src/models/index.ts",
  "toolwire/ai-sdk": "src/ai-sdk/index.ts",
  "toolwire/mcp": "src/mcp/index.ts",
  "toolwire/node": "src/node/index.ts",
};

test("the README has runnable examples", () => {
  expect(blocks.length).toBeGreaterThanOrEqual(3);
});

blocks.forEach((example, index) => {
  test(`README example ${index + 1} runs and prints what its comments say`, async () => {
    const dir = join(root, "test-results", "readme");
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `example-${index + 1}.ts`);
    const source = example.replace(/from "(toolwire(?:\/[a-z-]+)?)"/g, (_, entry: string) => {
      const target = entries[entry];
      if (!target) throw new Error(`unknown entry ${entry}`);
      return `from ${JSON.stringify(join(root, target))}`;
    });
    writeFileSync(file, source);
    const lines: unknown[] = [];
    vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args[0]));
    await import(/* @vite-ignore */ file);
    const expected = [...example.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) =>
      JSON.parse(m[1] as string),
    );
    expect(lines).toEqual(expected);
  });
});
