// `npm run build`: compiles src/ into dist/ only when something it depends on changed since the last
// build, so `npm start` and the command-line tools start in a moment instead of recompiling. A file
// added, edited or deleted under src/ (a deletion changes its folder's time), the tsconfig files or
// the lock file make the next build run; `npm run build -- --force` always does.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
const STAMP = path.join('dist', '.build-stamp');

/** The latest modification time (ms) among the given files and folders, folders walked in full. */
function newestChange(paths) {
  let newest = 0;
  const visit = (entry) => {
    const stat = fs.statSync(entry, { throwIfNoEntry: false });
    if (!stat) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  paths.forEach(visit);
  return newest;
}

/** True when the stamp is missing or older than any input. */
function isStale(stampFile, inputs) {
  const stamp = fs.statSync(stampFile, { throwIfNoEntry: false });
  return !stamp || newestChange(inputs) > stamp.mtimeMs;
}

function build(root, force) {
  process.chdir(root);
  if (!force && !isStale(STAMP, INPUTS)) return false;
  fs.rmSync('dist', { recursive: true, force: true });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  fs.writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  return true;
}

if (require.main === module) {
  try {
    build(path.resolve(__dirname, '..'), process.argv.includes('--force'));
  } catch {
    // tsc has printed the errors.
    process.exit(1);
  }
}

module.exports = { isStale, newestChange };
