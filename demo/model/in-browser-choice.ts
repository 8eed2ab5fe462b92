import { EventEmitter } from "eventemitter3";
import type { InBrowserModel } from "../../src/in-browser/index.ts";
import type { Model } from "../../src/models/index.ts";

/** The in-browser runtimes the page can pick, best first, as an `as const` list. */
export const IN_BROWSER_KINDS = ["built-in", "webgpu", "cpu"] as const;

/** In-browser runtime type. */
export type InBrowserKind = (typeof IN_BROWSER_KINDS)[number];

/** The GGUF the CPU path loads unless Settings name another (Qwen2.5 0.5B Instruct, Q4_K_M). */
export const DEFAULT_GGUF_URL =
  "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf";

/** The WebLLM model the WebGPU path loads unless Settings name another (no `shader-f16` needed). */
export const DEFAULT_WEBLLM_MODEL = "Qwen3-0.6B-q4f32_1-MLC";

/** What the visitor is told before anything large is fetched, per runtime (approximate). */
const DOWNLOAD_NOTE: Record<InBrowserKind, string> = {
  "built-in": "the browser downloads its own model once (Chrome: about 2 GB, shared by every site)",
  webgpu: "about 0.5 GB of weights, and 2 GB of GPU memory",
  cpu: "about 0.4 GB",
};

/** Where an in-browser model stands, discriminated by `type`. */
export type InBrowserState =
  | { type: "none" }
  | { type: "offer"; kind: InBrowserKind; label: string; size: string }
  | { type: "loading"; kind: InBrowserKind; label: string; progress: string }
  | { type: "ready"; kind: InBrowserKind; label: string }
  | { type: "failed"; kind: InBrowserKind; label: string; message: string };

/** Options of `InBrowserChoice`. */
export interface InBrowserChoiceOptions {
  /** The GGUF URL for the CPU path. */
  ggufUrl(): string;
  /** The WebLLM model id for the WebGPU path. */
  webLlmModel(): string;
  /** Remembers the models the visitor agreed to download (`localStorage` in the page). */
  storage?: Storage | undefined;
}

const ACCEPTED_KEY = "toolwire-demo-downloads";

/**
 * The in-browser model the page runs: which runtime this browser can use, the visitor's consent
 * before a large download (remembered, so the next visit loads from the browser's cache at once),
 * and the load's progress. Until a model is ready the page keeps the scripted model.
 */
export class InBrowserChoice extends EventEmitter<{ state: [InBrowserState] }> {
  state: InBrowserState = { type: "none" };
  #options: InBrowserChoiceOptions;
  #model: InBrowserModel | undefined;
  #key = "";

  constructor(options: InBrowserChoiceOptions) {
    super();
    this.#options = options;
  }

  /** The model to run now, or undefined while none is ready. */
  get model(): Model | undefined {
    return this.state.type === "ready" ? this.#model : undefined;
  }

