// A local HTTP server (127.0.0.1, a free port) that replays model providers' wire formats
// byte-exactly, for the adapter tests. Node only: the tests that use it run in the node project.
//
// `node:http` is loaded with a dynamic import and typed by the small slice declared
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
  readonly socket: { setNoDelay(noDelay: boolean): unknown } | null;
  writeHead(status: number, headers: Record<string, string>): unknown;
  flushHeaders(): void;
  write(chunk: Uint8Array | string, callback: () => void): boolean;
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

/**
 * Replay request interface: one request the server received.
 */
export interface ReplayRequest {
  method: string;
  path: string;
  /** Header names are lower-case, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  /** The body parsed as JSON (`undefined` when it is not JSON). */
  body: unknown;
}

/**
 * Replay exchange interface: one request and the means to answer it byte by byte.
 */
export interface ReplayExchange {
  request: ReplayRequest;
  /** Resolves when the connection closes before the response was ended (the client left). */
  clientGone: Promise<void>;
  /** Sends the status line and headers at once. */
  head(status: number, headers?: Record<string, string>): void;
  /** Writes one chunk, waits until the socket took it, then pauses so it travels alone. */
  write(chunk: Uint8Array | string): Promise<void>;
  /** Ends the response normally. */
  end(): void;
  /** Destroys the socket mid-response (a broken connection). */
  destroy(): void;
}

/**
 * Replay server interface.
 */
export interface ReplayServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Every request received, in order. */
  requests: ReplayRequest[];
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

/**
 * Starts a replay server; each request is answered by the handler.
 *
 * @param handler Answers one exchange.
 * @param pauseMs Pause after each write, so chunks reach the client one by one.
 * @returns The running server.
 */
export async function startReplayServer(
  handler: (exchange: ReplayExchange) => Promise<void> | void,
  pauseMs = 3,
): Promise<ReplayServer> {
  const specifier = "node:http";
  const http = (await import(specifier)) as NodeHttp;
  const requests: ReplayRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Uint8Array[] = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const text = new TextDecoder().decode(concat(chunks));
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const request = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body };
      requests.push(request);
      const clientGone = new Promise<void>((resolve) => {
        res.on("close", () => {
          if (!res.writableEnded) resolve();
        });
      });
      const exchange: ReplayExchange = {
        request,
        clientGone,
        head(status, headers = {}) {
          res.writeHead(status, headers);
          res.flushHeaders();
          res.socket?.setNoDelay(true);
        },
        write: (chunk) =>
          new Promise<void>((resolve) => {
            res.write(chunk, () => setTimeout(resolve, pauseMs));
          }),
        end: () => res.end(),
        destroy: () => res.destroy(),
      };
      Promise.resolve(handler(exchange)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Answers an exchange with a server-sent event stream, written as the given byte chunks.
 *
 * @param exchange The exchange.
 * @param chunks The body, cut where the test wants the boundaries.
 */
export async function replaySse(exchange: ReplayExchange, chunks: readonly Uint8Array[]) {
  exchange.head(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const chunk of chunks) await exchange.write(chunk);
  exchange.end();
}

/**
 * Answers an exchange with a JSON error body.
 *
 * @param exchange The exchange.
 * @param status The HTTP status.
 * @param body The JSON body.
 * @param headers Extra headers (`retry-after`, …).
 */
export async function replayError(
  exchange: ReplayExchange,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  exchange.head(status, { "content-type": "application/json", ...headers });
  await exchange.write(JSON.stringify(body));
  exchange.end();
}

function concat(chunks: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
