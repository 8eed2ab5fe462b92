// Test Workers in Miniflare (workerd), driven from Node: a Worker module under test/ bundled as
// a Workers build sees it, and the fetch of one Worker of a Miniflare instance. Platform
// `browser` fails the build on any `node:` import, so a bundle that builds needs no
// nodejs_compat; `cloudflare:workers` (Durable Objects) is workerd's own.
import { build } from "esbuild";
import type { Miniflare } from "miniflare";

/** The compatibility date every test Worker runs with (RPC to a Durable Object needs one). */
export const COMPATIBILITY_DATE = "2026-04-01";

/** A Worker's modules as Miniflare takes them: the bundle, one ES module `worker.js`. */
export type WorkerModules = { type: "ESModule"; path: string; contents: string }[];

/**
 * Bundles the Worker module at `entry` (a file URL) as workerd runs it.
 *
 * @returns Its modules, for Miniflare's `modules` option.
 */
export async function bundleWorker(entry: URL): Promise<WorkerModules> {
  const bundle = await build({
    entryPoints: [entry.pathname],
    outfile: "worker.js",
    write: false,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["workerd", "worker", "browser"],
    external: ["cloudflare:workers"],
    logLevel: "silent",
  });
  return [{ type: "ESModule", path: "worker.js", contents: bundle.outputFiles[0]?.text ?? "" }];
}

/** The `fetch` of Worker `name` in `mf`, as a Node test calls it. */
export async function workerFetch(
  mf: Miniflare,
  name: string,
): Promise<(url: string, init: RequestInit) => Promise<Response>> {
  // Miniflare's Fetcher type mixes in Workers types the Node tools do not load.
  const fetcher = (await mf.getWorker(name)) as unknown as {
    fetch(url: string, init: RequestInit): Promise<Response>;
  };
  return (url, init) => fetcher.fetch(url, init);
}
