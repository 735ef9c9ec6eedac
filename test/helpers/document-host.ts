// A real https server on loopback that publishes client metadata documents (and whatever else a test
// puts there), with a certificate made for the run and trusted by this process's default https agent,
// which the guarded fetcher uses outside production. openssl makes the certificate.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rootCertificates } from 'node:tls';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface DocumentHost {
  /** https://127.0.0.1:<port> */
  origin: string;
  /** Serves `body` (an object becomes JSON) at `path`, with these headers. */
  publish(path: string, body: unknown, headers?: Record<string, string>): string;
  /** Answers requests for `path` with a handler of the test's own. */
  handle(path: string, handler: Handler): string;
  /** How many requests came for `path`. */
  hits(path: string): number;
  close(): Promise<void>;
}

function makeCertificate(): { key: string; cert: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'document-host-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2']
        .concat(['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'])
        .concat(['-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    return { key: readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startDocumentHost(): Promise<DocumentHost> {
  const { key, cert } = makeCertificate();
  const handlers = new Map<string, Handler>();
  const counts = new Map<string, number>();
  const server = https.createServer({ key, cert }, (req, res) => {
    const at = (req.url ?? '/').split('?')[0];
    counts.set(at, (counts.get(at) ?? 0) + 1);
    const handler = handlers.get(at);
    if (handler) return handler(req, res);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const trusted = https.globalAgent.options.ca;
  https.globalAgent.options.ca = [...rootCertificates, cert];
  return {
    origin,
    publish(at, body, headers = {}) {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      handlers.set(at, (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json', ...headers }).end(text));
      return `${origin}${at}`;
    },
    handle(at, handler) {
      handlers.set(at, handler);
      return `${origin}${at}`;
    },
    hits: (at) => counts.get(at) ?? 0,
    async close() {
      https.globalAgent.options.ca = trusted;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
