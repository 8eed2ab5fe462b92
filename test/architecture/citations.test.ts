/// <reference types="vite/client" />
import { expect, test } from "vitest";

// The repository explains itself: code, tests and documents cite docs/design.md (its sections
// and behaviour numbers), never a document a reader of this repository cannot open.
const globbed = import.meta.glob<string>(
  [
    "../../{src,test,docs,demo,bench,e2e,scripts,examples}/**/*.{ts,mts,mjs,js,md,yaml,json,jsonc,html,css}",
    "../../*.{md,ts,json,jsonc}",
    "../../.ci/*",
    "!../../**/node_modules/**",
    "!../../test/workerd/worker-configuration.d.ts",
    "!../../package-lock.json",
  ],
  { query: "?raw", import: "default", eager: true },
);

const root = new URL("../../", import.meta.url).href;
const texts = Object.fromEntries(
  Object.entries(globbed).map(([path, text]) => [
    new URL(path, import.meta.url).href.replace(root, ""),
    text,
  ]),
);

// Spelled in pieces so this file does not match itself.
const OUTSIDE = [
  ["DESIGN", ".md"], // the design lives in docs/design.md, lower case
  ["mecha", "-core"],
  ["tools", "-kit"],
  ["../", "shared/"],
  ["shared/", "reference/"], // the reference notes beside the repository, however reached
  ["style", ".md"],
  ["toolchain", ".md"],
].map((parts) => parts.join(""));

function outsideCitations(files: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [path, text] of Object.entries(files)) {
    text.split("\n").forEach((line, index) => {
      const cited = OUTSIDE.filter((pattern) => line.includes(pattern));
      if (cited.length > 0) {
        found.push(`${path}:${index + 1} cites ${cited.join(", ")}`);
      }
    });
  }
  return found.sort();
}

test("the scan sees sources, tests and documents", () => {
  const paths = Object.keys(texts);
  expect(paths).toEqual(
    expect.arrayContaining(["README.md", "docs/design.md", "src/errors.ts", "CONTRIBUTING.md"]),
  );
  expect(outsideCitations({ "x.ts": `// see ${OUTSIDE[1]} §3` })).toEqual([
    `x.ts:1 cites ${OUTSIDE[1]}`,
  ]);
});

test("no file cites a document outside the repository", () => {
  expect(outsideCitations(texts)).toEqual([]);
});
