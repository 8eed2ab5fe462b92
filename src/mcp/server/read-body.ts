import type { IncomingRequest } from "./incoming-request.ts";

/** Body read type: the decoded text, or why there is none. */
export type BodyRead =
  | { type: "text"; text: string }
  | { type: "too_large" }
  | { type: "not_utf8" }
  | { type: "failed" };

/**
 * Reads a request body as UTF-8 text, stopping as soon as it exceeds `maxBytes`: a lying or
 * missing `Content-Length` cannot make the server buffer more than the limit. A body that is
 * already a string is measured in UTF-8 bytes, as it would travel.
 *
 * @param request The request.
 * @param maxBytes The largest body accepted.
 * @returns The text, or `too_large`, `not_utf8` or `failed` (the client went away mid-body).
 */
export async function readBody(request: IncomingRequest, maxBytes: number): Promise<BodyRead> {
  const { body } = request;
  if (typeof body === "string") {
    return utf8Length(body, maxBytes) > maxBytes
      ? { type: "too_large" }
      : { type: "text", text: body };
  }
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await body?.cancel().catch(() => {});
    return { type: "too_large" };
  }
  if (!body) return { type: "text", text: "" };
  const reader = body.getReader();
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

// Hint: counts UTF-8 bytes without encoding; a string of at most limit/3 code units always fits.
function utf8Length(text: string, limit: number): number {
  if (text.length * 3 <= limit) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length && bytes <= limit; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      bytes += next >= 0xdc00 && next <= 0xdfff ? 4 : 3;
    } else bytes += 3;
  }
  return bytes;
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

function decode(chunks: Uint8Array[], size: number): BodyRead {
  let bytes: Uint8Array;
  if (chunks.length === 1) bytes = chunks[0] as Uint8Array;
  else {
    bytes = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.byteLength;
    }
  }
  try {
    return { type: "text", text: decoder.decode(bytes) };
  } catch {
    return { type: "not_utf8" };
  }
}
