// How a host keeps a remote call that became an MCP task (the Tasks extension, or 2025-11-25
// task-augmented calls) across its own restarts: the remote handler reports the task it is
// waiting on through `record`, and a host that restarts hands the same reference back as
// `resume`, so the handler polls that task again instead of calling the tool a second time.
// The agent keeps it in its run snapshots (docs/design.md, "Consuming MCP", "Tasks").

/** A remote task a call is waiting on: which server, which era, which task. */
export interface RemoteTaskRef {
  /** The server's URL as shown (`redactUrl`): a resumed call polls only the same server. */
  origin: string;
  /** The protocol era the task was created in; a 2025 task is read with `tasks/result`. */
  protocol: "2026-07-28" | "2025-11-25";
  /** The server's task id. */
  taskId: string;
}

/** What a host hands a call (`CallOptions["~task"]`) to keep its remote task. */
export interface RemoteTaskHook {
  /** A task an earlier run of this same call was waiting on: poll it instead of calling. */
  resume?: RemoteTaskRef | undefined;
  /** Told once the call became a task (or resumed one); awaited before the first poll. */
  record?(task: RemoteTaskRef): Promise<void> | void;
  /**
   * Whether the host is putting the call aside to resume it later (an agent run pausing): an
   * abort then leaves the task running instead of sending `tasks/cancel`.
   */
  detached?(): boolean;
}
