// A port for a server a test must name before it listens (its PUBLIC_URL, a client's redirect URI).
// The port is taken from below the kernel's ephemeral range. The kernel never hands those ports to a
// listen(0) (supertest makes one for every request, in every worker) or to an outgoing connection. A
// port 0 found free could be taken in the hundreds of milliseconds before the server listened on it
// (a local .ci/run saw EADDRINUSE); one of these can only collide with another test's random pick.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { findFreePort } from '../../src/db/ports';

/** The band's floor: under it sit the well-known and registered services a machine may run. */
const BAND_FLOOR = 10_000;
/** Bounded: random picks tried before falling back to the kernel's choice. */
const PICKS = 50;

/** The lowest ephemeral port, or null where the range cannot be read (not Linux). */
function ephemeralFloor(): number | null {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > BAND_FLOOR + 1000 ? low : null;
  } catch {
    return null;
  }
}

/** Whether the port can be bound on every address (the server listens on ::, which covers 127.0.0.1). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}

/** A free port outside the ephemeral range where there is one, else one the kernel says is free. */
export async function freePort(): Promise<number> {
  const ceiling = ephemeralFloor();
  if (ceiling === null) return findFreePort();
  for (let pick = 0; pick < PICKS; pick++) {
    const port = BAND_FLOOR + Math.floor(Math.random() * (ceiling - BAND_FLOOR));
    if (await bindable(port)) return port;
  }
  return findFreePort();
}
