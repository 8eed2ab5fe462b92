/**
 * Bundles the package's entries into `outdir` (the JavaScript and source maps only).
 *
 * @param outdir Relative to the repository root; default `dist`.
 */
export function bundleEntries(outdir?: string): Promise<void>;
