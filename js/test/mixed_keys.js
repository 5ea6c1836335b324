// Test helper (run as a child process by mixed_keys.test.js): looks up
// string, number, bigint and byte keys, interleaved, many times over, in
// every filter file named on the command line, so that the optimizer
// compiles has() for all of them together (issue 32: Node 20 died of
// SIGSEGV here). Prints the number of keys found.
import { readFileSync } from "node:fs";
import { load } from "../src/bloomc.js";

const rounds = Number(process.env.ROUNDS ?? "100");
const filters = [];
for (const file of process.argv.slice(2)) filters.push(await load(new Uint8Array(readFileSync(file))));
const bytes = new Uint8Array(4);
let found = 0;
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < 2000; i++) {
    bytes[0] = i;
    bytes[1] = i >> 8;
    for (const filter of filters) {
      if (filter.has(`key-${i}`)) found++;
      if (filter.has(i)) found++;
      if (filter.has(-i * 7919)) found++;
      if (filter.has(BigInt(i) << 40n)) found++;
      if (filter.has(bytes)) found++;
    }
  }
}
console.log(found);
