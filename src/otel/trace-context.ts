// W3C Trace Context (`traceparent`, `tracestate`) and W3C Baggage (`baggage`) as a
// `TextMapPropagator`, the carrier MCP's `params._meta` uses (SEP-414). `@opentelemetry/api`
// defines the interface but ships no implementation (the SDK's lives in `@opentelemetry/core`),
// and a Worker or a page often registers no global propagator, so `toolwire/otel` brings this
// one: every runtime then propagates the same way unless the user passes another.

import {
  type Context,
  createTraceState,
  isSpanContextValid,
  propagation,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  trace,
} from "@opentelemetry/api";

// version-traceid-parentid-flags; a later version may append fields after another dash.
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
// W3C Baggage's limits: a longer header is not read at all, nor are entries past the 180th.
const MAX_BAGGAGE_CHARS = 8192;
const MAX_BAGGAGE_ENTRIES = 180;
// W3C Trace Context bounds `tracestate` to 32 members of at most 256 characters each.
const MAX_TRACESTATE_CHARS = 32 * 257;

/** W3C Trace Context and Baggage, read from and written to any carrier (`_meta`, headers). */
export const w3cPropagator: TextMapPropagator = {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const span = trace.getSpanContext(context);
    if (span && isSpanContextValid(span)) {
      const flags = (span.traceFlags & 0xff).toString(16).padStart(2, "0");
      setter.set(carrier, "traceparent", `00-${span.traceId}-${span.spanId}-${flags}`);
      const state = span.traceState?.serialize();
      if (state) setter.set(carrier, "tracestate", state);
    }
    const entries = propagation.getBaggage(context)?.getAllEntries() ?? [];
    const baggage = entries
      .map(([key, entry]) => `${encodeURIComponent(key)}=${encodeURIComponent(entry.value)}`)
      .join(",");
    if (baggage !== "" && baggage.length <= MAX_BAGGAGE_CHARS) {
      setter.set(carrier, "baggage", baggage);
    }
  },

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    let extracted = context;
    const parent = single(getter.get(carrier, "traceparent"));
    const match = parent === undefined ? null : TRACEPARENT.exec(parent.trim());
    // Version ff is invalid; version 00 has exactly four fields.
    if (match && match[1] !== "ff" && !(match[1] === "00" && match[5] !== undefined)) {
      const spanContext = {
        traceId: match[2] as string,
        spanId: match[3] as string,
        traceFlags: Number.parseInt(match[4] as string, 16) & 1,
        isRemote: true,
      };
      if (isSpanContextValid(spanContext)) {
        const state = single(getter.get(carrier, "tracestate"));
        extracted = trace.setSpanContext(
          extracted,
          state !== undefined && state.length <= MAX_TRACESTATE_CHARS
            ? { ...spanContext, traceState: createTraceState(state) }
            : spanContext,
        );
      }
    }
    const baggage = single(getter.get(carrier, "baggage"));
    if (baggage !== undefined && baggage.length <= MAX_BAGGAGE_CHARS) {
      const entries: Record<string, { value: string }> = {};
      for (const member of baggage.split(",").slice(0, MAX_BAGGAGE_ENTRIES)) {
        const [pair = ""] = member.split(";");
        const at = pair.indexOf("=");
        if (at <= 0) continue;
        const key = decode(pair.slice(0, at).trim());
        const value = decode(pair.slice(at + 1).trim());
        if (key !== undefined && value !== undefined) entries[key] = { value };
      }
      if (Object.keys(entries).length > 0) {
        extracted = propagation.setBaggage(extracted, propagation.createBaggage(entries));
      }
    }
    return extracted;
  },

  fields(): string[] {
    return ["traceparent", "tracestate", "baggage"];
  },
};

// A carrier's value as one string: a header list's first entry, nothing for a non-string.
function single(value: unknown): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : undefined;
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
