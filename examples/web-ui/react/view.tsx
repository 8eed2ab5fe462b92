// What both React front ends render: the same markup (and test ids) as the Svelte app, so one
// Playwright script drives all three (e2e/web-ui.spec.ts).

import { type ReactNode, useState } from "react";

export function Page(props: {
  title: string;
  running: boolean;
  onSend: (text: string) => void;
  onStop: () => void;
  children: ReactNode;
}) {
  const [text, setText] = useState("");
  return (
    <main>
      <nav>
        <a href="../">All front ends</a>
      </nav>
      <h1>{props.title}</h1>
      <ol data-testid="transcript">{props.children}</ol>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (!text.trim()) return;
          props.onSend(text);
          setText("");
        }}
      >
        <input
          data-testid="input"
          value={text}
          placeholder="note: buy milk · my favourite colour · count slowly"
          onChange={(event) => setText(event.target.value)}
        />
        <button data-testid="send" type="submit" disabled={props.running}>
          Send
        </button>
        <button data-testid="stop" type="button" disabled={!props.running} onClick={props.onStop}>
          Stop
        </button>
      </form>
    </main>
  );
}

export function Message(props: { role: string; children: ReactNode }) {
  return (
    <li data-testid="message" data-role={props.role}>
      {props.children}
    </li>
  );
}

/** A tool call: its arguments as they stream, progress, the person's part, its result. */
export function ToolCard(props: {
  name: string;
  status: string;
  argumentsText: string;
  progress?: { progress: number; total?: number; message?: string } | undefined;
  result?: string | undefined;
  children?: ReactNode;
}) {
  const { progress } = props;
  return (
    <section data-testid="tool" data-tool={props.name} data-status={props.status}>
      <header>
        {props.name} · {props.status}
      </header>
      <code data-testid="arguments">{props.argumentsText}</code>
      {progress && (
        <p>
          <progress value={progress.progress} max={progress.total} />{" "}
          <span data-testid="progress">{progress.message}</span>
        </p>
      )}
      {props.children}
      {props.result !== undefined && <output data-testid="result">{props.result}</output>}
    </section>
  );
}

export function Decide(props: { onApprove: () => void; onDeny: () => void }) {
  return (
    <p>
      <button data-testid="approve" type="button" onClick={props.onApprove}>
        Approve
      </button>{" "}
      <button data-testid="deny" type="button" onClick={props.onDeny}>
        Deny
      </button>
    </p>
  );
}

export function Question(props: { prompt: string; onAnswer: (text: string) => void }) {
  const [text, setText] = useState("");
  return (
    <form
      data-testid="question"
      onSubmit={(event) => {
        event.preventDefault();
        props.onAnswer(text);
      }}
    >
      <label>
        {props.prompt}{" "}
        <input data-testid="answer" value={text} onChange={(e) => setText(e.target.value)} />
      </label>
      <button data-testid="submit-answer" type="submit">
        Answer
      </button>
    </form>
  );
}
