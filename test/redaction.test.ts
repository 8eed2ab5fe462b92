import { describe, expect, test } from "vitest";
import { credentialsOf, excerpt, redactUrl, scrub, scrubValue } from "../src/redaction.ts";

describe("redaction", () => {
  test("a URL keeps host and path, loses user info, query and fragment", () => {
    expect(redactUrl("https://user:pw@example.com:8443/mcp?token=abc#x")).toBe(
      "https://example.com:8443/mcp",
    );
    expect(redactUrl("not a url")).toBe("[invalid URL]");
  });

  test("credentials come from header values, bearer tokens, user info and query values", () => {
    const found = credentialsOf({
      url: "https://bob:hunter22@example.com/mcp?key=sk-query-secret&x=1",
      headers: { authorization: "Bearer tok-123456", "x-api-key": "sk-header" },
    });
    expect(found).toEqual(
      expect.arrayContaining([
        "Bearer tok-123456",
        "tok-123456",
        "sk-header",
        "hunter22",
        "sk-query-secret",
      ]),
    );
    expect(found).not.toContain("1");
  });

  test("scrub hides secrets as sent and URL-encoded, and every URL's query", () => {
    const secrets = ["s3cr3t/+=", "tok-123456"];
    const text =
      "fetch https://example.com/a?token=tok-123456 failed; body echoed s3cr3t/+= and s3cr3t%2F%2B%3D";
    const out = scrub(text, secrets);
    expect(out).not.toContain("tok-123456");
    expect(out).not.toContain("s3cr3t");
    expect(out).toContain("https://example.com/a");
  });

  test("a query value counts as written and as decoded (a raw + is not a space to the server)", () => {
    const found = credentialsOf({ url: "https://example.com/mcp?key=ab+cd/ef==&sig=xy%2Bzw" });
    expect(found).toEqual(expect.arrayContaining(["ab+cd/ef==", "ab cd/ef==", "xy%2Bzw", "xy+zw"]));
    expect(scrub("echo: ab+cd/ef==", found)).toBe("echo: [redacted]");
  });

  test("scrubValue scrubs keys as well as values, and keeps a __proto__ key as data", () => {
    const value = JSON.parse(
      '{"sk-secret-1":{"__proto__":{"x":"sk-secret-1"}},"list":["sk-secret-1"]}',
    );
    const clean = scrubValue(value, ["sk-secret-1"]);
    expect(clean).toEqual({
      "[redacted]": { ["__proto__"]: { x: "[redacted]" } },
      list: ["[redacted]"],
    });
    expect(Object.getPrototypeOf(clean["[redacted]"])).toBe(Object.prototype);
    expect(value).toEqual(
      JSON.parse('{"sk-secret-1":{"__proto__":{"x":"sk-secret-1"}},"list":["sk-secret-1"]}'),
    );
  });

  test("an excerpt is short, scrubbed and marked when cut", () => {
    expect(excerpt("x".repeat(500), [], 10)).toBe(`${"x".repeat(10)}…`);
    expect(excerpt("key sk-abcdef here", ["sk-abcdef"])).toBe("key [redacted] here");
  });
});
