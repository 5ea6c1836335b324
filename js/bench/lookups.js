// Times has() over n 40-byte string keys against saved filters.
//
//   node js/bench/lookups.js FILE... [--keys N] [--prefix P] [--rounds R] [--no-wasm]
//
// The keys are P followed by the index, zero-padded to 40 bytes in all
// (bench/js_reader.rb adds the same keys with the prefix "in-" and asks
// absent ones with "out-"). Prints one JSON line a file: the best of R
// rounds after a warm-up round, and how many keys has() found. --no-wasm
// times the JavaScript hash (useWebAssembly(false)).
import { readFileSync } from "node:fs";
import { load, useWebAssembly } from "../src/bloomc.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [, value] = args.splice(at, 2);
  return value;
};
const n = Number(option("--keys", "1000000"));
const prefix = option("--prefix", "in-");
const rounds = Number(option("--rounds", "5"));
const noWasm = args.indexOf("--no-wasm");
if (noWasm >= 0) args.splice(noWasm, 1);
const wasm = useWebAssembly(noWasm < 0);

const keys = Array.from({ length: n }, (_, i) => prefix + String(i).padStart(40 - prefix.length, "0"));

for (const file of args) {
  const filter = await load(new Uint8Array(readFileSync(file)));
  let found = 0;
  let best = Infinity;
  for (let round = 0; round <= rounds; round++) {
    found = 0;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (filter.has(keys[i])) found++;
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    if (round > 0 && seconds < best) best = seconds; // round 0 warms the JIT up
  }
  console.log(JSON.stringify({ file, kind: filter.kindName, wasm, keys: n, found, seconds: best, lookups_per_second: Math.round(n / best) }));
}
