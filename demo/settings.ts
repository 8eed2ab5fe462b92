import type { Model } from "../src/models/index.ts";
import { DEFAULT_GGUF_URL, DEFAULT_WEBLLM_MODEL } from "./model/in-browser-choice.ts";
import { OFFLINE_MODEL_LABEL, offlineModel } from "./model/scripted-intents.ts";
import { unreachable } from "./unreachable.ts";

/**
 * The model providers the page offers, as an `as const` list: `auto` (the best in-browser model
 * this browser runs), one in-browser runtime, the scripted model, or a remote provider.
 */
export const PROVIDERS = [
  "auto",
  "built-in",
  "webgpu",
  "cpu",
  "offline",
  "openai",
  "anthropic",
] as const;

/** Provider type. */
export type Provider = (typeof PROVIDERS)[number];

/**
 * Settings interface: the page's non-secret settings (kept in `localStorage`). The API key is
 * not here: it lives in `sessionStorage` only (see `loadApiKey`).
 */
export interface Settings {
  provider: Provider;
  /** OpenAI-compatible base URL (OpenAI, Ollama, LM Studio, vLLM, …). */
  baseURL: string;
  /** OpenAI-compatible model name. */
  openaiModel: string;
  /** Anthropic model name. */
  anthropicModel: string;
  /** Compaction threshold, in (estimated) tokens. */
  thresholdTokens: number;
  /** The GGUF file the CPU path loads. */
  ggufUrl: string;
  /** The WebLLM model id the WebGPU path loads. */
  webLlmModel: string;
}

/**
 * The settings a first visit starts with: the best in-browser model (offered with its size
 * before anything is downloaded; the scripted model answers until then), and a low threshold so
 * compaction shows.
 */
export const DEFAULT_SETTINGS: Settings = {
  provider: "auto",
  baseURL: "http://127.0.0.1:11434/v1",
  openaiModel: "qwen3",
  anthropicModel: "claude-sonnet-4-5",
  thresholdTokens: 800,
  ggufUrl: DEFAULT_GGUF_URL,
  webLlmModel: DEFAULT_WEBLLM_MODEL,
};

const SETTINGS_KEY = "toolwire-demo-settings";
const KEY_PREFIX = "toolwire-demo-key-";

/**
 * Returns the saved settings merged over the defaults.
 *
 * @param storage Where they are kept; `localStorage` in the page.
 * @returns The settings.
 */
export function loadSettings(storage: Storage | undefined = globalThis.localStorage): Settings {
  try {
    const saved = JSON.parse(storage?.getItem(SETTINGS_KEY) ?? "{}") as Partial<Settings>;
    const merged = { ...DEFAULT_SETTINGS, ...saved };
    if (!PROVIDERS.includes(merged.provider)) merged.provider = "offline";
    return merged;
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

/**
 * Saves the non-secret settings.
 *
 * @param settings The settings.
 * @param storage Where to keep them; `localStorage` in the page.
 */
export function saveSettings(
  settings: Settings,
  storage: Storage | undefined = globalThis.localStorage,
): void {
  const { provider, baseURL, openaiModel, anthropicModel, thresholdTokens, ggufUrl, webLlmModel } =
    settings;
  const plain = {
    provider,
    baseURL,
    openaiModel,
    anthropicModel,
    thresholdTokens,
    ggufUrl,
    webLlmModel,
  };
  storage?.setItem(SETTINGS_KEY, JSON.stringify(plain));
}

/**
 * Returns the API key typed in for a provider during this tab's session.
 *
 * `sessionStorage` dies with the tab; the key is never written to `localStorage`,
 * IndexedDB, the URL or a log line.
 *
 * @param provider The provider.
 * @param storage `sessionStorage` in the page.
 * @returns The key, or `""`.
 */
export function loadApiKey(
  provider: Provider,
  storage: Storage | undefined = globalThis.sessionStorage,
): string {
  return storage?.getItem(KEY_PREFIX + provider) ?? "";
}

/**
 * Keeps (or, when empty, forgets) the API key for this tab's session.
 *
 * @param provider The provider.
 * @param key The key.
 * @param storage `sessionStorage` in the page.
 */
export function saveApiKey(
  provider: Provider,
  key: string,
  storage: Storage | undefined = globalThis.sessionStorage,
): void {
  if (key === "") storage?.removeItem(KEY_PREFIX + provider);
  else storage?.setItem(KEY_PREFIX + provider, key);
}

/**
 * Why these settings cannot be saved, or `undefined`: Anthropic's API refuses every request
 * without a key, so an empty one would only fail on the next message; a provider needs a model
 * name, and an OpenAI-compatible server an http(s) URL. A local OpenAI-compatible server may
 * need no key.
 *
 * @param settings The settings about to be saved.
 * @param apiKey The key typed with them.
 */
export function settingsProblem(settings: Settings, apiKey: string): string | undefined {
  if (settings.provider === "anthropic") {
    if (apiKey.trim() === "") return "Anthropic needs an API key.";
    if (settings.anthropicModel.trim() === "") return "Name the Anthropic model to use.";
  }
  if (settings.provider === "openai") {
    if (!/^https?:\/\/[^/]/.test(settings.baseURL.trim())) {
      return "The server URL must start with http:// or https://.";
    }
    if (settings.openaiModel.trim() === "") return "Name the model to use.";
  }
  return undefined;
}

/**
 * Creates the model the settings select; for the in-browser choices that is the scripted model,
 * which answers until the in-browser model is ready (`InBrowserChoice`).
 *
 * @param settings The settings.
 * @param apiKey The provider's key (may be empty for a local OpenAI-compatible server).
 * @returns The model (the provider's adapter is loaded on demand).
 */
export async function createModel(settings: Settings, apiKey: string): Promise<Model> {
  // The provider adapters load on first use, so the offline page does not ship them.
  switch (settings.provider) {
    case "auto":
    case "built-in":
    case "webgpu":
    case "cpu":
    case "offline":
      return offlineModel();
    case "openai": {
      const { openAICompatible } = await import("./model/provider-adapters.ts");
      const options = { baseURL: settings.baseURL, model: settings.openaiModel };
      return openAICompatible(apiKey ? { ...options, apiKey } : options);
    }
    case "anthropic": {
      const { anthropic } = await import("./model/provider-adapters.ts");
      return anthropic({ apiKey, model: settings.anthropicModel });
    }
    default:
      return unreachable(settings.provider);
  }
}

/**
 * Returns the label the page shows for the selected model (for the in-browser choices, the
 * label of the model that answers until the in-browser one is ready).
 *
 * @param settings The settings.
 * @returns The label.
 */
export function modelLabel(settings: Settings): string {
  switch (settings.provider) {
    case "auto":
    case "built-in":
    case "webgpu":
    case "cpu":
    case "offline":
      return OFFLINE_MODEL_LABEL;
    case "openai":
      return `${settings.openaiModel} · OpenAI-compatible`;
    case "anthropic":
      return `${settings.anthropicModel} · Anthropic`;
    default:
      return unreachable(settings.provider);
  }
}
