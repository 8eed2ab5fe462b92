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
