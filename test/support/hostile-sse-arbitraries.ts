// fast-check arbitraries for the SSE answers of the hostile MCP server: items in any order,
// including the server's own requests (known, unknown, malformed) and bad notifications.
import fc from "fast-check";
import type { IdChoice, SseItem } from "./hostile-plan.ts";

const json = fc.jsonValue({ maxDepth: 3 });

/** Which id a response carries. */
export const idChoiceArb = fc.constantFrom<IdChoice>(
  "own",
  "other",
  "own_as_string",
  "null",
  "missing",
  "float",
);

const ELICIT_FORM = {
  message: "Name?",
  requestedSchema: { type: "object", properties: { name: { type: "string" } } },
};
const SAMPLE = {
  messages: [{ role: "user", content: { type: "text", text: "hi" } }],
  maxTokens: 9,
};

const METHODS = ["ping", "elicitation/create", "sampling/createMessage", "roots/list", "x/unknown"];

// Weighted toward the shapes that reach the caller as interactions.
const OBJECT_PARAMS: unknown[] = [
  ELICIT_FORM,
  ELICIT_FORM,
  SAMPLE,
  SAMPLE,
  undefined,
  {},
  { message: "x", requestedSchema: { type: 7 } },
  { message: "x", requestedSchema: { type: "object", required: ["name"] } },
  { requestedSchema: { type: "object", properties: { a: { $ref: "#/no" } }, required: 5 } },
  { mode: "url", url: "https://elsewhere.test", message: "go" },
  { mode: "form", requestedSchema: "schema" },
  { messages: "hi", maxTokens: 9 },
  { messages: [], maxTokens: -1 },
  { ...SAMPLE, tools: [] },
  { messages: [{ role: "robot", content: { type: "video" } }], maxTokens: 9 },
];

const usableId = fc.constantFrom<unknown>(1, 2, "q", 1.5);

/** Server requests with a usable id and object (or no) params, mostly elicitation and sampling. */
export const wellFormedRequestArb = fc.oneof(
  fc.record({
    type: fc.constant("request" as const),
    id: usableId,
    method: fc.constant("elicitation/create"),
    params: fc.constantFrom(...OBJECT_PARAMS.slice(0, 2), ...OBJECT_PARAMS.slice(6, 11)),
  }),
  fc.record({
    type: fc.constant("request" as const),
    id: usableId,
    method: fc.constant("sampling/createMessage"),
    params: fc.constantFrom(...OBJECT_PARAMS.slice(2, 4), ...OBJECT_PARAMS.slice(11)),
  }),
  fc.record({
    type: fc.constant("request" as const),
    id: usableId,
    method: fc.constantFrom(...METHODS),
    params: fc.constantFrom(...OBJECT_PARAMS),
  }),
);

const serverRequestArb = fc.record({
  id: fc.constantFrom<unknown>(1, 2, "q", null, { id: 1 }, 1.5),
  method: fc.constantFrom(...METHODS),
  params: fc.oneof(fc.constantFrom<unknown>(...OBJECT_PARAMS, 5, "params", []), json),
});

const GARBAGE = [
  "data: {not json\n\n",
  "event: x\n",
  "retry: soon\n",
  "id: \u0000\n",
  "data\n\n",
  "\r\n\r",
  "data: [1,\r\n\n",
  "::::\n",
  "field without colon\n",
  "\uFEFF",
  'data: "é"\n\n',
  "data: \n\n",
  "\n\n\n",
];

/** Items of a hostile SSE answer. */
export const sseItemArb: fc.Arbitrary<SseItem> = fc.oneof(
  { arbitrary: fc.record({ type: fc.constant("response"), id: idChoiceArb }), weight: 4 },
  { arbitrary: fc.record({ type: fc.constant("json"), value: json }), weight: 1 },
  {
    arbitrary: fc.record({
      type: fc.constant("garbage"),
      text: fc.oneof(fc.constantFrom(...GARBAGE), fc.string({ maxLength: 12 })),
    }),
    weight: 2,
  },
  { arbitrary: fc.constant({ type: "comment" as const }), weight: 1 },
  { arbitrary: fc.constant({ type: "priming" as const }), weight: 1 },
  {
    arbitrary: fc.record(
      {
        type: fc.constant("progress"),
        own: fc.boolean(),
        progress: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double(), fc.constant<unknown>("1")),
        total: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant<unknown>("ten")),
      },
      { requiredKeys: ["type", "own", "progress"] },
    ),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("log"),
      level: fc.constantFrom<unknown>("info", "error", "emergency", "verbose", 5, null),
      data: json,
    }),
    weight: 2,
  },
  {
    arbitrary: serverRequestArb.map((request) => ({ type: "request" as const, ...request })),
    weight: 3,
  },
  {
    arbitrary: fc.record({
      type: fc.constant("notification"),
      method: fc.constantFrom(
        "notifications/progress",
        "notifications/message",
        "notifications/cancelled",
        "notifications/tools/list_changed",
        "x/y",
      ),
      params: fc.oneof(json, fc.constant<unknown>({ progressToken: 1, progress: -1 })),
    }),
    weight: 1,
  },
);
