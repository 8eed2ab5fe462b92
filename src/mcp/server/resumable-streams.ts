// 2025-11-25 resumable response streams (design.md "Serving MCP", S23): with `memory` sessions,
// a request's SSE answer opens with a priming event (an id, `retry`, empty data), every event
// carries an id, and what is sent is kept per stream, bounded, so that a client whose
// connection closed (the server polls with `ssePollMs`) or dropped picks the stream up with a GET
// carrying `Last-Event-ID` and gets what it missed, then the rest live. An id names its stream
// with 122 random bits and is only honoured on the session that opened it, so it can be neither
// guessed nor used by another caller.

import type { JsonRpcMessage, JsonRpcResponse } from "../json-rpc.ts";
import {
  type Answer,
  createSseWriter,
  jsonAnswer,
  messageText,
  type ResponseChannel,
  type SseWriter,
} from "./http.ts";

/** How a handler's resumable streams behave (`sseRetryMs`, `ssePollMs`). */
export interface StreamLogOptions {
  /** The `retry:` sent with the priming event, in ms. */
  retryMs: number;
  /** Closes a connection that long after it opened while its request still runs, in ms. */
  pollMs: number | undefined;
}

/** The resumable streams of one handler, by session. */
export interface StreamLog {
  /** The answer channel of one request of `session`, recorded for resumption. */
  channel(session: string, headers: Headers): ResponseChannel;
  /**
   * The answer to a GET with `Last-Event-ID` on `session`: the stream's events after that id,
   * then the rest as they come; `undefined` when the id names no stream of this session (or its
   * events are gone).
   */
  resume(lastEventId: string, session: string, headers: Headers): Response | undefined;
  /** Forgets a session's streams and closes their connections. */
  endSession(session: string): void;
}

/** The most bytes of notifications a stream keeps for replay; past it they are sent, not kept. */
export const MAX_REPLAY_BYTES = 1024 * 1024;
// Finished streams a session keeps, newest first: the connection that carried a result may have
// dropped before the client read it.
const FINISHED_PER_SESSION = 8;

interface Recorded {
  seq: number;
  text: string;
  notification: boolean;
}

interface ReplayStream {
  readonly key: string;
  readonly session: string;
  events: Recorded[];
  bytes: number;
  seq: number;
  finished: boolean;
  live: SseWriter | undefined;
  poll: ReturnType<typeof setTimeout> | undefined;
}

