/**
 * Intent type: what the offline scripted model understood from one user message,
 * discriminated by `type`.
 */
export type Intent =
  | { type: "calculate"; expression: string }
  | { type: "save_note"; text: string }
  | { type: "list_notes" }
  | { type: "add_todos"; items: string[] }
  | { type: "update_todo"; action: "start" | "complete" | "remove"; id: number }
  | { type: "list_todos" }
  | { type: "clock"; timeZone?: string }
  | { type: "ask_user"; question: string }
  | { type: "slow_task" }
  | { type: "compact" }
  | { type: "call_tool"; name: string; arguments: unknown }
  | { type: "greeting" }
  | { type: "help" };

const LEAD = String.raw`^(?:(?:please|ok|okay|now|and|also|then)[,\s]+)*`;
const CALL_TOOL =
  /^(?:call|use|run)\s+(?:the\s+)?(?:tool\s+)?`?([A-Za-z0-9_-]+)`?(?:\s+(?:with\s+)?(\{.*\}))?\s*$/is;
const NOTE = new RegExp(
  `${LEAD}(?:add|save|write|take|make)\\s+(?:a\\s+|this\\s+)?note\\s*(?:that|saying|:|-)?\\s*(.+)$`,
  "is",
);
const REMEMBER = new RegExp(`${LEAD}remember\\s+(?:that\\s+)?(.+)$`, "is");
const ADD_TASKS = new RegExp(
  `${LEAD}add\\s+(?:an?\\s+|some\\s+)?(?:todos?|tasks?|to-dos?)(?:\\s+items?)?\\s*(?::|-)?\\s*(.+)$`,
  "is",
);
const UPDATE =
  /\b(start|begin|complete|finish|tick off|check off|remove|delete)\s+(?:the\s+)?(?:todo|task|item|to-do)?\s*(?:number\s+|#)?(\d+)\b/i;
const ASK = new RegExp(`${LEAD}ask\\s+me\\s+(?:for\\s+|about\\s+)?(.+?)[?.!]*$`, "is");
const CALCULATE = new RegExp(
  `${LEAD}(?:calculate|compute|evaluate|work out|what(?:'s|\\s+is))\\s+(.+?)[?.!]*$`,
  "is",
);
const ARITHMETIC = /^[\d\s.+\-*/%^()×÷]+$/;
const ZONE = /\bin\s+([A-Za-z]+\/[A-Za-z_]+(?:\/[A-Za-z_]+)?|UTC)\b/;

/**
 * Returns the intent of one user message: the phrasings the suggested prompts use, and a few
 * variants of each. Anything else is `help`.
 *
 * It is pattern matching, not language understanding; the page says so, and a real model
 * can be switched on in the settings.
 *
 * @param text The user's message.
 * @returns The intent.
 */
export function parseIntent(text: string): Intent {
  const message = text.trim();
  const callTool = CALL_TOOL.exec(message);
  if (callTool) return callToolIntent(callTool[1] as string, callTool[2]);
  const note = NOTE.exec(message) ?? REMEMBER.exec(message);
  if (note) return { type: "save_note", text: (note[1] as string).trim() };
  const todos = ADD_TASKS.exec(message);
  if (todos) return { type: "add_todos", items: splitItems(todos[1] as string) };
  const update = UPDATE.exec(message);
  if (update) return updateIntent((update[1] as string).toLowerCase(), Number(update[2]));
  const ask = ASK.exec(message);
  if (ask) return { type: "ask_user", question: question(ask[1] as string) };
  const calculation = CALCULATE.exec(message);
  const expression = calculation?.[1]?.trim();
  if (expression && ARITHMETIC.test(expression) && /\d/.test(expression)) {
    return { type: "calculate", expression };
  }
  if (ARITHMETIC.test(message) && /\d\s*[-+*/%^×÷]\s*[\d(]/.test(message)) {
    return { type: "calculate", expression: message };
  }
  if (/\b(list|show|read|what are)\b.*\bnotes?\b/i.test(message)) return { type: "list_notes" };
  if (/\b(list|show|see|what'?s on)\b.*\b(todos?|to-dos?|tasks|plan)\b/i.test(message)) {
    return { type: "list_todos" };
  }
  if (/\bslow\b|\blong[- ]running\b|\blong (task|job)\b/i.test(message))
    return { type: "slow_task" };
  if (/\bcompact\b/i.test(message)) return { type: "compact" };
  if (/\b(time|date|clock|what day)\b/i.test(message)) {
    const zone = ZONE.exec(message)?.[1];
    return zone ? { type: "clock", timeZone: zone } : { type: "clock" };
  }
  if (/^(hi|hello|hey|good (morning|afternoon|evening))\b/i.test(message))
    return { type: "greeting" };
  return { type: "help" };
}

function callToolIntent(name: string, json: string | undefined): Intent {
  if (json === undefined) return { type: "call_tool", name, arguments: {} };
  try {
    return { type: "call_tool", name, arguments: JSON.parse(json) };
  } catch {
    return { type: "help" };
  }
}

function updateIntent(verb: string, id: number): Intent {
  if (verb === "start" || verb === "begin") return { type: "update_todo", action: "start", id };
  if (verb === "remove" || verb === "delete") return { type: "update_todo", action: "remove", id };
  return { type: "update_todo", action: "complete", id };
}

function splitItems(list: string): string[] {
  // "and" separates items only in a list that has commas ("a, b and c"), so a single
  // item such as "buy bread and milk" stays whole.
  const separator = /[,;\n]/.test(list) ? /\s*[,;\n]\s*|\s+and\s+(?=[^,;\n]*$)/ : /\n/;
  return list
    .split(separator)
    .map((item) => item.trim().replace(/[.!]+$/, ""))
    .filter((item) => item !== "");
}

function question(topic: string): string {
  const phrased = topic
    .trim()
    .replace(/\bmy\b/gi, "your")
    .replace(/\bme\b/gi, "you")
    .replace(/\bI\b/g, "you");
  if (
    /^(what|which|who|where|when|why|how|do|does|did|is|are|can|could|would|will)\b/i.test(phrased)
  ) {
    return `${phrased[0]?.toUpperCase()}${phrased.slice(1)}?`;
  }
  return `What is ${phrased}?`;
}
