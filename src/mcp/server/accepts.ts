/**
 * Checks whether an `Accept` header admits a media type. Wildcard ranges count, and the most
 * specific matching range decides, so `q=0` on it refuses the type.
 *
 * @param accept The header value (`null` when absent).
 * @param mediaType A concrete type such as `text/event-stream`.
 * @returns Whether a response of that type is acceptable.
 */
export function accepts(accept: string | null, mediaType: string): boolean {
  if (accept === null) return false;
  const [type] = mediaType.split("/");
  let specificity = 0;
  let weight = 0;
  for (const range of accept.split(",")) {
    const [name = "", ...params] = range.split(";").map((part) => part.trim().toLowerCase());
    const rank = name === mediaType ? 3 : name === `${type}/*` ? 2 : name === "*/*" ? 1 : 0;
    if (rank <= specificity) continue;
    const q = params.find((p) => p.startsWith("q="));
    const parsed = q === undefined ? 1 : Number(q.slice(2));
    specificity = rank;
    weight = Number.isNaN(parsed) ? 0 : parsed;
  }
  return weight > 0;
}
