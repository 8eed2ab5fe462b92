import { type Provider, type Settings, settingsProblem } from "../settings.ts";
import { element } from "./element.ts";

/**
 * Settings panel options interface.
 */
export interface SettingsPanelOptions {
  settings: Settings;
  /** Returns this tab's key for a provider. */
  apiKey(provider: Provider): string;
  /** Applies new settings and a key (kept in `sessionStorage` only). */
  save(settings: Settings, apiKey: string): void;
}

const PROVIDER_LABELS: Record<Provider, string> = {
  auto: "Best in-browser model this device runs (built-in, else WebGPU, else CPU)",
  "built-in": "Built-in model (Prompt API, Chrome)",
  webgpu: "WebLLM on WebGPU",
  cpu: "GGUF on the CPU (wllama)",
  offline: "Offline scripted model (no AI)",
  openai: "OpenAI-compatible (OpenAI, Ollama, LM Studio, vLLM…)",
  anthropic: "Anthropic",
};

/**
 * Creates the settings panel: the provider, its fields, the key, and a plain warning about
 * keys in browsers.
 *
 * @param options The current settings and what Save does.
 * @returns The panel element.
 */
export function createSettingsPanel(options: SettingsPanelOptions): HTMLElement {
  let provider = options.settings.provider;
  const input = (id: string, value: string, attrs: Record<string, string> = {}) =>
    element("input", {
      className: "input",
      attrs: { id, type: "text", value, autocomplete: "off", spellcheck: "false", ...attrs },
    });
  const baseURL = input("s-base-url", options.settings.baseURL, { type: "url" });
  const openaiModel = input("s-openai-model", options.settings.openaiModel);
  const anthropicModel = input("s-anthropic-model", options.settings.anthropicModel);
  const ggufUrl = input("s-gguf-url", options.settings.ggufUrl, { type: "url" });
  const webLlmModel = input("s-webllm-model", options.settings.webLlmModel);
  const key = input("s-key", "", { type: "password", placeholder: "Not stored beyond this tab" });
  const status = element("p", {
    className: "help",
    attrs: { role: "status", "aria-live": "polite" },
  });
  const field = (label: string, control: HTMLElement, help?: string) =>
    element("div", { className: "field" }, [
      element("label", { attrs: { for: control.id }, text: label }),
      control,
      help ? element("p", { className: "help", text: help }) : undefined,
    ]);
  const openaiFields = element("div", {}, [
    field(
      "Base URL",
      baseURL,
      "Ollama: http://127.0.0.1:11434/v1 (start it with OLLAMA_ORIGINS set to this page's origin). LM Studio: http://127.0.0.1:1234/v1.",
    ),
    field("Model", openaiModel),
  ]);
  const anthropicFields = element("div", {}, [field("Model", anthropicModel)]);
  const cpuFields = element("div", {}, [
    field(
      "GGUF URL",
      ggufUrl,
      "A chat model in GGUF format whose host allows this page (CORS); small instruct models (0.5–1.5B, Q4) suit a CPU. Downloaded once, then read from this browser's cache.",
    ),
  ]);
  const webLlmFields = element("div", {}, [
    field(
      "WebLLM model",
      webLlmModel,
      "A WebLLM model id; q4f32 models run without the shader-f16 GPU feature.",
    ),
  ]);
  const keyField = field("API key", key);
  const sync = () => {
    openaiFields.hidden = provider !== "openai";
    anthropicFields.hidden = provider !== "anthropic";
    cpuFields.hidden = provider !== "cpu" && provider !== "auto";
    webLlmFields.hidden = provider !== "webgpu" && provider !== "auto";
    keyField.hidden = provider !== "openai" && provider !== "anthropic";
    key.value = options.apiKey(provider);
  };
  const radios = element("fieldset", { className: "radios" }, [
    element("legend", { text: "Model" }),
    ...(Object.keys(PROVIDER_LABELS) as Provider[]).map((value) =>
      element("label", { className: "radio" }, [
        element("input", {
          attrs: { type: "radio", name: "provider", value, checked: value === provider },
          on: {
            change: () => {
              provider = value;
              sync();
            },
          },
        }),
        ` ${PROVIDER_LABELS[value]}`,
      ]),
    ),
  ]);
  sync();
  return element(
    "form",
    {
      className: "panel-body settings",
      on: {
        submit: (event) => {
          event.preventDefault();
          const next = {
            ...options.settings,
            provider,
            baseURL: baseURL.value.trim(),
            openaiModel: openaiModel.value.trim(),
            anthropicModel: anthropicModel.value.trim(),
            ggufUrl: ggufUrl.value.trim(),
            webLlmModel: webLlmModel.value.trim(),
          };
          const typed = provider === "openai" || provider === "anthropic" ? key.value.trim() : "";
          const problem = settingsProblem(next, typed);
          if (problem !== undefined) {
            status.textContent = `Not saved: ${problem}`;
            return;
          }
          options.save(next, typed);
          status.textContent = "Saved. The next message uses this model.";
        },
      },
    },
    [
      radios,
      openaiFields,
      anthropicFields,
      cpuFields,
      webLlmFields,
      keyField,
      element("div", { className: "warning", attrs: { role: "note" } }, [
        element("strong", { text: "About API keys in a browser. " }),
        "A key typed here is readable by this page's scripts and by your browser extensions, and requests go straight from your browser to the provider. The key is kept in sessionStorage for this tab only (gone when you close it), never in localStorage, IndexedDB, the URL or a log. Use a restricted, low-limit key, or a local model that needs none.",
      ]),
      element("button", {
        className: "button button-primary",
        text: "Save",
        attrs: { type: "submit" },
      }),
      status,
    ],
  );
}
