/** The `clientInfo` toolwire sends in `initialize`. */
export const CLIENT_INFO = { name: "toolwire", version: "0.1.0" } as const;
