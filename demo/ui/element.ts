/**
 * Element options interface: what `element` sets on a new element.
 */
export interface ElementOptions {
  /** CSS classes, space-separated. */
  className?: string;
  /** Text content (set as text, never parsed as HTML). */
  text?: string;
  /** Attributes, including `data-*` and `aria-*`; `undefined` and `false` are skipped. */
  attrs?: Record<string, string | number | boolean | undefined>;
  /** Event listeners. */
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

/**
 * Creates an element with classes, text, attributes, listeners and children. The page builds
 * its DOM only through this and `textContent`, never `innerHTML`, so model and tool output
 * cannot inject markup.
 *
 * @param tag The tag name.
 * @param options Classes, text, attributes and listeners.
 * @param children Child nodes or strings.
 * @returns The element.
 */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: ElementOptions = {},
  children: readonly (Node | string | undefined | false)[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const [type, listener] of Object.entries(options.on ?? {})) {
    node.addEventListener(type, listener as EventListener);
  }
  for (const child of children) if (child !== undefined && child !== false) node.append(child);
  return node;
}
