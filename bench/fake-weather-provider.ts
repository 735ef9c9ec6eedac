// Both weather providers' shapes from one process, each answer after a fixed delay.
// Usage: PORT=<port> DELAY_MS=<ms> node -r ts-node/register/transpile-only bench/fake-weather-provider.ts
import http from 'node:http';

const delayMs = Number(process.env.DELAY_MS ?? 50);

http
  .createServer((req, res) => {
    const body = req.url?.includes('/conditions/q/') ? { current_observation: { temp_c: 20 } } : { main: { temp: 293.15 } };
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    }, delayMs);
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
