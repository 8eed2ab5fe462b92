import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  build: { outDir: "demo-dist", emptyOutDir: true },
  server: { host: "127.0.0.1", port: 5173, strictPort: true },
  preview: { host: "127.0.0.1", port: 4173, strictPort: true },
});
