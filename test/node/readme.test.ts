import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, expect, test, vi } from "vitest";

// The README's usage example is documentation a user copies; run it as written so it cannot rot.
afterEach(() => vi.restoreAllMocks());

test("the README usage example runs and prints what its comments say", async () => {
  const root = join(import.meta.dirname, "../..");
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(example).toBeDefined();
  const dir = join(root, "test-results", "readme");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "example.ts");
  writeFileSync(
    file,
    (example as string).replaceAll(
      'from "toolwire"',
      `from ${JSON.stringify(join(root, "src/index.ts"))}`,
    ),
  );
  const lines: unknown[][] = [];
  vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args));
  await import(/* @vite-ignore */ file);
  const expected = [...(example as string).matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) =>
    JSON.parse(m[1] as string),
  );
  expect(lines.map((args) => args[0])).toEqual(expected);
});
