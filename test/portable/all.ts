/**
 * Every portable case file, listed explicitly (Deno and workerd cannot glob).
 * Add a line here for each new `test/portable/*.cases.ts` file.
 */

import { cases as agent } from "./agent.cases.ts";
import { cases as compaction } from "./compaction.cases.ts";
import { cases as core } from "./core.cases.ts";
import type { PortableCase } from "./harness.ts";
import { cases as mcpClient } from "./mcp-client.cases.ts";
import { cases as mcpRoundTrip } from "./mcp-round-trip.cases.ts";
import { cases as mcpServer } from "./mcp-server.cases.ts";
import { cases as models } from "./models.cases.ts";
import { cases as oauth } from "./oauth.cases.ts";
import { cases as otel } from "./otel.cases.ts";
import { cases as smoke } from "./smoke.cases.ts";
import { cases as web } from "./web.cases.ts";

export const allCases: { file: string; cases: PortableCase[] }[] = [
  { file: "smoke.cases.ts", cases: smoke },
  { file: "core.cases.ts", cases: core },
  { file: "mcp-server.cases.ts", cases: mcpServer },
  { file: "mcp-client.cases.ts", cases: mcpClient },
  { file: "models.cases.ts", cases: models },
  { file: "agent.cases.ts", cases: agent },
  { file: "compaction.cases.ts", cases: compaction },
  { file: "mcp-round-trip.cases.ts", cases: mcpRoundTrip },
  { file: "web.cases.ts", cases: web },
  { file: "oauth.cases.ts", cases: oauth },
  { file: "otel.cases.ts", cases: otel },
];
