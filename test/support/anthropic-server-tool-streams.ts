// Messages API streams of turns in which Anthropic ran its own tools (server tools), written
// byte for byte in the form the API sends them: `event:` and `data:` lines, `ping` frames, the
// full `message_start`, `citations_delta`, and `server_tool_use` counts in the final usage. The
// block shapes follow Anthropic's documentation of each tool (web search, web fetch, code
// execution in both versions, tool search, advisor) and the response schema of
// `@ai-sdk/anthropic`. Ids, encrypted fields and texts are shortened stand-ins.

const frame = (event: string, data: string) => `event: ${event}\ndata: ${data}\n\n`;

function stream(model: string, blocks: string[], stop: string, usage: string): string {
  const start = `{"type":"message_start","message":{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"${model}","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":2679,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":3}}}`;
  return (
    frame("message_start", start) +
    frame("ping", `{"type":"ping"}`) +
    blocks.join("") +
    frame(
      "message_delta",
      `{"type":"message_delta","delta":{"stop_reason":"${stop}","stop_sequence":null},"usage":${usage}}`,
    ) +
    frame("message_stop", `{"type":"message_stop"}`)
  );
}

const blockStart = (index: number, block: string) =>
  frame(
    "content_block_start",
    `{"type":"content_block_start","index":${index},"content_block":${block}}`,
  );
const delta = (index: number, body: string) =>
  frame("content_block_delta", `{"type":"content_block_delta","index":${index},"delta":${body}}`);
const blockStop = (index: number) =>
  frame("content_block_stop", `{"type":"content_block_stop","index":${index}}`);
const text = (index: number, parts: string[]) =>
  blockStart(index, `{"type":"text","text":""}`) +
  parts.map((part) => delta(index, JSON.stringify({ type: "text_delta", text: part }))).join("") +
  blockStop(index);
/** A `server_tool_use` block whose input streams as `input_json_delta` fragments. */
const serverToolUse = (index: number, id: string, name: string, json: string[]) =>
  blockStart(index, `{"type":"server_tool_use","id":"${id}","name":"${name}","input":{}}`) +
  json
    .map((part) => delta(index, JSON.stringify({ type: "input_json_delta", partial_json: part })))
    .join("") +
  blockStop(index);
/** A result block: it arrives whole in `content_block_start`, with no delta. */
const result = (index: number, block: string) => blockStart(index, block) + blockStop(index);

/** One server tool's recording and what the transcript must keep of it. */
export interface ServerToolRecording {
  /** The tool, as the model named it in `server_tool_use`. */
  tool: string;
  /** The stream. */
  sse: string;
  /** The answer text of the turn. */
  text: string;
  /** The server blocks, in order, as the API sent them (inputs joined). */
  blocks: Record<string, unknown>[];
  /** The turn's stop reason. */
  stopReason: string;
}

const searchId = "srvtoolu_014hJH82Qum7Td6UV8gDXThB";
const searchResult = {
  type: "web_search_tool_result",
  tool_use_id: searchId,
  content: [
    {
      type: "web_search_result",
      title: "Quantum Computing Breakthroughs in 2025",
      url: "https://example.com/quantum-2025",
      encrypted_content: "EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2",
      page_age: "April 30, 2025",
    },
  ],
};

/** `web_search_20250305`: text, a search, its results, then an answer citing them. */
export const webSearch: ServerToolRecording = {
  tool: "web_search",
  sse: stream(
    "claude-sonnet-4-5-20250929",
    [
      text(0, ["I'll search for recent", " quantum computing news."]),
      serverToolUse(1, searchId, "web_search", [
        "",
        '{"query',
        '": "quantum computing ',
        'breakthroughs 2025"}',
      ]),
      result(2, JSON.stringify(searchResult)),
      blockStart(3, `{"type":"text","text":"","citations":[]}`) +
        delta(
          3,
          JSON.stringify({
            type: "citations_delta",
            citation: {
              type: "web_search_result_location",
              cited_text: "Researchers demonstrated error-corrected logical qubits...",
              url: "https://example.com/quantum-2025",
              title: "Quantum Computing Breakthroughs in 2025",
              encrypted_index: "Eo8BCioIAhgBIiQyYjQ0OWJmZi1lNm",
            },
          }),
        ) +
        delta(3, JSON.stringify({ type: "text_delta", text: "Error-corrected qubits arrived." })) +
        blockStop(3),
    ],
    "end_turn",
    `{"input_tokens":10682,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":510,"server_tool_use":{"web_search_requests":1}}`,
  ),
  text: "I'll search for recent quantum computing news.Error-corrected qubits arrived.",
  blocks: [
    {
      type: "server_tool_use",
      id: searchId,
      name: "web_search",
      input: { query: "quantum computing breakthroughs 2025" },
    },
    searchResult,
  ],
  stopReason: "end_turn",
};

