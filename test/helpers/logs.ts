import { Writable } from 'node:stream';
import { createLogger } from '../../src/common/logger';
import type { LogLevel } from '../../src/config';

/** A logger writing into memory, and the lines it wrote, to check what logs contain. */
export function capturingLogger(level: LogLevel = 'trace') {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}
