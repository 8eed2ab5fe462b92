/**
 * Returns the JSON pointer (RFC 6901) for a list of keys.
 *
 * @param keys Property names and array indexes, outermost first.
 * @returns `""` for no keys, else `/a/0/b` with `~` and `/` escaped.
 */
export function jsonPointer(keys: readonly (string | number)[]): string {
  let pointer = "";
  for (const key of keys) pointer += `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return pointer;
}