  /**
   * Settles on a runtime: `auto` picks the best this browser has. A model that needs no
   * download, or whose download the visitor accepted before, starts loading; otherwise the
   * page offers it with its size.
   */
  async select(kind: InBrowserKind | "auto"): Promise<void> {
    const picked = kind === "auto" ? await detectBest() : kind;
    if (!picked) return this.#set({ type: "none" });
    const label = this.#label(picked);
    const key = `${picked}:${picked === "cpu" ? this.#options.ggufUrl() : picked === "webgpu" ? this.#options.webLlmModel() : ""}`;
    if (key === this.#key && this.state.type !== "failed" && this.state.type !== "none") return;
    await this.#model?.unload().catch(() => {});
    this.#model = undefined;
    this.#key = key;
    const noDownload = picked === "built-in" && (await builtInAvailability()) === "available";
    if (noDownload || this.#accepted().includes(key)) return this.#load(picked, label);
    this.#set({ type: "offer", kind: picked, label, size: DOWNLOAD_NOTE[picked] });
  }

  /** The visitor agreed to the download: remember it and load. */
  async accept(): Promise<void> {
    if (this.state.type !== "offer" && this.state.type !== "failed") return;
    const storage = this.#options.storage;
    storage?.setItem(ACCEPTED_KEY, JSON.stringify([...new Set([...this.#accepted(), this.#key])]));
    await this.#load(this.state.kind, this.state.label);
  }

  #accepted(): string[] {
    try {
      const saved = JSON.parse(this.#options.storage?.getItem(ACCEPTED_KEY) ?? "[]") as unknown;
      return Array.isArray(saved) ? saved.filter((s): s is string => typeof s === "string") : [];
    } catch {
      return [];
    }
  }

  #label(kind: InBrowserKind): string {
    switch (kind) {
      case "built-in":
        return "Built-in model · Prompt API";
      case "webgpu":
        return `${this.#options.webLlmModel()} · WebGPU (WebLLM)`;
      case "cpu": {
        const file = this.#options.ggufUrl().split(/[?#]/)[0]?.split("/").pop() ?? "GGUF";
        return `${file.replace(/\.gguf$/i, "")} · CPU (wllama)`;
      }
      default:
        return kind satisfies never;
    }
  }

  async #load(kind: InBrowserKind, label: string): Promise<void> {
    const key = this.#key;
    this.#set({ type: "loading", kind, label, progress: "starting…" });
    try {
      const model = await createInBrowserModel(kind, this.#options);
      model.onProgress((event) => {
        if (this.#key !== key) return;
        const progress =
          event.type === "download"
            ? event.total > 1
              ? `downloading ${mb(event.loaded)} of ${mb(event.total)}`
              : `downloading ${Math.round((event.loaded / (event.total || 1)) * 100)}%`
            : event.type === "initialize"
              ? `preparing${event.text ? `: ${event.text}` : "…"}`
              : "ready";
        if (event.type !== "ready") this.#set({ type: "loading", kind, label, progress });
      });
      this.#model = model;
      await model.load();
      if (this.#key === key) this.#set({ type: "ready", kind, label });
    } catch (error) {
      if (this.#key !== key) return;
      this.#model = undefined;
      const message = error instanceof Error ? error.message : String(error);
      this.#set({ type: "failed", kind, label, message });
    }
  }

  #set(state: InBrowserState): void {
    this.state = state;
    this.emit("state", state);
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;

// The runtimes and their adapters load only when this browser runs one.
async function createInBrowserModel(
  kind: InBrowserKind,
  options: InBrowserChoiceOptions,
): Promise<InBrowserModel> {
  const runtime = await import("./in-browser-adapters.ts");
  switch (kind) {
    case "built-in":
      return runtime.promptApiModel();
    case "webgpu":
      return runtime.webLlmModel({ model: options.webLlmModel(), temperature: 0.2 });
    case "cpu":
      return runtime.wllamaModel({
        model: options.ggufUrl(),
        wasmUrl: runtime.wllamaWasmUrl,
        temperature: 0.2,
      });
    default:
      return kind satisfies never;
  }
}

async function builtInAvailability(): Promise<string> {
  const api = (globalThis as { LanguageModel?: { availability(o?: object): Promise<string> } })
    .LanguageModel;
  if (!api) return "unavailable";
  try {
    return await api.availability({
      expectedInputs: [{ type: "text", languages: ["en"] }],
      expectedOutputs: [{ type: "text", languages: ["en"] }],
    });
  } catch {
    return "unavailable";
  }
}

/** Returns the best runtime this browser can run: built-in, else WebGPU, else CPU. */
export async function detectBest(): Promise<InBrowserKind | undefined> {
  if ((await builtInAvailability()) !== "unavailable") return "built-in";
  const gpu = (globalThis.navigator as { gpu?: { requestAdapter(): Promise<unknown> } } | undefined)
    ?.gpu;
  if (gpu && (await gpu.requestAdapter().catch(() => null))) return "webgpu";
  const wasm = globalThis.WebAssembly as unknown as Record<string, unknown> | undefined;
  if (wasm && "Suspending" in wasm) return "cpu";
  return undefined;
}
