// Serves a web-standard fetch handler on 127.0.0.1 (a free port) through node:http, streaming
// the response body chunk by chunk (SSE must not be buffered). Node only.
//
// Hint: `node:http` is loaded with a dynamic import and typed by the small slice declared
// below, because the root tsconfig has no Node types (so `src/` cannot lean on Node globals).

interface NodeRequest {
  method?: string;
  url?: string;
  headers: Record<string, string | string[] | undefined>;
  on(event: "data", listener: (chunk: Uint8Array) => void): unknown;
  on(event: "end", listener: () => void): unknown;
}

interface NodeResponse {
  readonly writableEnded: boolean;
  writeHead(status: number, headers: [string, string][]): unknown;
  flushHeaders(): void;
  write(chunk: Uint8Array): boolean;
  end(): unknown;
  destroy(): unknown;
  on(event: "close", listener: () => void): unknown;
}

interface NodeServer {
  listen(port: number, host: string, callback: () => void): unknown;
  address(): { port: number } | string | null;
  close(callback: () => void): unknown;
  closeAllConnections(): void;
}

interface NodeHttp {
  createServer(handler: (req: NodeRequest, res: NodeResponse) => void): NodeServer;
}

/** A running server. */
export interface PortServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts serving `handler`. The `Request` it gets aborts its signal when the client leaves.
 *
 * @param handler The fetch handler.
 * @returns The running server.
 */
export async function serveFetchOnPort(
  handler: (request: Request) => Promise<Response>,
): Promise<PortServer> {
  const specifier = "node:http";
  const http = (await import(specifier)) as NodeHttp;
  const server = http.createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const gone = new AbortController();
      res.on("close", () => {
        if (!res.writableEnded) gone.abort();
      });
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) {
        if (typeof value === "string") headers.set(name, value);
        else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
      }
      const method = req.method ?? "GET";
      const init: RequestInit = { method, headers, signal: gone.signal };
      if (method !== "GET" && method !== "HEAD") init.body = concat(chunks);
      const origin = `http://${req.headers.host ?? "127.0.0.1"}`;
      void (async () => {
        try {
          const response = await handler(new Request(new URL(req.url ?? "/", origin), init));
          res.writeHead(response.status, [...response.headers]);
          res.flushHeaders();
          if (!response.body) {
            res.end();
            return;
          }
          const reader = response.body.getReader();
          gone.signal.addEventListener("abort", () => void reader.cancel().catch(() => {}));
          for (;;) {
            const { value, done } = await reader.read();
            if (done) break;
            res.write(value);
          }
          res.end();
        } catch {
          res.destroy();
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    origin: `http://127.0.0.1:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function concat(chunks: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
