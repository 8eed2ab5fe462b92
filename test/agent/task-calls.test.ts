// An agent's call to a remote tool that runs as an MCP task (docs/design.md, "Consuming MCP",
// "Tasks", and "The agent loop", A9): the task id is kept in the run's snapshots, so a run
// paused (or lost) mid-task and resumed on another Agent follows the same task rather than
// calling the tool again; and approval and cancellation treat a task call like any other.
import { describe, expect, it } from "vitest";
import { Agent, type ApprovalDecision, type RunSnapshot } from "../../src/agent/index.ts";
import { InteractionResponse, memoryStore } from "../../src/index.ts";
import { connectMcp } from "../../src/mcp/index.ts";
import { type ScriptedTurn, scriptedModel } from "../../src/models/index.ts";
import { createFakeTaskServer, type FakeTaskServer } from "../support/fake-task-server.ts";

const SECRET = "a-snapshot-secret-of-at-least-32-chars";
const url = "http://127.0.0.1:3000/mcp";

/** A model that decides from the transcript alone, so a resumed run on a new agent continues it. */
function modelFor(turns: ScriptedTurn[]) {
  return scriptedModel((request) => {
    const taken = request.messages.filter((message) => message.role === "assistant").length;
    return turns[taken] ?? { text: "all done" };
  });
}

const research: ScriptedTurn[] = [
  { toolCalls: [{ id: "c1", name: "research", arguments: { topic: "tides" } }] },
];

const allow = async (): Promise<ApprovalDecision> => ({ type: "allow" });

