import { DurableObject } from "cloudflare:workers";
import { durableObjectStore } from "../../src/index.ts";

/** A Durable Object holding a `durableObjectStore`; `claim` is one request per claimant. */
export class StoreObject extends DurableObject {
  readonly store = durableObjectStore(this.ctx.storage);

  claim(key: string, value: string): Promise<boolean> {
    return this.store.compareAndSet(key, undefined, value);
  }

  read(key: string): Promise<string | undefined> {
    return this.store.get(key);
  }
}

/**
 * The worker module the workerd vitest project runs next to its tests (`main`).
 * A placeholder for now; a later issue serves MCP from it.
 */
export default {
  fetch(request: Request): Response {
    const url = new URL(request.url);
    if (url.pathname === "/health") return Response.json({ ok: true, name: "toolwire" });
    return new Response("toolwire worker: not found", { status: 404 });
  },
};
