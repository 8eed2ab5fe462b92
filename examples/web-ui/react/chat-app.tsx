// The React front end through the AI SDK's `useChat`, with toolwire's transport: approvals are
// the AI SDK's tool-approval parts, progress and questions the transport's data parts.

import { useChat } from "@ai-sdk/react";
import { getToolName, isToolUIPart, type UIMessage } from "ai";
import { useEffect } from "react";
import {
  type AgentChatProgress,
  type AgentChatQuestion,
  type AgentChatTransport,
  approvalAnswered,
} from "toolwire/ai-sdk";
import { savedMessages, saveMessages } from "../keep.ts";
import { Decide, Message, Page, Question, ToolCard } from "./view.tsx";

export function ChatApp({ transport }: { transport: AgentChatTransport }) {
  const { messages, sendMessage, addToolApprovalResponse, stop, status, error } = useChat({
    transport,
    messages: savedMessages<UIMessage>(),
    sendAutomaticallyWhen: approvalAnswered,
  });
  useEffect(() => saveMessages(messages), [messages]);
  return (
    <Page
      title="React, through useChat"
      running={status === "submitted" || status === "streaming"}
      onSend={(text) => void sendMessage({ text })}
      onStop={() => void stop()}
    >
      {messages.map((message) => {
        // The transport's data parts, by the call they belong to.
        const data = (type: string, id: string) =>
          message.parts.find((p) => p.type === type && "id" in p && p.id === id) as
            | { data: unknown }
            | undefined;
        return (
          <Message key={message.id} role={message.role}>
            {message.parts.map((part, index) => {
              if (part.type === "text" || part.type === "reasoning") {
                return (
                  // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow.
                  <p key={index} data-testid={part.type}>
                    {part.text}
                  </p>
                );
              }
              if (!isToolUIPart(part)) return null;
              const id = part.toolCallId;
              const progress = data("data-tool-progress", id)?.data as
                | AgentChatProgress
                | undefined;
              const question = data("data-tool-question", id)?.data as
                | AgentChatQuestion
                | undefined;
              const result =
                part.state === "output-available"
                  ? String(part.output)
                  : part.state === "output-error"
                    ? part.errorText
                    : part.state === "output-denied"
                      ? "Denied"
                      : undefined;
              return (
                <ToolCard
                  key={id}
                  name={getToolName(part)}
                  status={part.state}
                  argumentsText={JSON.stringify(part.input) ?? ""}
                  progress={progress}
                  result={result}
                >
                  {part.state === "approval-requested" && (
                    <Decide
                      onApprove={() =>
                        void addToolApprovalResponse({ id: part.approval.id, approved: true })
                      }
                      onDeny={() =>
                        void addToolApprovalResponse({
                          id: part.approval.id,
                          approved: false,
                          reason: "not now",
                        })
                      }
                    />
                  )}
                  {question?.state === "asked" && status === "streaming" && (
                    <Question
                      prompt={question.request.prompt}
                      onAnswer={(text) => transport.answer(id, text)}
                    />
                  )}
                </ToolCard>
              );
            })}
          </Message>
        );
      })}
      {error && <li data-testid="error">{error.message}</li>}
    </Page>
  );
}
