/**
 * Returns a tool call's arguments from the JSON text the model streamed.
 *
 * Hint: when the text is not valid JSON, the raw text is returned rather than failing the
 * turn. Models do emit broken JSON now and then; as a string the arguments then fail the
 * tool's input validation, the model gets an `invalid_arguments` error result and can retry,
 * while a thrown error would end the whole run. An empty text means no arguments, `{}`.
 *
 * @param text The concatenated argument fragments.
 * @returns The parsed value, `{}` for empty text, or the text itself when it is not JSON.
 */
export function toolArguments(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