const fetchId = "srvtoolu_01AVQdNqSqN3YP2HHsYa7dQ8";
const fetchResult = {
  type: "web_fetch_tool_result",
  tool_use_id: fetchId,
  content: {
    type: "web_fetch_result",
    url: "https://example.com/article",
    content: {
      type: "document",
      source: {
        type: "text",
        media_type: "text/plain",
        data: "Full text content of the article...",
      },
      title: "Article Title",
      citations: { enabled: true },
    },
    retrieved_at: "2025-08-25T10:30:00Z",
  },
};

/** `web_fetch_20250910` (beta `web-fetch-2025-09-10`). */
export const webFetch: ServerToolRecording = {
  tool: "web_fetch",
  sse: stream(
    "claude-opus-4-1-20250805",
    [
      text(0, ["I'll fetch the article."]),
      serverToolUse(1, fetchId, "web_fetch", ['{"url": "https://exa', 'mple.com/article"}']),
      result(2, JSON.stringify(fetchResult)),
      text(3, ["The article says the content is full text."]),
    ],
    "end_turn",
    `{"input_tokens":25039,"output_tokens":931,"server_tool_use":{"web_fetch_requests":1}}`,
  ),
  text: "I'll fetch the article.The article says the content is full text.",
  blocks: [
    {
      type: "server_tool_use",
      id: fetchId,
      name: "web_fetch",
      input: { url: "https://example.com/article" },
    },
    fetchResult,
  ],
  stopReason: "end_turn",
};

const bashId = "srvtoolu_01B3C4D5E6F7G8H9I0J1K2L3";
const bashResult = {
  type: "bash_code_execution_tool_result",
  tool_use_id: bashId,
  content: {
    type: "bash_code_execution_result",
    stdout: "3.0\n",
    stderr: "",
    return_code: 0,
    content: [],
  },
};
const editorId = "srvtoolu_01C4D5E6F7G8H9I0J1K2L3M4";
const editorResult = {
  type: "text_editor_code_execution_tool_result",
  tool_use_id: editorId,
  content: { type: "text_editor_code_execution_create_result", is_file_update: false },
};

/** `code_execution_20250825`: a file written with the text editor, then run with bash. */
export const codeExecution: ServerToolRecording = {
  tool: "bash_code_execution",
  sse: stream(
    "claude-sonnet-4-5-20250929",
    [
      serverToolUse(0, editorId, "text_editor_code_execution", [
        '{"command": "create", "path": "mean.py", ',
        '"file_text": "print(sum([1,2,3,4,5])/5)\\n"}',
      ]),
      result(1, JSON.stringify(editorResult)),
      serverToolUse(2, bashId, "bash_code_execution", ['{"command": "python mean.py"}']),
      result(3, JSON.stringify(bashResult)),
      text(4, ["The mean is 3."]),
    ],
    "end_turn",
    `{"input_tokens":3012,"output_tokens":250,"server_tool_use":{"code_execution_requests":2}}`,
  ),
  text: "The mean is 3.",
  blocks: [
    {
      type: "server_tool_use",
      id: editorId,
      name: "text_editor_code_execution",
      input: { command: "create", path: "mean.py", file_text: "print(sum([1,2,3,4,5])/5)\n" },
    },
    editorResult,
    {
      type: "server_tool_use",
      id: bashId,
      name: "bash_code_execution",
      input: { command: "python mean.py" },
    },
    bashResult,
  ],
  stopReason: "end_turn",
};

