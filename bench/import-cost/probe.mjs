// `node bench/import-cost/probe.mjs <file>`: imports one module into this fresh process and
// prints, as JSON, every module that import loaded (URL and source bytes) and the Node-internal
// modules it made Node load (`process.moduleLoadList`), e.g. the fetch implementation
// (`internal/deps/undici/undici`) when something builds a `Request` at import. Both are exact:
// the same build gives the same figures on an idle and on a busy machine.
import { readFileSync } from "node:fs";
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const { port1, port2 } = new MessageChannel();
const modules = [];
port1.on("message", (module) => modules.push(module));
register(new URL("./hooks.mjs", import.meta.url), {
  data: { port: port2 },
  transferList: [port2],
});

const before = new Set(process.moduleLoadList);
await import(pathToFileURL(process.argv[2]).href);
const internal = process.moduleLoadList.filter((name) => !before.has(name));
// The hooks thread posts its last messages asynchronously; a round trip through it flushes them.
await import(`data:text/javascript,export default 0`);
await new Promise((resolve) => setImmediate(resolve));
port1.close();

const files = modules
  .filter((module) => module.url.startsWith("file:") || module.url.startsWith("node:"))
  .map(({ url, bytes }) => ({
    url,
    bytes:
      bytes >= 0 || !url.startsWith("file:")
        ? Math.max(bytes, 0)
        : readFileSync(new URL(url)).byteLength,
  }));
process.stdout.write(JSON.stringify({ modules: files, internal }));