/** Creates the stream log of one handler. */
export function createStreamLog(options: StreamLogOptions): StreamLog {
  const streams = new Map<string, ReplayStream>();
  const finished = new Map<string, string[]>();
  const forget = (stream: ReplayStream) => {
    streams.delete(stream.key);
    clearTimeout(stream.poll);
    stream.live?.close();
  };
  const retire = (stream: ReplayStream) => {
    const done = finished.get(stream.session) ?? [];
    done.push(stream.key);
    finished.set(stream.session, done);
    while (done.length > FINISHED_PER_SESSION) {
      const old = streams.get(done.shift() as string);
      if (old) forget(old);
    }
  };
  // Sends on the live connection, if any; closes it after `pollMs` while the request runs.
  const attach = (stream: ReplayStream, writer: SseWriter) => {
    stream.live = writer;
    clearTimeout(stream.poll);
    if (options.pollMs === undefined || stream.finished) return;
    stream.poll = setTimeout(() => {
      if (stream.live === writer) stream.live = undefined;
      writer.close();
    }, options.pollMs);
  };
  const record = (stream: ReplayStream, message: JsonRpcMessage): void => {
    const text = messageText(message);
    if (text === undefined || stream.finished) return;
    const notification = !("id" in message);
    // Notifications are hints: past the budget they are still sent live, but not kept.
    const keep = !notification || stream.bytes + text.length <= MAX_REPLAY_BYTES;
    stream.seq += 1;
    const event = `id: ${stream.key}_${stream.seq}\nevent: message\ndata: ${text}\n\n`;
    if (keep) {
      stream.events.push({ seq: stream.seq, text: event, notification });
      stream.bytes += event.length;
    }
    stream.live?.raw(event, notification);
  };
  return {
    channel(session, headers) {
      const stream: ReplayStream = {
        key: crypto.randomUUID(),
        session,
        events: [],
        bytes: 0,
        seq: 0,
        finished: false,
        live: undefined,
        poll: undefined,
      };
      streams.set(stream.key, stream);
      let resolve: (answer: Answer) => void = () => {};
      let reject: (error: unknown) => void = () => {};
      const response = new Promise<Answer>((ok, fail) => {
        resolve = ok;
        reject = fail;
      });
      let started = false;
      const start = () => {
        if (started) return;
        started = true;
        const writer = createSseWriter(undefined, () => {
          if (stream.live === writer) stream.live = undefined;
        });
        writer.raw(`id: ${stream.key}_0\nretry: ${options.retryMs}\ndata: \n\n`, false);
        attach(stream, writer);
        resolve(new Response(writer.body, { status: 200, headers: sseHeaders(headers) }));
      };
      // A request still running when the poll time comes gets its stream now, then the close.
      const firstPoll =
        options.pollMs === undefined
          ? undefined
          : setTimeout(() => {
              start();
              stream.live?.close();
              stream.live = undefined;
            }, options.pollMs);
      const end = () => {
        clearTimeout(firstPoll);
        clearTimeout(stream.poll);
        stream.finished = true;
      };
      return {
        response,
        send(message) {
          if (stream.finished) return;
          start();
          record(stream, message);
        },
        finish(message: JsonRpcResponse | undefined, fallback: JsonRpcResponse, status = 200) {
          if (stream.finished) return;
          if (!started) {
            end();
            streams.delete(stream.key);
            resolve(jsonAnswer(message ?? fallback, status, headers));
            return;
          }
          if (message) record(stream, message);
          end();
          // Written to an open connection, the notifications are most likely read; a finished
          // stream keeps only what a client must not miss (questions, the response).
          if (stream.live?.open) keepOnlyRequired(stream);
          stream.live?.close();
          retire(stream);
        },
        fail(error) {
          if (stream.finished) return;
          end();
          // Nothing more will come: a GET for it gets 404, not an empty stream to poll.
          forget(stream);
          if (!started) reject(error);
        },
      };
    },
    resume(lastEventId, session, headers) {
      const cut = lastEventId.lastIndexOf("_");
      const stream = streams.get(lastEventId.slice(0, cut));
      const after = Number(lastEventId.slice(cut + 1));
      if (!stream || stream.session !== session || !Number.isInteger(after)) return undefined;
      // The client has everything up to `after`: that part is not kept any longer.
      const kept = stream.events.filter((event) => event.seq > after);
      if (kept.length !== stream.events.length) {
        stream.events = kept;
        stream.bytes = kept.reduce((sum, event) => sum + event.text.length, 0);
      }
      stream.live?.close();
      const writer = createSseWriter(undefined, () => {
        if (stream.live === writer) stream.live = undefined;
      });
      for (const event of kept) writer.raw(event.text, false);
      if (stream.finished) writer.close();
      else attach(stream, writer);
      return new Response(writer.body, { status: 200, headers: sseHeaders(headers) });
    },
    endSession(session) {
      for (const stream of [...streams.values()]) if (stream.session === session) forget(stream);
      finished.delete(session);
    },
  };
}

function keepOnlyRequired(stream: ReplayStream): void {
  stream.events = stream.events.filter((event) => !event.notification);
  stream.bytes = stream.events.reduce((sum, event) => sum + event.text.length, 0);
}

function sseHeaders(headers: Headers): Headers {
  const merged = new Headers(headers);
  merged.set("content-type", "text/event-stream");
  merged.set("cache-control", "no-cache, no-transform");
  return merged;
}
