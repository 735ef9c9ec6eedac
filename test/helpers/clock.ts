// A clock the tests move instead of waiting: it runs with real time, ahead by what the test added.
import type { Clock } from '../../src/common/clock';

export interface MovableClock extends Clock {
  /** Moves the clock forward (or back, with a negative number) by `ms`. */
  move(ms: number): void;
}

export function movableClock(): MovableClock {
  let ahead = 0;
  return {
    now: () => Date.now() + ahead,
    move(ms) {
      ahead += ms;
    },
  };
}
