import { indexedDbStore, isReadOnly, memoryStore, type ToolInfo } from "../src/index.ts";
import { headParts } from "./compaction-record.ts";
import { DemoSession } from "./demo-session.ts";
import { watchSignIn } from "./mcp-sign-in.ts";
import {
  IN_BROWSER_KINDS,
  InBrowserChoice,
  type InBrowserKind,
} from "./model/in-browser-choice.ts";
import { OFFLINE_MODEL_LABEL } from "./model/scripted-intents.ts";
import { PROJECT_LINKS } from "./project-links.ts";
import {
  createModel,
  loadApiKey,
  loadSettings,
  modelLabel,
  saveApiKey,
  saveSettings,
} from "./settings.ts";
import { openStore } from "./store.ts";
import { createDemoTools } from "./tools/demo-tools.ts";
import { createChatView } from "./ui/chat-view.ts";
import { createCompactionPanel } from "./ui/compaction-panel.ts";
import { createComposer } from "./ui/composer.ts";
import { element } from "./ui/element.ts";
import { createModelBanner } from "./ui/model-banner.ts";
import { createPromptDock } from "./ui/prompt-dock.ts";
import { createSettingsPanel } from "./ui/settings-panel.ts";
import { createTabs } from "./ui/tabs.ts";
import { createTimelinePanel } from "./ui/timeline-panel.ts";
import { createToolsPanel } from "./ui/tools-panel.ts";
import { startWebMcp } from "./web-mcp.ts";

// The page's wiring only; each piece lives in its own module under demo/.
async function start(root: HTMLElement): Promise<void> {
  const { store, persistent } = await openStore();
  const demo = createDemoTools(store);
  let settings = loadSettings();
  // The in-browser model: picked, offered with its size, loaded; the scripted model answers
  // until it is ready.
  const choice = new InBrowserChoice({
    ggufUrl: () => settings.ggufUrl,
    webLlmModel: () => settings.webLlmModel,
    storage: globalThis.localStorage,
  });
  const inBrowser = () =>
    settings.provider === "auto" || IN_BROWSER_KINDS.includes(settings.provider as InBrowserKind);
  const selectInBrowser = () => {
    if (inBrowser()) void choice.select(settings.provider as InBrowserKind | "auto").catch(report);
  };
  const session = await DemoSession.open({
    store,
    demo,
    model: () =>
      (inBrowser() ? choice.model : undefined) ??
      createModel(settings, loadApiKey(settings.provider)),
    offline: () => settings.provider === "offline" || (inBrowser() && !choice.model),
    thresholdTokens: () => settings.thresholdTokens,
    // The run in flight and the key its snapshots are signed with (docs/demo.md says what
    // that key protects against in a page): beside the conversation, in this origin.
    runs: persistent ? indexedDbStore({ name: "toolwire-demo-runs" }) : memoryStore(),
  });
  const localTools: ToolInfo[] = await session.local.listTools();
  const allTools = () => [...localTools, ...session.remotes.list.flatMap((remote) => remote.tools)];
  const readOnly = (name: string) => {
    const info = allTools().find((tool) => tool.name === name);
    return info === undefined ? undefined : isReadOnly(info);
  };

  const chat = createChatView({ empty: intro(persistent), readOnly });
  const dock = createPromptDock(session.store);
  const composer = createComposer({
    send: (text) => void session.send(text).catch(report),
    stop: () => session.stop(),
  });
  const compaction = createCompactionPanel({
    setThreshold: (tokens) => {
      settings = { ...settings, thresholdTokens: tokens };
      saveSettings(settings);
      drawContext();
    },
    compactNow: () => void session.compactNow().catch(report),
  });
  const timeline = createTimelinePanel();
  const tools = createToolsPanel({
    alwaysAllow: session.alwaysAllow,
    connect: async (url, namespace, onSignIn) => {
      const [{ connectMcp }, { browserOAuth }] = await Promise.all([
        import("../src/mcp/index.ts"),
        import("../src/oauth/index.ts"),
      ]);
      // A server that needs OAuth answers 401; the sign-in then opens in a popup (this runs
      // from the Connect click, so the browser lets it open) and its tokens stay in this tab's
      // sessionStorage. A server without OAuth is connected as before.
      const auth = watchSignIn(browserOAuth(), onSignIn);
      await session.remotes.connect(url, namespace, (options) => connectMcp({ ...options, auth }));
    },
    disconnect: (remote) => session.remotes.disconnect(remote),
  });
  const badge = element("button", {
    className: "model-badge",
    attrs: { type: "button", title: "Change the model in Settings" },
    on: { click: () => tabs.select("settings") },
  });
  const settingsPanel = createSettingsPanel({
    settings,
    apiKey: (provider) => loadApiKey(provider),
    save: (next, key) => {
      settings = next;
      saveSettings(next);
      saveApiKey(next.provider, key);
      drawBadge();
      if (inBrowser()) selectInBrowser();
      else banner.update({ type: "none" });
    },
  });
  const banner = createModelBanner({ accept: () => void choice.accept().catch(report) });
  choice.on("state", (state) => {
    banner.update(inBrowser() ? state : { type: "none" });
    drawBadge();
  });
  const tabs = createTabs([
    { id: "context", label: "Context", panel: compaction.element },
    { id: "timeline", label: "Timeline", panel: timeline.element },
    { id: "tools", label: "Tools", panel: tools.element },
    {
      id: "settings",
      label: "Settings",
      panel: element("div", {}, [
        settingsPanel,
        element("section", { className: "panel-body about" }, [
          element("h3", { text: "About toolwire" }),
          linksParagraph("help"),
        ]),
      ]),
    },
  ]);
  const drawBadge = () => {
    const ready = inBrowser() && choice.state.type === "ready" ? choice.state.label : undefined;
    const label = ready ?? modelLabel(settings);
    // On a phone the long label would be cut, and "(no AI)" is the part that matters.
    const short = label === OFFLINE_MODEL_LABEL ? "Offline script (no AI)" : label;
    badge.replaceChildren(
      element("span", { className: "wide-only", text: label }),
      element("span", { className: "narrow-only", text: short }),
    );
  };
  drawBadge();

  const drawContext = () => {
    const head = headParts(session.conversation.messages[0]);
    const size = session.tokens;
    compaction.update({
      tokens: size.tokens,
      tokenSource: size.source,
      threshold: settings.thresholdTokens,
      messages: session.conversation.messages.length,
      running: session.busy,
      records: session.compactions,
      summaries: head.summaries,
      carried: head.carried,
    });
  };
  // The transcript and the dock render the agent store's snapshot; the page's notes sit
  // between its messages.
  const draw = () => {
    const state = session.store.getSnapshot();
    chat.render(state.messages, session.notes);
    dock.show(state);
  };
  session.store.subscribe(draw);
  session.on("notes", draw);
  session.on("reset", () => timeline.clear());
  session.on("timeline", (entry) => timeline.add(entry));
  session.on("context", drawContext);
  session.on("tokens", ({ tokens, source }) =>
    compaction.updateTokens(tokens, source, settings.thresholdTokens),
  );
  session.on("busy", (busy) => {
    composer.setRunning(busy);
    drawContext();
    if (!busy) composer.focus();
  });
  session.on("tools", () => tools.update(localTools, session.remotes.list));

  root.replaceChildren(
    element("header", { className: "topbar" }, [
      element("div", { className: "brand" }, [
        element("span", { className: "logo", text: "tw", attrs: { "aria-hidden": "true" } }),
        element("h1", {}, ["toolwire ", element("span", { className: "muted", text: "demo" })]),
      ]),
      badge,
      element(
        "nav",
        // Below laptop width the header has no room; the intro and Settings carry the links.
        { className: "project-links", attrs: { "aria-label": "toolwire" } },
        PROJECT_LINKS.map((link) =>
          element("a", {
            text: link.label,
            attrs: { href: link.href, title: link.title, target: "_blank", rel: "noopener" },
          }),
        ),
      ),
      element(
        "button",
        {
          className: "button",
          attrs: { type: "button", "data-testid": "new-conversation" },
          on: {
            click: () => {
              if (
                (session.store.getSnapshot().messages.length === 0 && session.notes.length === 0) ||
                confirm("Start over? This clears the transcript and the todo list.")
              ) {
                void session.reset().catch(report);
              }
            },
          },
        },
        ["New", element("span", { className: "wide-only", text: " conversation" })],
      ),
    ]),
    element("main", { className: "layout" }, [
      element("section", { className: "chat", attrs: { "aria-label": "Chat" } }, [
        banner.element,
        chat.element,
        dock.element,
        composer.element,
      ]),
      element("aside", { className: "sidebar", attrs: { "aria-label": "Inspector" } }, [
        tabs.element,
      ]),
    ]),
  );
  tools.update(localTools, session.remotes.list);
  // Only where the browser has WebMCP; elsewhere this resolves to undefined and nothing changes.
  const webMcp = await startWebMcp(session).catch((error: unknown) => {
    report(error);
    return undefined;
  });
  if (webMcp) tools.showWebMcp(webMcp.offered);
  selectInBrowser();
  // A run a reload cut short at an approval or a question resumes here, its card in the dock.
  await session.load();
  draw();
  drawContext();
  composer.setRunning(session.busy);
  if (!session.busy) composer.focus();
}

