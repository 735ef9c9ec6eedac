import net from 'node:net';

/** Where a local database listens: a loopback port, or a Unix socket (the embedded FerretDB's). */
export type LocalAddress = { port: number } | { socket: string };

export const describeAddress = (address: LocalAddress): string => ('socket' in address ? address.socket : `127.0.0.1:${address.port}`);

/** Asks the OS for a free loopback port. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something accepts connections at the address, within `timeoutMs`. */
export function answers(address: LocalAddress, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = 'socket' in address ? net.connect({ path: address.socket }) : net.connect({ host: '127.0.0.1', port: address.port });
    socket.setTimeout(timeoutMs);
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Resolves once something accepts connections at the address, polling every 50 ms. */
export async function waitForListener(address: LocalAddress, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await answers(address)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`nothing listened on ${describeAddress(address)} within ${timeoutMs} ms`);
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port. */
export const waitForPort = (port: number, timeoutMs: number): Promise<void> => waitForListener({ port }, timeoutMs);
