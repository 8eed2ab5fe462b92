import { describe, expect, test } from "vitest";
import {
  createToolCallParser,
  parseToolCalls,
  type TextToolCall,
  type ToolCallFormat,
  type ToolCallTextPart,
} from "../../src/models/tool-call-text.ts";

const paris: TextToolCall = { name: "get_weather", arguments: { city: "Paris" } };

// Literal outputs of each family, as their chat templates and model cards write them
// (docs/design.md, "In-browser models", lists the sources).
const fixtures: Array<{
  family: string;
  format: ToolCallFormat;
  output: string;
  calls: TextToolCall[];
  text?: string;
  reasoning?: string;
}> = [
  {
    family: "Qwen2.5 / Hermes 2 Pro",
    format: "hermes",
    output: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    calls: [paris],
  },
  {
    family: "Qwen3 with thinking",
    format: "hermes",
    output:
      '<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    calls: [paris],
    reasoning: "The user wants the weather.",
  },
  {
    family: "Qwen3, two calls after a sentence",
    format: "hermes",
    output:
      'Let me check both.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>',
    calls: [paris, { name: "get_weather", arguments: { city: "Tokyo" } }],
    text: "Let me check both.",
  },
  {
    family: "SmolLM2",
    format: "hermes",
    output: '<tool_call>[\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n]</tool_call>',
    calls: [paris],
  },
  {
    family: "Qwen3-Coder",
    format: "qwen3_coder",
    output:
      "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
    calls: [{ name: "get_weather", arguments: { city: "Paris", days: 3 } }],
  },
  {
    family: "Llama 3.1 / 3.2 JSON",
    format: "llama3",
    output: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    calls: [paris],
  },
  {
    family: "Llama 3.1 with python_tag",
    format: "llama3",
    output: '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}',
    calls: [paris],
  },
  {
    family: "Llama 3.2 1B/3B (Pythonic, from the model card)",
    format: "pythonic",
    output: "[get_user_info(user_id=7890, special='black')]",
    calls: [{ name: "get_user_info", arguments: { user_id: 7890, special: "black" } }],
  },
  {
    family: "Gemma 3 (Pythonic)",
    format: "pythonic",
    output: '[get_product_name_by_PID(PID="807ZPKBL9V")]',
    calls: [{ name: "get_product_name_by_PID", arguments: { PID: "807ZPKBL9V" } }],
  },
  {
    family: "Gemma 3 (JSON)",
    format: "llama3",
    output: '{"name": "get_weather", "parameters": {"city": "Paris"}}',
    calls: [paris],
  },
  {
    family: "Gemma 4",
    format: "gemma4",
    output: '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>',
    calls: [{ name: "get_weather", arguments: { city: "Paris", days: 3 } }],
  },
  {
    family: "LFM2 (Pythonic, the default)",
    format: "lfm2",
    output: '<|tool_call_start|>[get_candidate_status(candidate_id="12345")]<|tool_call_end|>',
    calls: [{ name: "get_candidate_status", arguments: { candidate_id: "12345" } }],
  },
  {
    family: "LFM2 (JSON on request)",
    format: "lfm2",
    output:
      '<|tool_call_start|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]<|tool_call_end|>',
    calls: [paris],
  },
  {
    family: "Phi-4-mini (vLLM template)",
    format: "phi4",
    output: 'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
    calls: [paris],
  },
  {
    family: "Phi-4-mini (llama.cpp template)",
    format: "phi4",
    output: '<|tool_call|>{"name": "get_weather", "arguments": {"city": "Paris"}}<|/tool_call|>',
    calls: [paris],
  },
  {
    family: "Mistral Nemo",
    format: "mistral",
    output:
      '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abc123def"}]',
    calls: [paris],
  },
  {
    family: "Mistral (v11 tokenizer)",
    format: "mistral",
    output: '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
    calls: [paris],
  },
  {
    family: "@browser-ai prompt",
    format: "fenced",
    output: '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
    calls: [paris],
  },
];

