import { Validator } from "@cfworker/json-schema";
import { toJsonSchema } from "@valibot/to-json-schema";
import { EventEmitter } from "eventemitter3";
import * as v from "valibot";
import { ToolError } from "../../src/index.ts";
import { assert, assertEqual, assertRejects, type PortableCase } from "./harness.ts";

export const cases: PortableCase[] = [
  {
    name: "web crypto randomUUID is available",
    run() {
      assert(typeof crypto.randomUUID === "function", "crypto.randomUUID is missing");
      assert(/^[0-9a-f-]{36}$/.test(crypto.randomUUID()), "randomUUID has the wrong shape");
    },
  },
  {
    name: "runtime dependencies resolve and work",
    run() {
      const schema = toJsonSchema(v.object({ n: v.number() }));
      assertEqual(schema.type, "object");
      const validator = new Validator({ type: "object", required: ["n"] });
      assert(validator.validate({ n: 1 }).valid, "cfworker rejects a valid value");
      assert(!validator.validate({}).valid, "cfworker accepts an invalid value");
      const emitter = new EventEmitter<{ ping: [number] }>();
      let got = 0;
      emitter.on("ping", (x) => {
        got = x;
      });
      emitter.emit("ping", 7);
      assertEqual(got, 7);
    },
  },
  {
    name: "ToolError is importable and is an Error",
    async run() {
      assert(typeof ToolError === "function", "ToolError is not a class");
      const error = await assertRejects(
        () => Promise.reject(new ToolError({ type: "unknown_tool", name: "nope" })),
        (e) => e instanceof ToolError && e instanceof Error,
      );
      assert(error instanceof ToolError, "not a ToolError");
    },
  },
  {
    name: "assertEqual compares deeply",
    async run() {
      assertEqual(
        { a: [1, { b: "x" }], c: new Map([["k", 1]]) },
        {
          a: [1, { b: "x" }],
          c: new Map([["k", 1]]),
        },
      );
      const error = await assertRejects(() => assertEqual({ a: [1, 2] }, { a: [1, 3] }));
      assert(error instanceof Error && error.message.includes("at .a[1]"), String(error));
      await assertRejects(() => assertEqual({ a: undefined }, {}));
    },
  },
];
