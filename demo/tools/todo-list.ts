import * as v from "valibot";
import { type CarriedState, defineTool, type Tool, ToolResult } from "../../src/index.ts";
import type { Store } from "../store.ts";
import { unreachable } from "../unreachable.ts";

/** Store key of the todo items. */
export const LIST_KEY = "todo";

/** The states of a todo item, as an `as const` list. */
export const TASK_STATUSES = ["pending", "in_progress", "done"] as const;

/** Todo status type. */
export type TodoStatus = (typeof TASK_STATUSES)[number];

/**
 * Todo item interface.
 */
export interface TodoItem {
  /** 1-based number, stable for the item's life. */
  id: number;
  /** What to do. */
  text: string;
  /** Where it stands. */
  status: TodoStatus;
}

/**
 * Todo list interface: the `todo` tool plus the list it edits.
 */
export interface TodoList {
  /** The tool; its `carriedState()` is the list, so the list survives compaction verbatim. */
  tool: Tool;
  /** The current items. */
  items(): readonly TodoItem[];
  /** The list as the carried-state body (`[ ]`, `[~]`, `[x]` markers), or `""` when empty. */
  body(): string;
  /** Loads the saved list. */
  load(): Promise<void>;
  /** Empties the list (a new conversation). */
  clear(): Promise<void>;
}

const MARKERS: Record<TodoStatus, string> = { pending: "[ ]", in_progress: "[~]", done: "[x]" };

/**
 * Renders todo items as the carried-state body: one `[marker] id. text` line per item.
 *
 * @param items The items.
 * @returns The body, without a trailing newline.
 */
export function todoBody(items: readonly TodoItem[]): string {
  return items.map((item) => `${MARKERS[item.status]} ${item.id}. ${item.text}`).join("\n");
}

/**
 * Creates the todo list and its `todo` tool. The tool writes (the list is state), and its
 * `carriedState()` returns `{ label: "todo", body }` so compaction keeps the list word for word.
 *
 * @param store Where the list is saved between reloads.
 * @returns The list.
 */
export function createTodoList(store: Store): TodoList {
  let items: TodoItem[] = [];
  const save = () => store.set(LIST_KEY, items);
  const tool = defineTool({
    name: "todo",
    title: "Todo list",
    description:
      "Edits the plan: `add` appends `items`; `start`, `complete` and `remove` act on item `id`; `list` shows it.",
    input: v.object({
      action: v.picklist(["add", "start", "complete", "remove", "list"]),
      items: v.optional(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(200)))),
      id: v.optional(v.pipe(v.number(), v.integer())),
    }),
    carriedState: (): CarriedState | undefined =>
      items.length === 0 ? undefined : { label: "todo", body: todoBody(items) },
    call: async ({ action, items: added, id }) => {
      switch (action) {
        case "add": {
          if (!added || added.length === 0) return ToolResult.error("`add` needs `items`.");
          let next = items.reduce((max, item) => Math.max(max, item.id), 0);
          for (const text of added) items.push({ id: ++next, text, status: "pending" });
          break;
        }
        case "start":
        case "complete":
        case "remove": {
          const item = items.find((candidate) => candidate.id === id);
          if (!item) return ToolResult.error(`There is no todo item #${id ?? "?"}.`);
          if (action === "remove") items = items.filter((candidate) => candidate !== item);
          else item.status = action === "start" ? "in_progress" : "done";
          break;
        }
        case "list":
          break;
        default:
          return unreachable(action);
      }
      if (action !== "list") await save();
      return ToolResult.text(items.length === 0 ? "The todo list is empty." : todoBody(items));
    },
  });
  return {
    tool,
    items: () => items,
    body: () => todoBody(items),
    async load() {
      items = (await store.get<TodoItem[]>(LIST_KEY)) ?? [];
    },
    async clear() {
      items = [];
      await store.delete(LIST_KEY);
    },
  };
}
