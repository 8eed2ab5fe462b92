// Benchmarks measure what users run: the compiled `dist/` output, not sources transpiled on the
// fly (tsx wraps every function in a naming helper that would inflate toolwire's figures only).
import { pathToFileURL } from "node:url";

const dist = new URL("../dist/", import.meta.url);

/**
 * Imports a compiled toolwire entry, typed as its source.
 *
 * @param entry The file under dist/, e.g. `index.js` or `agent/index.js`.
 */
export async function loadDist<T>(entry: string): Promise<T> {
  return (await import(pathToFileURL(new URL(entry, dist).pathname).href)) as T;
}

/** The core entry, compiled. */
export const loadCore = () => loadDist<typeof import("../src/index.ts")>("index.js");
