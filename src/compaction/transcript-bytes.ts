import type { Message } from "../models/message.ts";

/**
 * Returns the UTF-8 size of a transcript's JSON, with image and audio payloads left out.
 *
 * Hint: a base64 image costs a provider a fixed, small number of tokens, not one per byte, so
 * counting its payload would make every size estimate and prediction wildly pessimistic.
 *
 * @param messages The transcript.
 * @returns Its size in bytes.
 */
export function transcriptBytes(messages: readonly Message[]): number {
  let total = messages.length === 0 ? 2 : 1;
  for (const message of messages) total += utf8Length(json(message)) + 1;
  return total;
}

function json(message: Message): string {
  // Hint: a replacer is several times slower than a plain stringify, and the loop runs this
  // every turn; a payload-bearing object always serialises with this exact, unescaped text.
  const plain = JSON.stringify(message);
  return plain.includes('"type":"image"') || plain.includes('"type":"audio"')
    ? JSON.stringify(message, dropPayload)
    : plain;
}

function dropPayload(this: unknown, key: string, value: unknown): unknown {
  if (key !== "data" || typeof value !== "string") return value;
  const type = (this as { type?: unknown }).type;
  return type === "image" || type === "audio" ? "" : value;
}

function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) {
      bytes += 1;
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      // Hint: a surrogate pair is two code units and four bytes.
      bytes += 2;
      i++;
    } else {
      bytes += 2;
    }
  }
  return bytes;
}
