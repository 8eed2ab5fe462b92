// The OpenTelemetry SDK's own in-memory exporters behind a tracer and a meter provider, for the
// `toolwire/otel` tests in every runtime (web standards only).
import type { SpanKind } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";

/** A recorded histogram point: the histogram's name, its data point's attributes, count and sum. */
export interface RecordedDuration {
  name: string;
  unit: string;
  attributes: Record<string, unknown>;
  count: number;
  sum: number;
}

/** Providers whose spans and metrics stay in memory, to be read back. */
export interface OtelCapture {
  tracerProvider: TracerProvider;
  meterProvider: MeterProvider;
  /** Every finished span, in the order they ended. */
  spans(): ReadableSpan[];
  /** The one finished span of that name (and kind); fails when there is none or several. */
  span(name: string, kind?: SpanKind): ReadableSpan;
  /**
   * The one span of that name (and kind), once it has ended: for a span that ends after the
   * call it belongs to has returned (a request still reading its late answer).
   */
  ended(name: string, kind?: SpanKind): Promise<ReadableSpan>;
  /** Every histogram data point recorded so far. */
  durations(): Promise<RecordedDuration[]>;
  shutdown(): Promise<void>;
}

export function otelCapture(): OtelCapture {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({
    spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })],
  });
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Read on demand (`forceFlush`); the interval only has to be longer than a test.
  const reader = new PeriodicExportingMetricReader({
    exporter: metricExporter,
    exportIntervalMillis: 3_600_000,
  });
  const meterProvider = new MeterProvider({ readers: [reader] });
  const spans = () => spanExporter.getFinishedSpans();
  return {
    tracerProvider,
    meterProvider,
    spans,
    span(name, kind) {
      const found = spans().filter(
        (span) => span.name === name && (kind === undefined || span.kind === kind),
      );
      if (found.length !== 1) {
        const names = spans().map((span) => span.name);
        throw new Error(`${found.length} spans named ${name}; ended: ${JSON.stringify(names)}`);
      }
      return found[0] as ReadableSpan;
    },
    async ended(name, kind) {
      for (let waited = 0; ; waited += 10) {
        const found = spans().some(
          (span) => span.name === name && (kind === undefined || span.kind === kind),
        );
        if (found || waited >= 5_000) return this.span(name, kind);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async durations() {
      await reader.forceFlush();
      const last = metricExporter.getMetrics().at(-1);
      return (last?.scopeMetrics ?? []).flatMap((scope) =>
        scope.metrics.flatMap((metric) =>
          metric.dataPoints.map((point) => ({
            name: metric.descriptor.name,
            unit: metric.descriptor.unit,
            attributes: { ...point.attributes },
            count: (point.value as { count: number }).count,
            sum: (point.value as { sum: number }).sum,
          })),
        ),
      );
    },
    async shutdown() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
    },
  };
}

/** Whether `child` is a child of `parent` in the same trace. */
export function isChildOf(child: ReadableSpan, parent: ReadableSpan): boolean {
  const up = child.parentSpanContext;
  const own = parent.spanContext();
  return up?.traceId === own.traceId && up.spanId === own.spanId;
}
