import { exports } from "cloudflare:workers";
import { expect, test } from "vitest";

test("runs inside workerd", () => {
  expect(navigator.userAgent).toBe("Cloudflare-Workers");
});

test("the main worker answers /health", async () => {
  const res = await exports.default.fetch("http://worker.test/health");
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({ ok: true, name: "toolwire" });
});
