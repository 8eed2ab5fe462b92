import * as v from "valibot";
import { defineTool, type Tool, ToolResult } from "../../src/index.ts";
import type { Store } from "../store.ts";

/** Store key of the saved notes. */
export const NOTES_KEY = "notes";

/**
 * Note interface: one saved note.
 */
export interface Note {
  /** 1-based number, stable for the note's life. */
  id: number;
  /** The note's text. */
  text: string;
  /** When it was saved (ISO 8601). */
  savedAt: string;
}

/**
 * Creates the note tools over a store: `save_note` (writes, so it needs approval) and
 * `list_notes` (read-only; it declares `privateData`, because notes are the user's own).
 *
 * @param store Where the notes live (IndexedDB in the page).
 * @returns The two tools.
 */
export function noteTools(store: Store): Tool[] {
  const load = async (): Promise<Note[]> => (await store.get<Note[]>(NOTES_KEY)) ?? [];
  const saveNote = defineTool({
    name: "save_note",
    title: "Save a note",
    description: "Saves a short note in the browser's storage (IndexedDB). Needs approval.",
    input: v.object({ text: v.pipe(v.string(), v.minLength(1), v.maxLength(2000)) }),
    call: async ({ text }) => {
      const notes = await load();
      const id = notes.reduce((max, note) => Math.max(max, note.id), 0) + 1;
      notes.push({ id, text, savedAt: new Date().toISOString() });
      await store.set(NOTES_KEY, notes);
      return ToolResult.text(`Saved note #${id}: ${text}`);
    },
  });
  const listNotes = defineTool({
    name: "list_notes",
    title: "List notes",
    description: "Lists the notes saved so far, oldest first.",
    readOnly: true,
    capabilities: { privateData: true },
    input: v.object({}),
    call: async () => {
      const notes = await load();
      if (notes.length === 0) return ToolResult.text("There are no notes yet.");
      return ToolResult.text(notes.map((note) => `#${note.id}: ${note.text}`).join("\n"));
    },
  });
  return [saveNote, listNotes];
}
