/**
 * Runs `work` and returns the process warnings (`MaxListenersExceededWarning` and the like)
 * emitted meanwhile, in the Node project (the only one where `process` exists; elsewhere none
 * are seen). Node emits a warning on the next tick, so the capture waits one macrotask after
 * `work` settles. Node still prints them to stderr as well.
 */
export async function capturedWarnings(work: () => Promise<unknown>): Promise<string[]> {
  const node = (globalThis as { process?: NodeProcess }).process;
  const seen: string[] = [];
  const listener = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
  node?.on("warning", listener);
  try {
    await work();
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    node?.off("warning", listener);
  }
  return seen;
}

interface NodeProcess {
  on(event: "warning", listener: (warning: Error) => void): void;
  off(event: "warning", listener: (warning: Error) => void): void;
}
