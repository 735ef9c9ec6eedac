// A small TCP round-robin in front of several server processes, for the scale-out scenario: each
// incoming connection goes to the next backend port in turn, bytes piped both ways. Ports come as
// JSON in argv[2]; PORT is where it listens.
import net from 'node:net';

const backends = JSON.parse(process.argv[2]) as number[];
let next = 0;

const server = net.createServer((client) => {
  const port = backends[next];
  next = (next + 1) % backends.length;
  const upstream = net.connect(port, '127.0.0.1');
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
