/** The reasons the loop compacts, as an `as const` list. */
export const COMPACTION_REASONS = ["threshold", "predicted", "requested", "overflow"] as const;

/**
 * Compaction reason type: `threshold` (the provider-reported prompt size reached it),
 * `predicted` (the pressure tracker predicts the next prompt will), `requested` (the model
 * called the `compact` tool), `overflow` (the provider rejected the prompt as too long).
 */
export type CompactionReason = (typeof COMPACTION_REASONS)[number];
