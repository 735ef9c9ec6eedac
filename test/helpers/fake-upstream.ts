// A real HTTP server on 127.0.0.1 standing in for an external service, so clients really talk HTTP.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query exactly as received, still percent-encoded. */
  rawUrl: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Resolves true if the client hung up before the response was finished. */
  abandoned: Promise<boolean>;
}

export type FakeHandler = (request: RecordedRequest, res: http.ServerResponse) => void | Promise<void>;

export interface FakeUpstream {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Replaces the handler for the next requests. */
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

export function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startFakeUpstream(initial: FakeHandler = (_req, res) => json(res, 200, {})): Promise<FakeUpstream> {
  let handler = initial;
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const abandoned = new Promise<boolean>((resolve) => {
        res.on('close', () => resolve(!res.writableFinished));
      });
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        rawUrl: req.url ?? '/',
        url: new URL(req.url ?? '/', 'http://127.0.0.1'),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        abandoned,
      };
      requests.push(recorded);
      Promise.resolve(handler(recorded, res)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
