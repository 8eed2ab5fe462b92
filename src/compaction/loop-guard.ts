import { canonicalJson } from "./lossless.ts";

/** One tool call of a turn, as the loop guard sees it. */
export interface ExecutedCall {
  /** The tool's name. */
  name: string;
  /** The call's arguments. */
  arguments: unknown;
  /** The result's text. */
  result: string;
}

/** Detects an agent repeating itself after a compaction made it lose its place. */
export interface LoopGuard {
  /** Switches the guard on; the loop calls it after a successful summary compaction. */
  arm(): void;
  /** Whether the guard is on. */
  readonly armed: boolean;
  /**
   * Records one tool turn's executed calls.
   *
   * @param calls The calls, in call order.
   * @returns Whether a loop was detected (always false while dormant).
   */
  recordTurn(calls: readonly ExecutedCall[]): boolean;
}

/** How many recent call fingerprints from earlier turns a new call is compared with. */
const LOOP_WINDOW = 3;

/**
 * Creates a loop guard, dormant until armed. Once armed, each executed call is fingerprinted as
 * (name, canonical arguments, result); a turn that repeats one of the last 3 fingerprints from
 * earlier turns is a loop. Duplicates within one batch, and polling (same arguments, changing
 * result), are not.
 *
 * Fingerprints are recorded only once armed, so a single re-read of something fetched
 * just before the compaction does not stop the run; a real loop repeats within a few turns.
 *
 * @returns The guard.
 */
/* @__NO_SIDE_EFFECTS__ */
export function createLoopGuard(): LoopGuard {
  let armed = false;
  let recent: string[] = [];
  return {
    arm() {
      armed = true;
    },
    get armed() {
      return armed;
    },
    recordTurn(calls) {
      if (!armed) return false;
      const turn = [
        ...new Set(calls.map((call) => canonicalJson([call.name, call.arguments, call.result]))),
      ];
      const loop = turn.some((key) => recent.includes(key));
      recent = [...recent, ...turn].slice(-LOOP_WINDOW);
      return loop;
    },
  };
}
