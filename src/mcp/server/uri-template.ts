// RFC 6570 URI templates of level 1 (`{name}`, simple string expansion), read the other way:
// which variables a URI gives a template. Level 1 expansion percent-encodes every character
// but the unreserved ones, so a variable's value never holds `/`, `?` or `#` and matches one
// stretch of such characters.

import { ToolError } from "../../errors.ts";

/** A parsed template. */
export interface UriTemplate {
  /** The variable names, in order. */
  readonly variables: readonly string[];
  /** The variables a URI gives the template (percent-decoded), or `undefined` when it does not match. */
  match(uri: string): Record<string, string> | undefined;
}

const VARIABLE = /\{([^{}]*)\}/g;
const NAME = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;

/**
 * Parses a level 1 URI template.
 *
 * @throws ToolError `invalid_configuration` for an operator (`{+path}`, `{?q}`, …), a modifier,
 * a list of variables, an empty or repeated name, or an unmatched brace: levels 2-4 are not
 * read.
 */
export function parseUriTemplate(template: string): UriTemplate {
  const variables: string[] = [];
  let pattern = "^";
  let last = 0;
  for (const found of template.matchAll(VARIABLE)) {
    const name = found[1] ?? "";
    if (!NAME.test(name) || variables.includes(name)) {
      throw new ToolError({
        type: "invalid_configuration",
        message: `URI template ${JSON.stringify(template)}: \`{${name}}\` is not a level 1 variable (one name of letters, digits and _; no operator, modifier or list)`,
      });
    }
    variables.push(name);
    pattern += `${literal(template.slice(last, found.index))}([^/?#]+)`;
    last = found.index + found[0].length;
  }
  const rest = template.slice(last);
  const regex = new RegExp(`${pattern + literal(rest)}$`);
  return {
    variables,
    match(uri) {
      const found = regex.exec(uri);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      try {
        variables.forEach((name, i) => {
          values[name] = decodeURIComponent(found[i + 1] ?? "");
        });
      } catch {
        // Malformed percent-encoding names no resource.
        return undefined;
      }
      return values;
    },
  };
}

function literal(text: string): string {
  if (/[{}]/.test(text)) {
    throw new ToolError({
      type: "invalid_configuration",
      message: `URI template part ${JSON.stringify(text)} has an unmatched brace`,
    });
  }
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
