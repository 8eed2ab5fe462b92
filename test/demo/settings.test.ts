import { describe, expect, it } from "vitest";
import {
  createModel,
  DEFAULT_SETTINGS,
  loadApiKey,
  loadSettings,
  modelLabel,
  saveApiKey,
  saveSettings,
  settingsProblem,
} from "../../demo/settings.ts";

function fakeStorage(): Storage & { dump(): Record<string, string> } {
  const values = new Map<string, string>();
  return {
    get length() {
      return values.size;
    },
    clear: () => values.clear(),
    getItem: (key) => values.get(key) ?? null,
    key: (index) => [...values.keys()][index] ?? null,
    removeItem: (key) => {
      values.delete(key);
    },
    setItem: (key, value) => {
      values.set(key, String(value));
    },
    dump: () => Object.fromEntries(values),
  };
}

describe("demo settings", () => {
  it("starts on the best in-browser model, answered by the scripted model until one is ready, with a low compaction threshold, labelled honestly", async () => {
    const settings = loadSettings(fakeStorage());
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(settings.provider).toBe("auto");
    expect(modelLabel(settings)).toBe("Offline scripted model (no AI)");
    expect((await createModel(settings, "")).id).toBe("offline-scripted");
    const local = await createModel({ ...settings, provider: "openai" }, "");
    expect(local.id).toBe(DEFAULT_SETTINGS.openaiModel);
  });

  it("keeps the API key in session storage only, never with the saved settings", () => {
    const local = fakeStorage();
    const session = fakeStorage();
    const settings = { ...DEFAULT_SETTINGS, provider: "anthropic" as const };
    // Even a settings object that accidentally carries a key must not persist it.
    saveSettings({ ...settings, apiKey: "sk-secret" } as typeof settings, local);
    saveApiKey("anthropic", "sk-secret", session);
    expect(JSON.stringify(local.dump())).not.toContain("sk-secret");
    expect(loadSettings(local).provider).toBe("anthropic");
    expect(loadApiKey("anthropic", session)).toBe("sk-secret");
    expect(loadApiKey("openai", session)).toBe("");
    saveApiKey("anthropic", "", session);
    expect(session.dump()).toEqual({});
  });

  it("keeps the in-browser model choices with the settings", () => {
    const local = fakeStorage();
    const ggufUrl = "https://models.example/mine.gguf";
    saveSettings({ ...DEFAULT_SETTINGS, provider: "cpu", ggufUrl }, local);
    expect(loadSettings(local)).toMatchObject({ provider: "cpu", ggufUrl });
  });

  it("ignores corrupt or unknown saved settings", () => {
    const local = fakeStorage();
    local.setItem("toolwire-demo-settings", "{not json");
    expect(loadSettings(local)).toEqual(DEFAULT_SETTINGS);
    local.setItem("toolwire-demo-settings", JSON.stringify({ provider: "mystery" }));
    expect(loadSettings(local).provider).toBe("offline");
  });
});

describe("settingsProblem", () => {
  // Issue 30 point 6: Settings saved Anthropic with an empty key, which failed only later.
  it("refuses Anthropic without a key, and says so", () => {
    const anthropic = { ...DEFAULT_SETTINGS, provider: "anthropic" as const };
    expect(settingsProblem(anthropic, "")).toBe("Anthropic needs an API key.");
    expect(settingsProblem(anthropic, "   ")).toBe("Anthropic needs an API key.");
    expect(settingsProblem(anthropic, "sk-ant-x")).toBeUndefined();
    expect(settingsProblem({ ...anthropic, anthropicModel: "" }, "sk-ant-x")).toBe(
      "Name the Anthropic model to use.",
    );
  });

  it("lets a local OpenAI-compatible server go without a key, but not without a URL", () => {
    const local = {
      ...DEFAULT_SETTINGS,
      provider: "openai" as const,
      baseURL: "http://localhost:11434/v1",
    };
    expect(settingsProblem(local, "")).toBeUndefined();
    expect(settingsProblem({ ...local, baseURL: "localhost:11434" }, "")).toBe(
      "The server URL must start with http:// or https://.",
    );
  });

  it("has nothing to say about the models that need no key", () => {
    expect(settingsProblem(DEFAULT_SETTINGS, "")).toBeUndefined();
  });
});
