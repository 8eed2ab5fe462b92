// A real redis-server (Debian's package) for one test file: started on a free local port with
// nothing persisted, stopped by the file's afterAll.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

/** A running redis-server: its `redis://` URL and how to stop it. */
export interface RedisServer {
  readonly url: string;
  stop(): void;
}

/** Starts redis-server on a free port; resolves once it accepts connections. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const server = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  // Ready once it says so on stdout.
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("Ready to accept connections")) resolve();
    });
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => server.kill() };
}

/** A local port free right now (the OS picks it; nothing listens on it afterwards). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}
