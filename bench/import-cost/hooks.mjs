// Module hooks for bench/import-cost/probe.mjs: reports each module Node loads (its URL and the
// bytes of its source) to the probe's thread. CommonJS modules arrive without a source here, so
// their size is read from disk by the probe.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  const source = result.source;
  const bytes =
    source == null
      ? -1
      : typeof source === "string"
        ? Buffer.byteLength(source)
        : source.byteLength;
  port.postMessage({ url, format: result.format, bytes });
  return result;
}
