// The time the sign-in journey and second factors read: the system's in the server, one the tests move
// (windows and expiries are tested by moving it, never by waiting).

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
