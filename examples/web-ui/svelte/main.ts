/** The Svelte app: the store front end over the agent in ../agent.ts. */

import { mount } from "svelte";
import { readable } from "svelte/store";
import { createNotesStore } from "../keep.ts";
import App from "./App.svelte";

const store = createNotesStore();
// toolwire/ui's store as a Svelte store: `$view` in the component re-renders on each change.
const view = readable(store.getSnapshot(), (set) =>
  store.subscribe(() => set(store.getSnapshot())),
);
mount(App, { target: document.getElementById("app") as HTMLElement, props: { store, view } });
