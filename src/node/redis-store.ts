import { errorText, ToolError } from "../errors.ts";
import {
  checkExpected,
  checkKey,
  checkValue,
  type Store,
  type StoreOptions,
  ttlOf,
} from "../store/store.ts";

// A `Store` on Redis, for Node deployments that outgrow one process. The client is the
// `redis` package (node-redis), an optional peer loaded on first use; `compareAndSet` is one
// Lua script, so Redis runs the comparison and the write as one step.

/** The part of a node-redis client `redisStore` uses. */
export interface RedisClientLike {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options?: { PX?: number }): Promise<unknown>;
  del(key: string): Promise<unknown>;
  EVAL(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** What `redisStore` takes: a URL (the store connects and owns the client) or your client. */
export type RedisStoreOptions = ({ url: string } | { client: RedisClientLike }) & {
  /** Put before every key, e.g. `myapp:`; default none. */
  prefix?: string;
};

/** A store on Redis; `close` disconnects a client the store created. */
export interface RedisStore extends Store {
  close(): Promise<void>;
}

// KEYS[1] the key; ARGV: 1 when an absent key is expected, the expected value, the new value,
// the TTL in ms ("" for none).
const COMPARE_AND_SET = `
local current = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if current then return 0 end
elseif current ~= ARGV[2] then
  return 0
end
if ARGV[4] == '' then redis.call('SET', KEYS[1], ARGV[3])
else redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[4]) end
return 1`;

/**
 * Creates a store on Redis. Given a `url`, the `redis` package is imported and the client
 * connected on the first operation (install it: `npm i redis`); given a `client`, it is used as
 * is and `close` leaves it open.
 *
 * @throws ToolError `invalid_configuration` without a `url` or `client`; from the first
 * operation, `unsupported` when the `redis` package is not installed, `transport` when Redis
 * cannot be reached or an operation fails.
 * @example
 * ```ts
 * const store = redisStore({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
 * ```
 */
export function redisStore(options: RedisStoreOptions): RedisStore {
  const prefix = options.prefix ?? "";
  const given = "client" in options ? options.client : undefined;
  const url = "url" in options ? options.url : undefined;
  if (!given && typeof url !== "string") {
    throw new ToolError({
      type: "invalid_configuration",
      message: "redisStore needs a `url` or a `client`",
    });
  }
  let owned: Promise<RedisClientLike & { close?(): Promise<unknown> }> | undefined;
  const client = async (): Promise<RedisClientLike> => {
    if (given) return given;
    owned ??= connect(url as string);
    return owned;
  };
  const call = async <T>(work: (redis: RedisClientLike) => Promise<T>): Promise<T> => {
    const redis = await client();
    try {
      return await work(redis);
    } catch (error) {
      throw new ToolError(
        { type: "transport", message: `Redis failed: ${errorText(error)}` },
        { cause: error },
      );
    }
  };
  return {
    async get(key) {
      const name = prefix + checkKey(key);
      return (await call((redis) => redis.get(name))) ?? undefined;
    },
    async put(key, value, options?: StoreOptions) {
      const name = prefix + checkKey(key);
      const ttl = ttlOf(options);
      checkValue(value);
      await call((redis) => redis.set(name, value, ttl === undefined ? undefined : { PX: ttl }));
    },
    async delete(key) {
      const name = prefix + checkKey(key);
      await call((redis) => redis.del(name));
    },
    async compareAndSet(key, expected, value, options) {
      const name = prefix + checkKey(key);
      checkExpected(expected);
      checkValue(value);
      const ttl = ttlOf(options);
      const args = [
        expected === undefined ? "1" : "0",
        expected ?? "",
        value,
        ttl?.toString() ?? "",
      ];
      const done = await call((redis) =>
        redis.EVAL(COMPARE_AND_SET, { keys: [name], arguments: args }),
      );
      return Number(done) === 1;
    },
    async close() {
      if (!owned) return;
      const redis = await owned.catch(() => undefined);
      owned = undefined;
      await redis?.close?.();
    },
  };
}

async function connect(url: string): Promise<RedisClientLike & { close?(): Promise<unknown> }> {
  let module: { createClient(options: Record<string, unknown>): unknown };
  try {
    // A specifier in a variable: the optional package need not be installed for this file to
    // type-check or bundle.
    const name = "redis";
    module = (await import(/* @vite-ignore */ name)) as typeof module;
  } catch (error) {
    throw new ToolError(
      {
        type: "unsupported",
        operation: "redisStore({ url }) without the `redis` package (npm i redis)",
      },
      { cause: error },
    );
  }
  // A server that was never reached fails the first operation after three tries; once
  // connected, a dropped connection is retried for as long as it takes, as node-redis does.
  let ready = false;
  const reconnectStrategy = (retries: number, cause: Error) =>
    ready ? Math.min(retries * 100, 2000) : retries >= 2 ? cause : 100;
  const client = module.createClient({ url, socket: { reconnectStrategy } }) as RedisClientLike & {
    connect(): Promise<unknown>;
    on(event: "error" | "ready", listener: (error: unknown) => void): unknown;
    close?(): Promise<unknown>;
  };
  // Without an error listener node-redis throws connection errors at the process.
  client.on("error", () => {});
  client.on("ready", () => {
    ready = true;
  });
  try {
    await client.connect();
  } catch (error) {
    throw new ToolError(
      { type: "transport", message: `Redis could not be reached: ${errorText(error)}` },
      { cause: error },
    );
  }
  return client;
}
