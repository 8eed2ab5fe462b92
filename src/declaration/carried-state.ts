/**
 * State a tool owns that compaction must keep verbatim. It is read at
 * compaction time, so it is current by construction, and exactly one copy survives.
 */
export interface CarriedState {
  /** Section label in the rebuilt prompt, normally the tool's name. */
  label: string;
  /** The state, reproduced byte for byte. */
  body: string;
}
