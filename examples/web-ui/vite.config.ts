import { svelte } from "@sveltejs/vite-plugin-svelte";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// Three pages, one build: the React app (store and useChat modes) and the Svelte app.
export default defineConfig({
  base: "./",
  plugins: [react(), svelte()],
  build: {
    rollupOptions: {
      input: { index: "index.html", react: "react/index.html", svelte: "svelte/index.html" },
    },
  },
});
