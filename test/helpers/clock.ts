// A clock the tests move instead of waiting: it runs with real time (or, still, stays at the moment it
// was made), ahead by what the test added.
import type { Clock } from '../../src/common/clock';

export interface MovableClock extends Clock {
  /** Moves the clock forward (or back, with a negative number) by `ms`. */
  move(ms: number): void;
}

/**
 * `still`: the clock moves only when the test moves it. For tests that give an authenticator app's codes
 * by their step relative to the enrolment's: a running clock crossing a 30 s step between the two makes
 * the previous step's code the very code the enrolment used.
 */
export function movableClock({ still = false } = {}): MovableClock {
  const start = Date.now();
  let ahead = 0;
  return {
    now: () => (still ? start : Date.now()) + ahead,
    move(ms) {
      ahead += ms;
    },
  };
}