// Splits the output into chunks of every size from 1 to 7 characters, as a runtime streams it.
function streamed(output: string, size: number, formats?: ToolCallFormat[]) {
  const parser = createToolCallParser(formats ? { formats } : {});
  const parts: ToolCallTextPart[] = [];
  for (let i = 0; i < output.length; i += size)
    parts.push(...parser.push(output.slice(i, i + size)));
  const end = parser.end();
  parts.push(...end.parts);
  const join = (type: string) =>
    parts
      .filter((p) => p.type === type)
      .map((p) => p.text)
      .join("");
  return { text: join("text"), reasoning: join("reasoning"), calls: end.calls };
}

describe("parseToolCalls", () => {
  for (const fixture of fixtures) {
    test(`reads a ${fixture.family} call, with the default formats and with its own`, () => {
      for (const options of [{}, { formats: [fixture.format] }]) {
        const parsed = parseToolCalls(fixture.output, options);
        expect(parsed.calls).toEqual(fixture.calls);
        expect(parsed.text).toBe(fixture.text ?? "");
        expect(parsed.reasoning).toBe(fixture.reasoning);
      }
    });
  }

  test("leaves a plain answer alone", () => {
    expect(parseToolCalls("It is sunny in Paris.")).toEqual({
      text: "It is sunny in Paris.",
      calls: [],
    });
  });

  test("keeps a tagged call whose JSON does not parse as text, with no invented call", () => {
    const output = '<tool_call>\n{"name": "get_weather", "arguments": {"city": }\n</tool_call>';
    expect(parseToolCalls(output)).toEqual({ text: output, calls: [] });
  });

  test("does not take an answer that shows JSON for a call when the family has no bare format", () => {
    const output = '{"name": "get_weather", "parameters": {"city": "Paris"}}';
    expect(parseToolCalls(output, { formats: ["hermes"] })).toEqual({ text: output, calls: [] });
  });

  test("reads Python literals in Pythonic arguments", () => {
    const parsed = parseToolCalls(
      "[plan(steps=['a', \"b\\\"c\"], flags={'x': True, 'y': None}, ratio=-0.5), noop()]",
      { formats: ["pythonic"] },
    );
    expect(parsed.calls).toEqual([
      {
        name: "plan",
        arguments: { steps: ["a", 'b"c'], flags: { x: true, y: null }, ratio: -0.5 },
      },
      { name: "noop", arguments: {} },
    ]);
  });
});

describe("createToolCallParser", () => {
  for (const fixture of fixtures) {
    test(`streams a ${fixture.family} answer in chunks of any size to the same calls, showing no markup`, () => {
      for (let size = 1; size <= 7; size++) {
        const out = streamed(fixture.output, size, [fixture.format]);
        expect(out.calls).toEqual(fixture.calls);
        expect(out.text.trim()).toBe(fixture.text ?? "");
        expect(out.reasoning.trim()).toBe(fixture.reasoning ?? "");
      }
    });
  }

  test("lets answer text out as it comes and holds back only what may start a call", () => {
    const parser = createToolCallParser({ formats: ["hermes"] });
    expect(parser.push("It is ")).toEqual([{ type: "text", text: "It is " }]);
    expect(parser.push("sunny <tool")).toEqual([{ type: "text", text: "sunny " }]);
    expect(parser.push(" party")).toEqual([{ type: "text", text: "<tool party" }]);
    expect(parser.end()).toEqual({ parts: [], calls: [] });
  });

  test("streams a think block as reasoning before the answer", () => {
    const out = streamed("<think>\nweigh it\n</think>\n\nIt is sunny.", 3, ["hermes"]);
    expect(out).toEqual({ text: "It is sunny.", reasoning: "\nweigh it\n", calls: [] });
  });

  test("gives back held text that turned out to be no call", () => {
    const out = streamed("[1, 2, 3] are the numbers", 4);
    expect(out).toEqual({ text: "[1, 2, 3] are the numbers", reasoning: "", calls: [] });
  });
});
