import type { Tool } from "../../src/index.ts";
import type { Store } from "../store.ts";
import { askUserTool } from "./ask-user.ts";
import { calculatorTool } from "./calculator.ts";
import { clockTool } from "./clock.ts";
import { noteTools } from "./notes.ts";
import { slowTaskTool } from "./slow-task.ts";
import { createTodoList, type TodoList } from "./todo-list.ts";

/**
 * Demo tools interface: every local tool of the page, and the todo list behind one of them.
 */
export interface DemoTools {
  /** The tools, for `Toolset.local`. */
  tools: Tool[];
  /** The todo list (its state is carried across compaction). */
  todo: TodoList;
}

/**
 * Creates the page's local tools: calculator, clock, notes, todo list, ask_user, slow_task.
 *
 * @param store Where notes and the todo list are saved.
 * @param options The slow task's tick, for tests.
 * @returns The tools and the todo list.
 */
export function createDemoTools(store: Store, options: { tickMs?: number } = {}): DemoTools {
  const todo = createTodoList(store);
  return {
    tools: [
      calculatorTool(),
      clockTool(),
      ...noteTools(store),
      todo.tool,
      askUserTool(),
      slowTaskTool(options.tickMs),
    ],
    todo,
  };
}
