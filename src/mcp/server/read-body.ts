/** Body read type: the decoded text, or why there is none. */
export type BodyRead =
  | { type: "text"; text: string }
  | { type: "too_large" }
  | { type: "not_utf8" }
  | { type: "failed" };

/**
 * Reads a request body as UTF-8 text, stopping as soon as it exceeds `maxBytes`: a lying or
 * missing `Content-Length` cannot make the server buffer more than the limit.
 *
 * @param request The request.
 * @param maxBytes The largest body accepted.
 * @returns The text, or `too_large`, `not_utf8` or `failed` (the client went away mid-body).
 */
export async function readBody(request: Request, maxBytes: number): Promise<BodyRead> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await request.body?.cancel().catch(() => {});
    return { type: "too_large" };
  }
  if (!request.body) return { type: "text", text: "" };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        return { type: "too_large" };
      }
      chunks.push(value);
    }
  } catch {
    return { type: "failed" };
  }
  // Hint: no releaseLock: the body is used up either way, and releasing costs an error object.
  return decode(chunks, size);
}

function decode(chunks: Uint8Array[], size: number): BodyRead {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return {
      type: "text",
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes),
    };
  } catch {
    return { type: "not_utf8" };
  }
}
