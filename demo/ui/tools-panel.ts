import { isReadOnly, type ToolInfo } from "../../src/index.ts";
import { failureText, type SignInState } from "../mcp-sign-in.ts";
import type { RemoteServer } from "../remote-servers.ts";
import { element } from "./element.ts";

/**
 * Tools panel options interface.
 */
export interface ToolsPanelOptions {
  /** Writing tools allowed without asking; the panel edits it. */
  alwaysAllow: Set<string>;
  /** Connects an MCP server, signing in with OAuth if it asks; `onSignIn` follows the sign-in. */
  connect(url: string, namespace: string, onSignIn: (state: SignInState) => void): Promise<void>;
  /** Disconnects one. */
  disconnect(remote: RemoteServer): Promise<void>;
}

/**
 * Tools panel interface: the agent's tools with their declared risk, the always-allow choices,
 * and the MCP connection form.
 */
export interface ToolsPanel {
  element: HTMLElement;
  /** Redraws the lists. */
  update(local: readonly ToolInfo[], remotes: readonly RemoteServer[]): void;
  /** Shows the WebMCP section: the demo's tools offered to the browser's agent. */
  showWebMcp(offered: readonly string[]): void;
}

/**
 * Creates the tools panel.
 *
 * @param options The always-allow set and the MCP actions.
 * @returns The panel.
 */
export function createToolsPanel(options: ToolsPanelOptions): ToolsPanel {
  const localList = element("ul", { className: "tool-list" });
  const remoteList = element("div", { className: "remote-list" });
  const status = element("p", {
    className: "help",
    attrs: { role: "status", "aria-live": "polite", "data-testid": "mcp-status" },
  });
  const url = element("input", {
    className: "input",
    attrs: {
      id: "mcp-url",
      type: "url",
      placeholder: "http://127.0.0.1:3000/mcp",
      required: true,
      "data-testid": "mcp-url",
    },
  });
  const namespace = element("input", {
    className: "input",
    attrs: {
      id: "mcp-namespace",
      type: "text",
      value: "remote",
      pattern: "[A-Za-z0-9_\\-]*",
      "aria-describedby": "mcp-help",
    },
  });
  const button = element("button", {
    className: "button button-primary",
    text: "Connect",
    attrs: { type: "submit" },
  });
  const form = element(
    "form",
    {
      className: "mcp-form",
      on: {
        submit: async (event) => {
          event.preventDefault();
          button.disabled = true;
          status.textContent = "Connecting…";
          status.dataset.signIn = "none";
          const target = url.value.trim();
          let signIn: SignInState | undefined;
          const onSignIn = (state: SignInState) => {
            signIn = state;
            status.dataset.signIn = state.type;
            status.textContent =
              state.type === "signing_in"
                ? "Signing in: finish in the sign-in window…"
                : state.type === "signed_in"
                  ? "Signed in. Connecting…"
                  : `Sign-in failed: ${state.message}`;
          };
          try {
            await options.connect(target, namespace.value.trim(), onSignIn);
            if (signIn?.type === "signed_in") signedIn.add(target);
            status.textContent =
              signIn?.type === "signed_in"
                ? "Signed in and connected: its tools joined the agent."
                : "Connected: its tools joined the agent.";
            url.value = "";
            draw();
          } catch (error) {
            // A failed sign-in already says why; anything else is the connection's failure.
            if (signIn?.type !== "failed") {
              status.textContent = `Could not connect: ${failureText(error)}`;
            }
          } finally {
            button.disabled = false;
          }
        },
      },
    },
    [
      element("label", { attrs: { for: "mcp-url" }, text: "MCP server URL (Streamable HTTP)" }),
      url,
      element("label", { attrs: { for: "mcp-namespace" }, text: "Namespace for its tool names" }),
      namespace,
      element("p", {
        className: "help",
        attrs: { id: "mcp-help" },
        text: "Tools are listed as namespace__name. Remote tools are gated like local ones: anything not marked read-only asks first. The server must allow this page's origin (CORS). A server that needs OAuth opens its sign-in in a popup; the tokens stay in this tab (sessionStorage) and are never shown.",
      }),
      button,
      status,
    ],
  );
  const signedIn = new Set<string>();
  let remoteState: readonly RemoteServer[] = [];
  let localState: readonly ToolInfo[] = [];
  const webMcpList = element("ul", {
    className: "tool-list",
    attrs: { "data-testid": "webmcp-tools" },
  });
  const offeredNote = element("p", {
    className: "help",
    attrs: { "data-testid": "webmcp-offered" },
  });
  const webMcpSection = element("section", { attrs: { hidden: true } }, [
    element("h3", { text: "Page tools (WebMCP)" }),
    offeredNote,
    element("p", {
      className: "help",
      text: "Tools other scripts and frames registered with the browser (document.modelContext) join the agent as page__name. A frame's tools from another origin are not trusted: whatever they claim, they ask first.",
    }),
    webMcpList,
  ]);
  const draw = () => {
    localList.replaceChildren(
      ...localState.map((info) => toolRow(info, options.alwaysAllow, draw)),
    );
    webMcpList.replaceChildren(
      ...remoteState
        .filter((remote) => remote.kind === "webmcp")
        .flatMap((remote) => remote.tools.map((info) => toolRow(info, options.alwaysAllow, draw))),
    );
    remoteList.replaceChildren(
      ...remoteState
        .filter((remote) => remote.kind === "mcp")
        .map((remote) =>
          element("section", { className: "remote" }, [
            element("div", { className: "remote-head" }, [
              element("code", { text: remote.url }),
              signedIn.has(remote.url)
                ? element("span", {
                    className: "badge badge-read",
                    text: "signed in (OAuth)",
                    attrs: { "data-testid": "signed-in" },
                  })
                : undefined,
              element("button", {
                className: "button button-small",
                text: "Disconnect",
                attrs: { type: "button" },
                on: {
                  click: () => {
                    signedIn.delete(remote.url);
                    void options.disconnect(remote);
                  },
                },
              }),
            ]),
            element(
              "ul",
              { className: "tool-list" },
              remote.tools.map((info) => toolRow(info, options.alwaysAllow, draw)),
            ),
          ]),
        ),
    );
  };
  return {
    element: element("div", { className: "panel-body" }, [
      element("h3", { text: "In this page" }),
      element("p", {
        className: "help",
        text: "Defined with defineTool and valibot; run in this tab. A tool that writes asks you before each call; tick “Allow without asking” to skip the question for that tool until you reload.",
      }),
      localList,
      webMcpSection,
      element("h3", { text: "Remote tools (MCP)" }),
      remoteList,
      form,
    ]),
    update(local, remotes) {
      localState = local;
      remoteState = remotes;
      draw();
    },
    showWebMcp(offered) {
      offeredNote.textContent = `Offered to the browser's agent through WebMCP: ${offered.join(", ")}.`;
      webMcpSection.hidden = false;
    },
  };
}

