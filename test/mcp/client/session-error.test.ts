import { describe, expect, it } from "vitest";
import { ToolError } from "../../../src/index.ts";
import {
  describeError,
  excerpt,
  httpFailure,
  parseJsonText,
  protocolError,
  rpcFailure,
  sessionError,
} from "../../../src/mcp/client/session-error.ts";
import { caught } from "../../support/caught.ts";

describe("sessionError", () => {
  it("prefers the abort reason, keeps ToolErrors, and wraps anything else as transport", () => {
    const timeout = new ToolError({ type: "timeout", tool: "t", timeoutSecs: 1 });
    expect(sessionError(new Error("x"), { signal: AbortSignal.abort(timeout), label: "t" })).toBe(
      timeout,
    );
    expect(
      sessionError(new Error("x"), { signal: AbortSignal.abort("bye"), label: "t" }).type,
    ).toBe("cancelled");
    const protocol = protocolError("bad");
    expect(sessionError(protocol, { label: "t" })).toBe(protocol);
    const wrapped = sessionError(new TypeError("fetch failed"), { label: "t" });
    expect(wrapped.toJSON()).toMatchObject({ type: "transport", tool: "t" });
    expect(wrapped.cause).toBeInstanceOf(TypeError);
  });
});

describe("rpcFailure", () => {
  it("is protocol, naming the method, the server's message and code, and the note", () => {
    const error = { code: -32700, message: "Parse error" };
    expect(rpcFailure("ping", error, "").data).toEqual({
      type: "protocol",
      message: "ping failed: Parse error (JSON-RPC error -32700)",
    });
    expect(rpcFailure("ping", error, " with id null").message).toContain(
      "(JSON-RPC error -32700 with id null)",
    );
  });
});

describe("parseJsonText", () => {
  it("parses JSON and reports anything else as protocol with an excerpt", async () => {
    expect(parseJsonText('{"a":1}')).toEqual({ a: 1 });
    const error = await caught(() => parseJsonText("<html>oops</html>"));
    expect(error.type).toBe("protocol");
    expect(error.message).toContain("<html>oops</html>");
  });
});

describe("describeError and excerpt", () => {
  it("names a fetch failure's cause and cuts long text", () => {
    const failed = new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") });
    expect(describeError(failed)).toBe("fetch failed (ECONNREFUSED)");
    expect(describeError("plain")).toBe("plain");
    expect(excerpt("   ")).toBe("");
    expect(excerpt("x".repeat(300))).toBe(`: ${"x".repeat(200)}…`);
  });
});

describe("httpFailure", () => {
  it("refuses a redirect, naming where it pointed", async () => {
    const response = new Response(null, { status: 307, headers: { location: "https://evil/" } });
    const error = await httpFailure(response, { label: "initialize", expired: false });
    expect(error.type).toBe("transport");
    expect(error.message).toContain("redirected to https://evil/ (HTTP 307)");
  });

  it("reports 404 as an expired session once there is one, else with the body", async () => {
    const expired = await httpFailure(new Response("gone", { status: 404 }), {
      label: "t",
      expired: true,
    });
    expect(expired.message).toContain("session expired");
    const plain = await httpFailure(new Response("no such path", { status: 404 }), {
      label: "t",
      expired: false,
    });
    expect(plain.message).toContain("HTTP 404: no such path");
  });

  it("says where to look for the statuses the user can fix", async () => {
    const refused = await httpFailure(new Response("", { status: 401 }), {
      label: "t",
      expired: false,
    });
    expect(refused.message).toContain("HTTP 401 (the server refused the credentials");
    const other = await httpFailure(new Response("boom", { status: 500 }), {
      label: "t",
      expired: false,
    });
    expect(other.data).toEqual({ type: "transport", tool: "t", message: "HTTP 500: boom" });
  });
});
