// Baselines measured in the same run as the app: a bare node:http hello world and an Express one.
// Usage: PORT=<port> node -r ts-node/register/transpile-only bench/baseline-servers.ts <http|express>
import http from 'node:http';
import express from 'express';

const kind = process.argv[2];
const port = Number(process.env.PORT);

if (kind === 'http') {
  http
    .createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('hello!');
    })
    .listen(port, '127.0.0.1');
} else {
  const app = express();
  app.get('/hello', (_req, res) => {
    res.type('text/plain').send('hello!');
  });
  app.listen(port, '127.0.0.1');
}
