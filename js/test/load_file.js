// Test helper (run as a child process, under a memory cap): loads the
// filter file named on the command line and prints one JSON line: the
// outcome ("loaded", or the error's name) and the process's peak RSS in KiB.
import { readFileSync } from "node:fs";
import { load } from "../src/bloomc.js";

let outcome;
let message = null;
try {
  await load(new Uint8Array(readFileSync(process.argv[2])));
  outcome = "loaded";
} catch (e) {
  outcome = e.name;
  message = e.message;
}
console.log(JSON.stringify({ outcome, message, maxRSS: process.resourceUsage().maxRSS }));
