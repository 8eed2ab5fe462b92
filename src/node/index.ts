/**
 * toolwire/node — Node-only adapters. `serve` bridges `node:http` to a web-standard fetch
 * handler, such as the one `createMcpHandler` from `toolwire/mcp` returns.
 *
 * @example
 * ```ts
 * import { serve } from "toolwire/node";
 * const server = await serve(handler, { port: 8787 });
 * ```
 *
 * @module
 */

export { type FetchHandler, type Served, type ServeOptions, serve } from "./serve.ts";
