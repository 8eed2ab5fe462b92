// Issue 28, "an un-instrumented run allocates nothing for tracing": the agent, the toolset and
// the MCP client and server reach their observer only through optional calls
// (`observer?.start({…})`), whose arguments JavaScript does not evaluate when the observer is
// undefined, so without one no operation object is built and nothing is called; and they import
// the observer's types only, so no tracing module is loaded either (design.md, O1). The bytes
// the hooks cost are measured in bench/bundle-size.ts.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "vitest";

const src = new URL("../../src/", import.meta.url).pathname;
// The core, agent and MCP bundles' sources (toolwire/node's stdio wrapper is built only around
// an observer that was given).
const HOOKED = ["agent", "execution", "local", "mcp", "toolset"];

function sources(): { path: string; text: string }[] {
  return HOOKED.flatMap((dir) =>
    readdirSync(join(src, dir), { recursive: true, encoding: "utf8" })
      .filter((name) => name.endsWith(".ts"))
      .map((name) => ({
        path: `${dir}/${name}`,
        text: readFileSync(join(src, dir, name), "utf8"),
      })),
  );
}

test("every observer hook is an optional call, so without an observer no operation is built", () => {
  const calls = sources().flatMap(({ path, text }) =>
    [...text.matchAll(/([\w.#]*observer)(\?)?\.start\(/gi)].map((match) => ({
      at: `${path}: ${match[0]}`,
      optional: match[2] === "?",
    })),
  );
  // The run, its model turns, its calls, a client's request and a server's.
  expect(calls.length).toBeGreaterThanOrEqual(5);
  expect(calls.filter((call) => !call.optional).map((call) => call.at)).toEqual([]);
});

test("the hooked code imports the observer's types only", () => {
  const imports = sources().flatMap(({ path, text }) =>
    [...text.matchAll(/^import (type )?[^;]*from "[./]*observer\.ts";/gm)].map((match) => ({
      path,
      typeOnly: match[1] !== undefined,
    })),
  );
  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((found) => !found.typeOnly)).toEqual([]);
});
