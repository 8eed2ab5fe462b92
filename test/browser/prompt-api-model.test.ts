// promptApiModel against the real Prompt API of the Chromium the tests run: headless Chromium
// has `LanguageModel` but no model behind it, so the adapter must say so with `unsupported`
// rather than fail later or hang. (test/in-browser/prompt-api-model.test.ts covers turns and
// tool use against a stand-in that follows the IDL.)
import { expect, test } from "vitest";
import { promptApiModel } from "../../src/in-browser/index.ts";

test("promptApiModel reports which part of the built-in model this browser lacks, as unsupported", async () => {
  const api = (globalThis as { LanguageModel?: { availability(o?: object): Promise<string> } })
    .LanguageModel;
  const error = await promptApiModel()
    .load()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  if (
    api &&
    (await api.availability({ expectedOutputs: [{ type: "text", languages: ["en"] }] })) ===
      "available"
  ) {
    // A browser with a working built-in model loads it (only by hand: see README).
    expect(error).toBeUndefined();
    return;
  }
  expect(error).toMatchObject({
    type: "unsupported",
    data: { missing: api ? "the built-in model" : "the Prompt API" },
  });
});
