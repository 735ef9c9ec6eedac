// The real app listening on 127.0.0.1, for clients that speak HTTP themselves (openid-client, jose).
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { freePort } from './ports';
import { testApp } from './app';

export interface LiveApp {
  app: Express;
  /** PUBLIC_URL: the issuer. */
  issuer: string;
  close(): Promise<void>;
}

export async function startLiveApp(overrides: Record<string, string> = {}, deps: Parameters<typeof testApp>[1] = {}): Promise<LiveApp> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const app = testApp({ PUBLIC_URL: issuer, ...overrides }, deps);
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  if ((server.address() as AddressInfo).port !== port) throw new Error('listening on an unexpected port');
  return {
    app,
    issuer,
    close: () =>
      new Promise((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
