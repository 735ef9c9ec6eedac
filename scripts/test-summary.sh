#!/usr/bin/env bash
# Runs `npm test` and ends with one plain line "tests: N passed, N failed" read from Jest's JSON report.
set -uo pipefail
report=$(mktemp)
trap 'rm -f "$report"' EXIT
npm test -- --json --outputFile="$report"
status=$?
node -e '
  const fs = require("node:fs");
  const text = fs.readFileSync(process.argv[1], "utf8");
  if (!text) { console.log("tests: 0 passed, 0 failed"); process.exit(0); }
  const r = JSON.parse(text);
  console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests + r.numRuntimeErrorTestSuites} failed`);
' "$report"
exit $status
