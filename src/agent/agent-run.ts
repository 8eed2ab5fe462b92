import { ToolError } from "../errors.ts";
import type { AgentEvent, EmitEvent } from "./events.ts";
import type { RunResult } from "./run-result.ts";

/**
 * Agent run interface: one run in progress. Its events are a `ReadableStream` (read it, or
 * iterate the run itself with `for await`), and `result` settles when it ends; `result` never
 * rejects: a cancellation or a provider failure is a `stop` cause.
 *
 * Leaving a `for await` loop early (`break`, `return`, a throw) stops listening, as it does for
 * any `ReadableStream`: the stream is cancelled and nothing more is queued. The run itself goes
 * on; abort its signal to stop it.
 */
export interface AgentRun extends AsyncIterable<AgentEvent> {
  /**
   * Every event of the run, ending with `done`; one reader at a time.
   *
   * Hint: the run never waits for a reader, so events nobody reads are queued until the run
   * object is dropped. A caller that only listens on the `Agent`'s emitter can call
   * `run.events.cancel()` to stop the queueing.
   */
  readonly events: ReadableStream<AgentEvent>;
  /** How the run ended. */
  readonly result: Promise<RunResult>;
  /**
   * Queues text from the user for the model while the run works; it is folded into the next
   * user message (the one carrying the tool results) and delivered exactly once. Text still
   * queued when the run ends is appended to the conversation, for the next run.
   *
   * Hint: once the run has ended (from its `done` event on, including after `result` settles)
   * there is no conversation left to add to, so `steer` throws instead of dropping the text;
   * pass it to the next run (`agent.run(text, { conversation })`).
   *
   * @param text What the user added; `""` adds nothing.
   * @throws ToolError `unsupported` once the run has ended, `invalid_configuration` when `text`
   * is not a string.
   */
  steer(text: string): void;
}

/**
 * Run body type: the work of a run, reporting events and reading queued steering text.
 */
export type RunBody = (emit: EmitEvent, steering: string[]) => Promise<RunResult>;

/**
 * Creates a run: starts `body` at once, feeds its events to the stream and to `forward` (the
 * agent's emitter), then closes the stream after `done`.
 *
 * @param body The run's work.
 * @param forward Receives every event as well.
 * @returns The run.
 */
export function createAgentRun(body: RunBody, forward: EmitEvent): AgentRun {
  // Hint: the stream is made on first use and events wait in a plain array until then; most
  // callers listen on the emitter or await `result`, and a stream costs more per event.
  let buffered: AgentEvent[] = [];
  let stream: ReadableStream<AgentEvent> | undefined;
  let controller: ReadableStreamDefaultController<AgentEvent> | undefined;
  let listening = true;
  let finished = false;
  const events = (): ReadableStream<AgentEvent> => {
    stream ??= new ReadableStream<AgentEvent>({
      start(c) {
        controller = c;
        for (const event of buffered) c.enqueue(event);
        buffered = [];
        if (finished) c.close();
      },
      cancel() {
        // Hint: a reader that gives up only stops listening; the run itself goes on.
        listening = false;
      },
    });
    return stream;
  };
  let ended = false;
  const emit: EmitEvent = (event) => {
    // Hint: user code that ignores the signal (a tool's late progress, a late answer) can
    // still report after the run ended; `done` stays the last event, and a closed stream is
    // never written to (that would throw into the late caller).
    if (ended) return;
    if (event.type === "done") ended = true;
    if (listening) {
      if (controller) controller.enqueue(event);
      else buffered.push(event);
    }
    forward(event);
  };
  const steering: string[] = [];
  const result = body(emit, steering).finally(() => {
    finished = true;
    if (listening) controller?.close();
  });
  return {
    get events() {
      return events();
    },
    result,
    steer(text) {
      // Hint: `done` follows the loop's last look at the queue, so text queued from then on
      // would reach nobody; refusing it tells the caller to carry it to the next run.
      if (ended || finished) {
        throw new ToolError({
          type: "unsupported",
          operation: "steer after the run ended; pass the text to the next run instead",
        });
      }
      if (typeof text !== "string") {
        throw new ToolError({
          type: "invalid_configuration",
          message: "steer text must be a string",
        });
      }
      if (text !== "") steering.push(text);
    },
    async *[Symbol.asyncIterator]() {
      const reader = events().getReader();
      let ended = false;
      try {
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          yield read.value;
        }
        ended = true;
      } finally {
        // Hint: like a `ReadableStream`'s own iterator, an early exit cancels the stream, so
        // the events that follow are not queued for nobody; `cancel` leaves the run running.
        if (!ended) await reader.cancel().catch(() => {});
        reader.releaseLock();
      }
    },
  };
}
