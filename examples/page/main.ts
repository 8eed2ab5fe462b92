/**
 * An agent that runs entirely in the page: the model is any OpenAI-compatible endpoint the
 * visitor names (Ollama on their machine, started with OLLAMA_ORIGINS set to this page's
 * origin, needs no key), and its tools are the page's own. `npm run dev` serves it with Vite;
 * `npm run build` writes a static `dist/`.
 */

import { defineTool } from "toolwire";
import { Agent } from "toolwire/agent";
import { openAICompatible } from "toolwire/models";
import * as v from "valibot";

const now = defineTool({
  name: "now",
  description: "The visitor's current date and time",
  readOnly: true,
  input: v.object({}),
  call: () => new Date().toString(),
});

const form = document.querySelector("form") as HTMLFormElement;
const output = document.querySelector("output") as HTMLOutputElement;
const field = (name: string) => String(new FormData(form).get(name) ?? "");
const key = form.elements.namedItem("key") as HTMLInputElement;
key.value = sessionStorage.getItem("key") ?? "";

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  // A key shipped in page code is public; one the visitor types stays in this tab.
  sessionStorage.setItem("key", field("key"));
  const agent = new Agent({
    model: openAICompatible({
      baseURL: field("baseURL"),
      model: field("model"),
      ...(field("key") ? { apiKey: field("key") } : {}),
    }),
    tools: [now],
  });
  output.textContent = "";
  const run = agent.run(field("q"));
  for await (const e of run) if (e.type === "text_delta") output.append(e.text);
  const result = await run.result;
  if (result.stop === "error") output.append(`\n(${String(result.error)})`);
});
