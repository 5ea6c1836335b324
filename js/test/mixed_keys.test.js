// Issue 32: one process looking up both string and integer keys (and byte
// keys) must not crash Node's optimizer. The lookups run in a child node
// (a crash there kills only it) under Node's default flags.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { saved } from "./saved.js";

const child = fileURLToPath(new URL("./mixed_keys.js", import.meta.url));

// Bits from a fixed generator: about half of them set.
function noise(n, state = 0x2545f491) {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 24;
  return out;
}

test("string, integer and byte keys in one process: no crash under Node's default flags", () => {
  const dir = mkdtempSync(join(tmpdir(), "bloomc-mixed-"));
  try {
    const files = [
      ["bloom.bloom", { kind: 1, fields: [8192, 7, 0, 0, 0], body: noise(1024) }],
      ["blocked.bloom", { kind: 2, fields: [16, 8, 1, 0], body: noise(1024, 7) }],
      ["bloom_mixed.bloom", { kind: 1, fields: [8192, 7, 3, 2, 0], body: noise(1024, 11) }], // hash 2
    ].map(([name, parts]) => {
      writeFileSync(join(dir, name), saved(parts));
      return join(dir, name);
    });
    // and the Ruby spec's filters of every kind, when it runs these tests
    const fixtures = process.env.BLOOMC_JS_FIXTURES;
    if (fixtures) files.push(...readdirSync(fixtures).filter((n) => n.endsWith(".bloom")).map((n) => join(fixtures, n)));
    for (const set of [files.slice(0, 1), files.slice(1, 2), files.slice(2, 3), files]) {
      const run = spawnSync(process.execPath, [child, ...set], { encoding: "utf8", env: { ...process.env, ROUNDS: set === files ? "20" : "100" } });
      assert.equal(run.signal, null, `node died of ${run.signal} on ${set.length} file(s)\n${run.stderr}`);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /^\d+\n$/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
