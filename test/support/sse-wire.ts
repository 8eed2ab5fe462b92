/**
 * Returns one server-sent event in wire form: optional `event:` line, one `data:` line per line
 * of the data (objects are JSON-encoded), then the blank line.
 *
 * @param data The event data.
 * @param event The event name, when the provider sends one.
 * @returns The wire text.
 */
export function sseFrame(data: unknown, event?: string): string {
  const text = typeof data === "string" ? data : JSON.stringify(data);
  const lines = text.split("\n").map((line) => `data: ${line}\n`);
  return `${event === undefined ? "" : `event: ${event}\n`}${lines.join("")}\n`;
}

/**
 * Returns the UTF-8 bytes of a text.
 *
 * @param text The text.
 * @returns The bytes.
 */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  // A TextEncoder always makes a fresh ArrayBuffer; the Workers types only promise
  // ArrayBufferLike (the portable otel cases bring this file into the workerd typecheck).
  return new TextEncoder().encode(text) as Uint8Array<ArrayBuffer>;
}

/**
 * Returns the bytes cut at the given byte offsets.
 *
 * @param bytes The bytes.
 * @param offsets Where to cut, ascending.
 * @returns The pieces.
 */
export function cutAt(
  bytes: Uint8Array<ArrayBuffer>,
  offsets: readonly number[],
): Uint8Array<ArrayBuffer>[] {
  const pieces: Uint8Array<ArrayBuffer>[] = [];
  let start = 0;
  for (const offset of offsets) {
    pieces.push(bytes.subarray(start, offset));
    start = offset;
  }
  pieces.push(bytes.subarray(start));
  return pieces.filter((piece) => piece.byteLength > 0);
}

/**
 * Returns the bytes cut into pieces of `size` bytes, so that cuts land inside JSON strings.
 *
 * @param bytes The bytes.
 * @param size The piece size.
 * @returns The pieces.
 */
export function cutEvery(bytes: Uint8Array<ArrayBuffer>, size: number): Uint8Array<ArrayBuffer>[] {
  const offsets: number[] = [];
  for (let offset = size; offset < bytes.byteLength; offset += size) offsets.push(offset);
  return cutAt(bytes, offsets);
}

/**
 * Returns the byte offset one byte into the first occurrence of a multi-byte character, where
 * a cut splits that character across two chunks.
 *
 * @param text The wire text.
 * @param char A character of two or more UTF-8 bytes.
 * @returns The offset.
 */
export function insideChar(text: string, char: string): number {
  const at = text.indexOf(char);
  if (at === -1 || utf8(char).byteLength < 2) throw new Error(`no multi-byte ${char} in text`);
  return utf8(text.slice(0, at)).byteLength + 1;
}

/**
 * Creates a byte stream that yields the pieces one by one, as a network would.
 *
 * @param pieces The chunks.
 * @returns The stream.
 */
export function byteStream(
  pieces: readonly Uint8Array<ArrayBuffer>[],
): ReadableStream<Uint8Array<ArrayBuffer>> {
  let next = 0;
  return new ReadableStream<Uint8Array<ArrayBuffer>>({
    pull(controller) {
      const piece = pieces[next++];
      if (piece) controller.enqueue(piece);
      else controller.close();
    },
  });
}
