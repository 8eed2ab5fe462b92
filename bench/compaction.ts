/**
 * Compaction benchmark: times `compact()` (lossless passes plus an extractive summary) on
 * synthetic transcripts of 1k, 10k and 100k messages, next to a plain `JSON.stringify` of the
 * same transcript measured in the same run. Both columns should grow linearly: the per-1k
 * figures stay roughly flat from one size to the next.
 *
 * Run: `npx tsx bench/compaction.ts`
 */
import { pathToFileURL } from "node:url";
import { compact } from "../src/compaction/compact.ts";
import type { Conversation } from "../src/compaction/conversation.ts";
import { extractiveSummarizer } from "../src/compaction/extractive-summarizer.ts";
import type { Message } from "../src/models/message.ts";

const SIZES = [1_000, 10_000, 100_000];

function transcript(size: number): Message[] {
  const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "TASK: audit" }] }];
  const files = Math.max(10, Math.floor(size / 20));
  for (let i = 0; messages.length < size - 1; i++) {
    // Paths repeat (eviction has work), every seventh call fails with a repeated error
    // (collapsing has work), and results are long enough to be thinned.
    const path = `src/f${i % files}.ts`;
    const failed = i % 7 === 0;
    const text = failed ? `ENOENT: ${path}` : `// ${path}\n${"const x = 1;\n".repeat(40)}`;
    messages.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: `step ${i}` },
          { type: "tool_use", id: `c${i}`, name: "read_file", input: { path } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            toolUseId: `c${i}`,
            content: [{ type: "text", text }],
            isError: failed,
          },
        ],
      },
    );
  }
  return messages;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function time(runs: number, fn: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

/**
 * Runs the benchmark and prints one line per size.
 *
 * @returns Nothing; the table goes to the console.
 */
export async function benchCompaction(): Promise<void> {
  const summarizer = extractiveSummarizer();
  const rows: Record<string, string | number>[] = [];
  for (const size of SIZES) {
    const messages = transcript(size);
    const conversation: Conversation = {
      messages,
      taint: { private: false, untrusted: false },
      rewritten: [],
    };
    const runs = size >= 100_000 ? 3 : 7;
    const baseline = await time(runs, () => JSON.stringify(messages));
    const compacting = await time(runs, () => compact(conversation, { force: true, summarizer }));
    const perK = size / 1000;
    rows.push({
      messages: size,
      "compact ms": compacting.toFixed(1),
      "compact ms/1k msgs": (compacting / perK).toFixed(2),
      "JSON.stringify ms": baseline.toFixed(1),
      "stringify ms/1k msgs": (baseline / perK).toFixed(2),
      ratio: (compacting / baseline).toFixed(1),
    });
  }
  console.log("compact() — lossless passes + extractive summary (median of runs)");
  console.table(rows);
}

// `bench/index.ts` imports and calls `benchCompaction`; run directly, the file runs itself.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await benchCompaction();
