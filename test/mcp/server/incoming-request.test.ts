import { describe, expect, it } from "vitest";
import { incomingRequest } from "../../../src/mcp/server/incoming-request.ts";

describe("incomingRequest", () => {
  it("reads a Request as it is", () => {
    const request = new Request("http://localhost/mcp", { method: "POST", body: "{}" });
    const incoming = incomingRequest(request);
    expect(incoming.method).toBe("POST");
    expect(incoming.url).toBe("http://localhost/mcp");
    expect(incoming.toRequest()).toBe(request);
  });

  it("reads a URL and a string body without a Request, normalising the method", async () => {
    const incoming = incomingRequest(new URL("http://localhost/mcp"), {
      method: "post",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect(incoming.method).toBe("POST");
    expect(incoming.body).toBe('{"a":1}');
    expect(incoming.headers.get("content-type")).toBe("application/json");
    const request = incoming.toRequest();
    expect(request).toBe(incoming.toRequest());
    expect(await request.text()).toBe('{"a":1}');
    expect(incomingRequest("http://localhost/mcp", { method: "patch" }).method).toBe("patch");
  });

  it("builds a Request for other bodies and refuses what a Request refuses", async () => {
    const bytes = incomingRequest("http://localhost/mcp", {
      method: "POST",
      body: new TextEncoder().encode("hi"),
    });
    expect(bytes.body).toBeInstanceOf(ReadableStream);
    expect(() => incomingRequest("http://localhost/mcp", { method: "GET", body: "x" })).toThrow(
      TypeError,
    );
    expect(() =>
      incomingRequest("http://localhost/mcp", { headers: { "bad header": "x" } }),
    ).toThrow(TypeError);
  });
});
