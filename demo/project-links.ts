/// <reference types="vite/client" />

import designUrl from "../docs/design.md?url";
import readmeUrl from "../README.md?url";

/** Project link interface: one link in the page's header. */
export interface ProjectLink {
  label: string;
  href: string;
  title: string;
}

/**
 * The project's own documents, shipped with the demo (Vite copies them next to the page), so the
 * links work wherever the demo is hosted.
 */
export const PROJECT_LINKS: readonly ProjectLink[] = [
  {
    label: "Docs",
    href: readmeUrl,
    title: "toolwire's README: install, define a tool, run an agent, serve MCP",
  },
  {
    label: "Design",
    href: designUrl,
    title: "docs/design.md: how toolwire is built and why",
  },
];
