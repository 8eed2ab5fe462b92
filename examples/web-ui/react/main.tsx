/**
 * The React app: the store front end by default, `?mode=chat` for the `useChat` one. Both drive
 * the agent in ../agent.ts.
 */

import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createNotesStore, createNotesTransport } from "../keep.ts";
import { ChatApp } from "./chat-app.tsx";
import { StoreApp } from "./store-app.tsx";

const chat = new URLSearchParams(location.search).get("mode") === "chat";
const root = createRoot(document.getElementById("root") as HTMLElement);
root.render(
  <StrictMode>
    {chat ? (
      <ChatApp transport={createNotesTransport()} />
    ) : (
      <StoreApp store={createNotesStore()} />
    )}
  </StrictMode>,
);
