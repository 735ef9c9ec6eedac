// DATA_DIR holds the embedded database, the record of the process that runs it and the development
// secrets, so it is this user's alone (docs/operations.md, "DATA_DIR"): made 0700, refused when it
// or a file read from it belongs to another user or others may write to it, and read without
// following links. Another local user can then neither read the data nor plant a secret or an owner
// record the server would trust.
import {
  chmodSync,
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  writeSync,
  type Stats,
} from 'node:fs';

const { O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_WRONLY } = constants;

/** Group or others may write (or, for the folder, read). */
const WRITABLE_BY_OTHERS = 0o022;
const OPEN_TO_OTHERS = 0o077;

export class UntrustedDataError extends Error {}

const myUid = (): number | undefined => process.getuid?.();

function checkOwned(what: string, stats: Stats): void {
  const uid = myUid();
  if (uid !== undefined && stats.uid !== uid) {
    throw new UntrustedDataError(`${what} belongs to another user (uid ${stats.uid}, this process runs as ${uid}): refusing to use it`);
  }
  if ((stats.mode & WRITABLE_BY_OTHERS) !== 0) {
    throw new UntrustedDataError(`${what} may be written by other users (mode ${(stats.mode & 0o777).toString(8)}): refusing to use it`);
  }
}

/**
 * Makes the folder (0700) or checks the one there: a real folder, not a link, owned by this user and
 * writable by nobody else. One that others may only read (made 0755 by an earlier version) is
 * closed to them.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) throw new UntrustedDataError(`DATA_DIR ${dir} is not a folder (a link or a file): refusing to use it`);
  checkOwned(`DATA_DIR ${dir}`, stats);
  if ((stats.mode & OPEN_TO_OTHERS) !== 0) chmodSync(dir, 0o700);
}

/** A file of DATA_DIR as text, or null when there is none; refused when another user could have written it. */
export function readPrivateFile(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(file, O_RDONLY | O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new UntrustedDataError(`${file} is a link: refusing to follow it`);
    throw err;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UntrustedDataError(`${file} is not a file: refusing to read it`);
    checkOwned(file, stats);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a file of DATA_DIR, owner-only, never through a link. `exclusive`: only if there is none yet
 * (false when another process made it first).
 */
export function writePrivateFile(file: string, text: string, exclusive: boolean): boolean {
  let fd: number;
  try {
    fd = openSync(file, O_WRONLY | O_CREAT | O_NOFOLLOW | (exclusive ? O_EXCL : 0), 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (exclusive && code === 'EEXIST') return false;
    if (code === 'ELOOP') throw new UntrustedDataError(`${file} is a link: refusing to write through it`);
    throw err;
  }
  try {
    checkOwned(file, fstatSync(fd));
    ftruncateSync(fd, 0);
    writeSync(fd, text);
    return true;
  } finally {
    closeSync(fd);
  }
}
