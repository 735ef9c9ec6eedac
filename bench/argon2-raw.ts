// The ceiling for POST /auth: argon2id verifications per second with the server's own parameters
// and its own limit on concurrent hashing, asked ten at a time (as many as the load generator's
// connections), for a fixed time.
import { hashPassword, verifyPassword } from '../src/common/passwords';

async function main(): Promise<void> {
  const { seconds } = JSON.parse(process.argv[2]) as { seconds: number };
  const hash = await hashPassword('bench-password');
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (Date.now() < deadline) {
        await verifyPassword(hash, 'bench-password');
        done += 1;
      }
    }),
  );
  process.stdout.write(JSON.stringify({ verificationsPerSecond: done / seconds }));
}

main().catch((err: unknown) => {
  process.stderr.write(`${String(err)}\n`);
  process.exit(1);
});