const legacyId = "srvtoolu_01A2B3C4D5E6F7G8H9I0J1K2";
const legacyResult = {
  type: "code_execution_tool_result",
  tool_use_id: legacyId,
  content: {
    type: "code_execution_result",
    stdout: "Mean: 5.5\n",
    stderr: "",
    return_code: 0,
    content: [],
  },
};

/** `code_execution_20250522`: one `code_execution` call with Python code. */
export const legacyCodeExecution: ServerToolRecording = {
  tool: "code_execution",
  sse: stream(
    "claude-opus-4-20250514",
    [
      text(0, ["I'll calculate the mean."]),
      serverToolUse(1, legacyId, "code_execution", [
        '{"code": "import numpy as np\\ndata = ',
        '[1,2,3,4,5,6,7,8,9,10]\\nprint(f\\"Mean: {np.mean(data)}\\")"}',
      ]),
      result(2, JSON.stringify(legacyResult)),
      text(3, ["The mean is 5.5."]),
    ],
    "end_turn",
    `{"input_tokens":1510,"output_tokens":180,"server_tool_use":{"code_execution_requests":1}}`,
  ),
  text: "I'll calculate the mean.The mean is 5.5.",
  blocks: [
    {
      type: "server_tool_use",
      id: legacyId,
      name: "code_execution",
      input: {
        code: 'import numpy as np\ndata = [1,2,3,4,5,6,7,8,9,10]\nprint(f"Mean: {np.mean(data)}")',
      },
    },
    legacyResult,
  ],
  stopReason: "end_turn",
};

const searchToolId = "srvtoolu_01ABC123";
const toolSearchResult = {
  type: "tool_search_tool_result",
  tool_use_id: searchToolId,
  content: {
    type: "tool_search_tool_search_result",
    tool_references: [{ type: "tool_reference", tool_name: "get" }],
  },
};

/**
 * `tool_search_tool_regex_20251119`: the search finds a deferred client tool, which the model
 * then calls in the same turn; that `tool_use` (`toolu_…`) is the one call the agent runs.
 */
export const toolSearch: ServerToolRecording = {
  tool: "tool_search_tool_regex",
  sse: stream(
    "claude-sonnet-4-5-20250929",
    [
      text(0, ["I'll search for a tool that can get the weather."]),
      serverToolUse(1, searchToolId, "tool_search_tool_regex", ['{"query": "weather"}']),
      result(2, JSON.stringify(toolSearchResult)),
      blockStart(3, `{"type":"tool_use","id":"toolu_01XYZ789","name":"get","input":{}}`) +
        delta(3, JSON.stringify({ type: "input_json_delta", partial_json: '{"city": "Paris"}' })) +
        blockStop(3),
    ],
    "tool_use",
    `{"input_tokens":1840,"output_tokens":120}`,
  ),
  text: "I'll search for a tool that can get the weather.",
  blocks: [
    {
      type: "server_tool_use",
      id: searchToolId,
      name: "tool_search_tool_regex",
      input: { query: "weather" },
    },
    toolSearchResult,
  ],
  stopReason: "tool_use",
};

const advisorId = "srvtoolu_01Mq8xAdvisor4f2";
const advisorResult = {
  type: "advisor_tool_result",
  tool_use_id: advisorId,
  content: {
    type: "advisor_result",
    text: "Check the edge case of an empty list before dividing.",
  },
};

/** `advisor_20260301` (beta `advisor-tool-2026-03-01`): an empty input, the advice as result. */
export const advisor: ServerToolRecording = {
  tool: "advisor",
  sse: stream(
    "claude-haiku-4-5-20251001",
    [
      blockStart(0, `{"type":"server_tool_use","id":"${advisorId}","name":"advisor","input":{}}`) +
        blockStop(0),
      result(1, JSON.stringify(advisorResult)),
      text(2, ["Guard against an empty list first."]),
    ],
    "end_turn",
    `{"input_tokens":4210,"output_tokens":96}`,
  ),
  text: "Guard against an empty list first.",
  blocks: [{ type: "server_tool_use", id: advisorId, name: "advisor", input: {} }, advisorResult],
  stopReason: "end_turn",
};

/** Every recording, one per server tool. */
export const serverToolRecordings: readonly ServerToolRecording[] = [
  webSearch,
  webFetch,
  codeExecution,
  legacyCodeExecution,
  toolSearch,
  advisor,
];