function intro(persistent: boolean): HTMLElement {
  return element("div", { className: "intro" }, [
    element("h2", { text: "An agent that runs entirely in this tab" }),
    element("p", {
      text: "toolwire's agent loop calls tools defined in this page, asks you before anything writes, and, as the conversation grows, shortens what it sends the model by summarising older messages (compaction: watch the Context tab). The todo list survives that word for word.",
    }),
    element("p", {
      text: "Until a model runs on your device (offered above, with its download size) or you pick a remote one in Settings, the model is an offline script, not an AI: it recognises the suggested prompts below, so everything works without a network or a key.",
    }),
    linksParagraph("help intro-links"),
    persistent
      ? element("p", {
          className: "help",
          text: "The conversation is saved in this browser (IndexedDB) and survives a reload, and so does an approval or a question waiting for you.",
        })
      : element("p", {
          className: "help",
          text: "IndexedDB is unavailable here, so the conversation lasts until you reload.",
        }),
  ]);
}

/** The README and design notes, as a sentence (the intro and the Settings tab carry it). */
function linksParagraph(className: string): HTMLElement {
  return element("p", { className }, [
    "The code and how to use it: ",
    ...PROJECT_LINKS.flatMap((link, index) => [
      index === 0 ? "" : " · ",
      element("a", {
        text: link.title,
        attrs: { href: link.href, target: "_blank", rel: "noopener" },
      }),
    ]),
    ".",
  ]);
}

function report(error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  document.querySelector(".fatal")?.remove();
  document.body.append(
    element("div", {
      className: "fatal",
      attrs: { role: "alert" },
      text: `Something went wrong: ${message}`,
    }),
  );
}

// The OAuth sign-in popup loads this page with the authorization server's answer; it hands that
// back to the page that opened it and closes, instead of starting a second demo.
async function boot(): Promise<void> {
  if (window.opener && new URLSearchParams(location.search).has("state")) {
    const { finishSignIn } = await import("../src/oauth/index.ts");
    if (finishSignIn()) return;
  }
  const root = document.querySelector<HTMLElement>("#app");
  if (root) await start(root);
}

boot().catch(report);