// A task that works until `finish` is set, then completes with a report.
function slowServer(era: "2026" | "2025") {
  const state = { finish: false };
  const server = createFakeTaskServer({
    era,
    onPoll: (task) => {
      task.pollIntervalMs = 50;
      if (state.finish) {
        task.status = "completed";
        task.result = { content: [{ type: "text", text: "tides report" }] };
      }
    },
  });
  return { server, state };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

const connect = (server: FakeTaskServer, era: "2026" | "2025") =>
  connectMcp({
    url,
    fetch: server.fetch,
    protocol: era === "2026" ? "2026-07-28" : "2025-11-25",
  });

describe("an agent's call that became a remote task", () => {
  for (const era of ["2026", "2025"] as const) {
    it(`is resumed by its task id after a pause, never called twice (${era})`, async () => {
      const { server, state } = slowServer(era);
      const model = modelFor(research);
      const firstTools = await connect(server, era);
      const first = new Agent({
        model,
        toolsets: [firstTools],
        approver: allow,
        snapshots: { secret: SECRET },
      });
      const run = first.run("Research tides");
      await until(() => server.sent("tasks/get").length >= 1);
      run.pause();
      const paused = await run.result;
      expect(paused.stop).toBe("paused");
      // A pause puts the call aside: the task goes on, uncancelled.
      expect(server.sent("tasks/cancel")).toEqual([]);
      const snapshot: RunSnapshot = JSON.parse(JSON.stringify(paused.snapshot));
      expect(snapshot.body.calls).toEqual([
        {
          id: "c1",
          name: "research",
          arguments: { topic: "tides" },
          state: "running",
          task: {
            origin: url,
            protocol: era === "2026" ? "2026-07-28" : "2025-11-25",
            taskId: "task-1",
          },
        },
      ]);
      await firstTools.shutdown();

      // Another page load: a new connection and a new agent over the same server.
      state.finish = true;
      const secondTools = await connect(server, era);
      const second = new Agent({
        model,
        toolsets: [secondTools],
        approver: allow,
        snapshots: { secret: SECRET },
      });
      const resumed = await second.resume(snapshot).result;
      expect(resumed.stop).toBe("done");
      expect(server.sent("tools/call")).toHaveLength(1);
      expect(server.tasks).toHaveLength(1);
      expect(resumed.conversation.messages[2]?.content).toMatchObject([
        {
          type: "tool_result",
          toolUseId: "c1",
          isError: false,
          // Wrapped as untrusted data: a remote server's output.
          content: expect.arrayContaining([{ type: "text", text: "tides report" }]),
        },
      ]);
      await secondTools.shutdown();
    });
  }

  it("follows the task on the instance that took the run over; the one that lost it cancels nothing", async () => {
    const store = memoryStore();
    const state = { ask: false };
    const server = createFakeTaskServer({
      era: "2026",
      onPoll: (task) => {
        task.pollIntervalMs = 50;
        if (state.ask && task.answers.length === 0) {
          task.status = "input_required";
          task.inputRequests = {
            depth: {
              method: "elicitation/create",
              params: {
                mode: "form",
                message: "How deep?",
                requestedSchema: { type: "object", properties: { depth: { type: "number" } } },
              },
            },
          };
        }
      },
      onUpdate: (task, responses) => {
        task.answers.push(responses);
        task.status = "completed";
        task.result = { content: [{ type: "text", text: "tides report" }] };
      },
    });
    const model = modelFor(research);
    const answered: string[] = [];
    const agentOver = (toolset: Awaited<ReturnType<typeof connect>>, tab: string) =>
      new Agent({
        model,
        toolsets: [toolset],
        approver: allow,
        snapshots: { secret: SECRET, store },
        onInteraction: async (request) => {
          answered.push(tab);
          return InteractionResponse.submit(request.id, { depth: 3 });
        },
      });
    const firstTools = await connect(server, "2026");
    const run = agentOver(firstTools, "a").run("Research tides", { runId: "tab-a" });
    await until(() => server.sent("tasks/get").length >= 1);
    // Another tab takes the run over while the first still polls the task; then the task asks.
    const secondTools = await connect(server, "2026");
    const taken = agentOver(secondTools, "b").resume("tab-a");
    await until(() => server.sent("tasks/get").length >= 4);
    state.ask = true;
    const other = await taken.result;
    expect(other.stop).toBe("done");
    expect(other.conversation.messages[2]?.content).toMatchObject([
      { type: "tool_result", isError: false },
    ]);
    // The first tab, told it lost the run when it recorded the question, stops without
    // cancelling the task the second one follows.
    const first = await run.result;
    expect(first.stop).toBe("error");
    expect(server.sent("tools/call")).toHaveLength(1);
    expect(server.sent("tasks/cancel")).toEqual([]);
    await firstTools.shutdown();
    await secondTools.shutdown();
    expect(server.sent("tasks/cancel")).toEqual([]);
  });

  it("asks the approver first, and a denied task call never reaches the server", async () => {
    const { server, state } = slowServer("2026");
    state.finish = true;
    const tools = await connect(server, "2026");
    const asked: string[] = [];
    const denied = await new Agent({
      model: modelFor(research),
      toolsets: [tools],
      approver: async (request) => {
        asked.push(request.toolName);
        return { type: "deny", reason: "not now" };
      },
    }).run("Research tides").result;
    expect(asked).toEqual(["research"]);
    expect(denied.conversation.messages[2]?.content).toMatchObject([
      { type: "tool_result", toolUseId: "c1", isError: true, mark: "denied" },
    ]);
    expect(server.sent("tools/call")).toEqual([]);

    const approved = await new Agent({
      model: modelFor(research),
      toolsets: [tools],
      approver: allow,
    }).run("Research tides").result;
    expect(approved.conversation.messages[2]?.content).toMatchObject([
      {
        type: "tool_result",
        content: expect.arrayContaining([{ type: "text", text: "tides report" }]),
      },
    ]);
    await tools.shutdown();
  });

  it("cancels the remote task when the run is cancelled", async () => {
    const { server } = slowServer("2026");
    const tools = await connect(server, "2026");
    const controller = new AbortController();
    const run = new Agent({ model: modelFor(research), toolsets: [tools], approver: allow }).run(
      "Research tides",
      { signal: controller.signal },
    );
    await until(() => server.sent("tasks/get").length >= 1);
    controller.abort();
    const result = await run.result;
    expect(result.stop).toBe("cancelled");
    await tools.shutdown();
    expect(server.sent("tasks/cancel").map((entry) => entry.body.params?.taskId)).toEqual([
      "task-1",
    ]);
    expect(server.tasks[0]?.status).toBe("cancelled");
  });
});
