// The React front end over toolwire/ui's store: `useSyncExternalStore` reads its state, and the
// person decides through `approve`, `deny` and `answer`.

import { useSyncExternalStore } from "react";
import type { AgentStore, ToolCard as Card } from "toolwire/ui";
import { Decide, Message, Page, Question, ToolCard } from "./view.tsx";

export function StoreApp({ store }: { store: AgentStore }) {
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const card = (part: Card) => {
    const approval = state.approvals.find((item) => item.callId === part.callId);
    const question = state.questions.find((item) => item.callId === part.callId);
    const result = part.content?.map((item) => (item.type === "text" ? item.text : "")).join("");
    return (
      <ToolCard
        key={part.callId}
        name={part.toolName}
        status={part.status}
        argumentsText={part.argumentsText}
        progress={part.progress}
        result={result}
      >
        {approval && (
          <Decide
            onApprove={() => store.approve(part.callId)}
            onDeny={() => store.deny(part.callId, "not now")}
          />
        )}
        {question && (
          <Question
            prompt={question.request.prompt}
            onAnswer={(text) => store.answer(part.callId, text)}
          />
        )}
      </ToolCard>
    );
  };
  return (
    <Page
      title="React, through the store"
      running={state.status === "running"}
      onSend={(text) => void store.send(text)}
      onStop={() => store.cancel()}
    >
      {state.messages.map((message) => (
        <Message key={message.id} role={message.role}>
          {message.parts.map((part, index) =>
            part.type === "tool" ? (
              card(part)
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow.
              <p key={index} data-testid={part.type}>
                {part.text}
              </p>
            ),
          )}
        </Message>
      ))}
      {state.error && <li data-testid="error">{state.error.message}</li>}
    </Page>
  );
}
