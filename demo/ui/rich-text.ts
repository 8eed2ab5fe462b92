import { element } from "./element.ts";

/**
 * Returns a fragment for assistant text with a tiny, safe subset of Markdown: paragraphs,
 * line breaks, `**bold**` and `` `code` ``. Everything is inserted as text nodes.
 *
 * @param text The text.
 * @returns The fragment.
 */
export function richText(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  for (const paragraph of text.split(/\n{2,}/)) {
    const p = element("p");
    paragraph.split("\n").forEach((line, index) => {
      if (index > 0) p.append(element("br"));
      appendInline(p, line);
    });
    fragment.append(p);
  }
  return fragment;
}

function appendInline(parent: HTMLElement, line: string): void {
  const pattern = /\*\*([^*]+)\*\*|`([^`]+)`/g;
  let at = 0;
  for (const match of line.matchAll(pattern)) {
    if (match.index > at) parent.append(line.slice(at, match.index));
    if (match[1] !== undefined) parent.append(element("strong", { text: match[1] }));
    else parent.append(element("code", { text: match[2] ?? "" }));
    at = match.index + match[0].length;
  }
  if (at < line.length) parent.append(line.slice(at));
}