function toolRow(info: ToolInfo, alwaysAllow: Set<string>, redraw: () => void): HTMLElement {
  // A foreign tool's own readOnlyHint counts only when it is trusted (design.md "Trust").
  const readOnly = isReadOnly(info);
  const badges = [
    element("span", {
      className: `badge ${readOnly ? "badge-read" : "badge-write"}`,
      text: readOnly ? "read-only" : "writes",
    }),
    ...Object.entries(info.capabilities)
      .filter(([, on]) => on)
      .map(([name]) => element("span", { className: "badge badge-cap", text: name })),
    info.interactions.text || info.interactions.form
      ? element("span", { className: "badge badge-cap", text: "asks you" })
      : undefined,
    info.source && !info.source.trusted
      ? element("span", {
          className: "badge badge-write",
          text: `untrusted: ${info.source.origin}`,
        })
      : undefined,
  ];
  const id = `allow-${info.name}`;
  return element("li", { className: "tool-row" }, [
    element("div", { className: "tool-row-head" }, [
      element("code", { text: info.name }),
      ...badges,
    ]),
    info.description ? element("p", { className: "help", text: info.description }) : undefined,
    readOnly
      ? undefined
      : element("label", { className: "check", attrs: { for: id } }, [
          element("input", {
            attrs: {
              id,
              type: "checkbox",
              checked: alwaysAllow.has(info.name),
              "aria-label": `Allow ${info.name} without asking`,
            },
            on: {
              change: (event) => {
                const on = (event.target as HTMLInputElement).checked;
                if (on) alwaysAllow.add(info.name);
                else alwaysAllow.delete(info.name);
                redraw();
              },
            },
          }),
          " Allow without asking",
        ]),
  ]);
}
