// A standing fuzzer of the reader: mutated files, from a fixed seed, under a
// memory cap. Every case must end in a good load (whose has() answers true
// or false for keys of every type) or in the reader's FormatError: never
// another exception, a hang, a crash or a peak RSS over the bound.
//
//   node js/fuzz/fuzz.mjs [--cases N] [--seed S] [--heap MiB] [--max-rss MiB] [--only I] FILE_OR_DIR...
//
// The files (a directory: its *.bloom files) are valid filters, e.g.
// spec/fixtures/format_v1 .. format_v3; each is fuzzed as it is and deflated.
// The cases run in a child node under --max-old-space-size=HEAP (64), which
// this process watches: a case that takes over 20 s is a hang, a signal is a
// crash, and the child's peak RSS must stay under --max-rss (160 MiB). Case
// i depends only on the seed, i and the files: --only I runs it alone.
// Prints the counts (loaded, refused, and the refusals' commonest reasons)
// and exits 0, or names the case that failed and exits 1.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDeflate, deflateSync } from "node:zlib";
import { crc32c, FormatError, load } from "../src/bloomc.js";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [, value] = args.splice(at, 2);
  return value;
};
const worker = args.includes("--worker");
if (worker) args.splice(args.indexOf("--worker"), 1);
const cases = Number(option("--cases", "5000"));
const seed = Number(option("--seed", "1"));
const heap = Number(option("--heap", "64"));
const maxRss = Number(option("--max-rss", "160"));
const only = option("--only", null);
const HANG_MS = 20_000;

if (args.length === 0) {
  console.error("usage: node js/fuzz/fuzz.mjs [--cases N] [--seed S] [--heap MiB] [--max-rss MiB] [--only I] FILE_OR_DIR...");
  process.exit(2);
}
const files = args.flatMap((path) => (statSync(path).isDirectory()
  ? readdirSync(path).filter((name) => name.endsWith(".bloom")).sort().map((name) => join(path, name))
  : [path]));

// ---- the watching process ---------------------------------------------------

async function watch() {
  const script = fileURLToPath(import.meta.url);
  const childArgs = [`--max-old-space-size=${heap}`, script, "--worker", "--cases", String(cases), "--seed", String(seed)];
  if (only !== null) childArgs.push("--only", only);
  const child = spawn(process.execPath, [...childArgs, ...files], { stdio: ["ignore", "pipe", "inherit"] });
  let current = null; // the case running, by the child's last "case" line
  let summary = null;
  let failure = null;
  let hung = false;
  let timer = null;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      hung = true;
      child.kill("SIGKILL");
    }, HANG_MS);
  };
  arm();
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text) => {
    pending += text;
    let nl;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      arm();
      const message = JSON.parse(line);
      if (message.case !== undefined) current = message;
      else if (message.failure) failure = message;
      else if (message.summary) summary = message;
    }
  });
  const [code, signal] = await new Promise((resolve) => child.on("exit", (c, s) => resolve([c, s])));
  clearTimeout(timer);
  const where = current ? `case ${current.case} (${current.file}, ${current.mutations.join(" + ")})` : "before the first case";
  const rerun = current ? ` (again: --seed ${seed} --only ${current.case})` : "";
  let problem = null;
  if (hung) problem = `no progress for ${HANG_MS / 1000} s at ${where}: a hang${rerun}`;
  else if (failure) problem = `${where}: ${failure.error}${rerun}\n  input: ${failure.input}`;
  else if (signal) problem = `the child node died of ${signal} at ${where}${rerun}`;
  else if (code !== 0 || !summary) problem = `the child node exited ${code} without finishing, at ${where}${rerun}`;
  else if (summary.maxRSS > maxRss * 1024) problem = `peak RSS ${mib(summary.maxRSS)} MiB is over the bound of ${maxRss}`;
  if (summary) {
    const reasons = Object.entries(summary.reasons).sort((a, b) => b[1] - a[1]).slice(0, 6).map(([r, n]) => `${n} ${r}`);
    console.log(`js fuzz: ${summary.cases} cases from ${summary.seeds} files, plain and deflated (seed ${seed}): ` +
      `${summary.loaded} loaded, ${summary.refused} refused; peak RSS ${mib(summary.maxRSS)} MiB ` +
      `(bound ${maxRss}, heap ${heap}), slowest case ${summary.slowest} ms`);
    if (reasons.length > 0) console.log(`  refusals: ${reasons.join(", ")}`);
  }
  if (problem) {
    console.log(`js fuzz FAILED: ${problem}`);
    process.exit(1);
  }
}

function mib(kib) {
  return Math.round(kib / 1024);
}

// ---- the cases, in the child ------------------------------------------------

// zlib's stream of BOMB_SIZE zero bytes (about 130 KB), made a MiB at a
// time: a deflated body that inflates to far more than any header here
// declares. A reader that inflated it whole would pass the RSS bound.
const BOMB_SIZE = 128 << 20;
let bomb = null;

async function makeBomb() {
  const deflater = createDeflate({ level: 9 });
  const parts = [];
  deflater.on("data", (part) => parts.push(part));
  const ended = new Promise((resolve) => deflater.on("end", resolve));
  const zeros = Buffer.alloc(1 << 20);
  for (let i = 0; i < BOMB_SIZE >> 20; i++) deflater.write(zeros);
  deflater.end();
  await ended;
  return new Uint8Array(Buffer.concat(parts));
}

async function runCases() {
  bomb = await makeBomb();
  const seeds = [];
  for (const file of files) {
    const bytes = new Uint8Array(readFileSync(file));
    const name = file.split(/[\\/]/).pop();
    seeds.push({ name, bytes });
    const deflated = deflate(bytes);
    if (deflated) seeds.push({ name: `${name} deflated`, bytes: deflated });
  }
  const keys = ["", "golden-1", "\u65e5\u672c", 0, -1, 2 ** 53 - 1, -(2n ** 70n), new Uint8Array([0, 1, 2])];
  const counts = { loaded: 0, refused: 0 };
  const reasons = {};
  let slowest = 0;
  const first = only === null ? 0 : Number(only);
  const last = only === null ? cases : first + 1;
  for (let i = first; i < last; i++) {
    const rng = random(seed, i);
    const from = seeds[i % seeds.length];
    const mutations = [];
    let bytes = from.bytes.slice();
    const times = 1 + (rng() % 3);
    for (let t = 0; t < times; t++) bytes = mutate(bytes, rng, mutations);
    if (rng() % 5 !== 0) {
      bytes = withChecksums(bytes);
      mutations.push("checksums made right");
    }
    console.log(JSON.stringify({ case: i, file: from.name, mutations }));
    const started = performance.now();
    try {
      const filter = await load(bytes);
      for (const key of keys) {
        const answer = filter.has(key);
        if (typeof answer !== "boolean") throw new Error(`has(${String(key)}) gave ${answer}`);
      }
      counts.loaded++;
    } catch (e) {
      if (!(e instanceof FormatError)) {
        const input = Array.from(bytes.subarray(0, 300), (b) => b.toString(16).padStart(2, "0")).join("");
        console.log(JSON.stringify({ failure: true, error: `${e?.name}: ${e?.message}\n${e?.stack}`, input }));
        process.exit(1);
      }
      counts.refused++;
      const reason = e.message.replace(/\d+/g, "N");
      reasons[reason] = (reasons[reason] ?? 0) + 1;
    }
    slowest = Math.max(slowest, performance.now() - started);
  }
  console.log(JSON.stringify({
    summary: true, cases: last - first, seeds: files.length, ...counts, reasons,
    maxRSS: process.resourceUsage().maxRSS, slowest: Math.round(slowest),
  }));
}

// A generator of uint32 for case i (xorshift32, seeded by seed and i).
function random(s, i) {
  let x = (Math.imul(s ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca6b)) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

// Where a file's parts are, as a reader finds them (null when too short).
function layout(bytes) {
  if (bytes.length < 16) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = view.getUint16(14, true);
  const at = 16 + 8 * n;
  if (bytes.length < at + 24) return null;
  const flags = view.getUint16(12, true);
  let bodyAt = Math.ceil((at + 24) / 64) * 64;
  let meta = null;
  if (flags & 4 && bytes.length >= at + 32) {
    meta = { at: at + 24, length: view.getUint32(at + 24, true) };
    bodyAt = Math.ceil((at + 32 + meta.length) / 64) * 64;
  }
  return { view, n, at, flags, bodyAt, meta };
}

// The checksums (metadata, body, header) made right again after an edit, so
// that the checks behind them are reached.
function withChecksums(bytes) {
  const parts = layout(bytes);
  if (!parts) return bytes;
  const { view, at, meta, bodyAt } = parts;
  if (meta && bytes.length >= meta.at + 8 + meta.length) {
    view.setUint32(meta.at + 4, crc32c(bytes.subarray(meta.at + 8, meta.at + 8 + meta.length)), true);
  }
  if (bytes.length >= bodyAt) view.setUint32(at + 16, crc32c(bytes.subarray(bodyAt)), true);
  view.setUint32(at + 20, crc32c(bytes.subarray(0, at + 20)), true);
  return bytes;
}

// The file with its body deflated (flag 1, L and R set), or null when it is
// deflated already or not whole.
function deflate(bytes) {
  const parts = layout(bytes);
  if (!parts || parts.flags & 1 || bytes.length < parts.bodyAt) return null;
  const body = deflateSync(bytes.subarray(parts.bodyAt), { level: 9 });
  const out = new Uint8Array(parts.bodyAt + body.length);
  out.set(bytes.subarray(0, parts.bodyAt));
  out.set(body, parts.bodyAt);
  const view = new DataView(out.buffer);
  view.setUint16(12, parts.flags | 1, true);
  view.setBigUint64(parts.at, BigInt(body.length), true);
  view.setBigUint64(parts.at + 8, BigInt(bytes.length - parts.bodyAt), true);
  return withChecksums(out);
}

const INTERESTING = [0n, 1n, 2n, 3n, 7n, 8n, 15n, 16n, 31n, 32n, 33n, 63n, 64n, 127n, 128n, 129n, 255n, 1040n,
  65535n, 65536n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 56n, 2n ** 60n,
  2n ** 60n + 1n, 2n ** 63n, 2n ** 64n - 1n];

const pick = (rng, list) => list[rng() % list.length];
const big64 = (rng) => (BigInt(rng()) << 32n) | BigInt(rng());

// One mutation of bytes (a new array, or bytes changed in place); its name
// goes into names.
function mutate(bytes, rng, names) {
  const parts = layout(bytes);
  const choice = rng() % 14;
  const anyByte = () => rng() % Math.max(bytes.length, 1);
  if (bytes.length === 0 && choice !== 2) return bytes;
  switch (choice) {
    case 0: { // bit flips anywhere
      const flips = 1 + (rng() % 8);
      for (let f = 0; f < flips; f++) bytes[anyByte()] ^= 1 << (rng() % 8);
      names.push(`${flips} bit flips`);
      return bytes;
    }
    case 1: { // truncation, the stored length left or made to fit
      const cut = rng() % bytes.length;
      names.push(`cut to ${cut}`);
      return fitLength(bytes.slice(0, cut), rng, names);
    }
    case 2: { // bytes appended
      const extra = Uint8Array.from({ length: 1 + (rng() % 200) }, () => rng());
      const out = new Uint8Array(bytes.length + extra.length);
      out.set(bytes);
      out.set(extra, bytes.length);
      names.push(`${extra.length} bytes appended`);
      return fitLength(out, rng, names);
    }
    case 3: // a parameter
      if (!parts || parts.n === 0) return bytes;
      {
        const i = rng() % parts.n;
        const old = parts.view.getBigUint64(16 + 8 * i, true);
        const value = BigInt.asUintN(64, pick(rng, [pick(rng, INTERESTING), big64(rng), old + 1n, old - 1n, old * 2n, old / 2n]));
        parts.view.setBigUint64(16 + 8 * i, value, true);
        names.push(`parameter ${i} = ${value}`);
      }
      return bytes;
    case 4: // the stored or inflated length
      if (!parts) return bytes;
      {
        const which = rng() % 2;
        const old = parts.view.getBigUint64(parts.at + 8 * which, true);
        const value = BigInt.asUintN(64, pick(rng, [pick(rng, INTERESTING), old + 1n, old - 1n, old * 1040n, old * 1041n]));
        parts.view.setBigUint64(parts.at + 8 * which, value, true);
        names.push(`${which ? "inflated" : "stored"} length = ${value}`);
      }
      return bytes;
    case 5: { // flags: deflate, open, metadata, unknown
      const bit = pick(rng, [1, 1, 1, 2, 4, 8, 0x8000]);
      bytes[12] ^= bit & 0xff;
      bytes[13] ^= bit >> 8;
      names.push(`flag ${bit} toggled`);
      return bytes;
    }
    case 6: { // version, kind or parameter count
      const field = pick(rng, [8, 10, 14]);
      const value = pick(rng, [0, 1, 2, 3, 4, 9, 11, 12, 255, 65535, (bytes[field] + 1) & 0xff, (bytes[field] + 0xff) & 0xff]);
      bytes[field] = value & 0xff;
      bytes[field + 1] = value >> 8;
      names.push(`u16 at ${field} = ${value}`);
      return bytes;
    }
    case 7: // bytes of the body set (or, deflated, a stream that inflates to something else)
      if (!parts || bytes.length <= parts.bodyAt) return bytes;
      {
        const n = 1 + (rng() % 4);
        for (let j = 0; j < n; j++) bytes[parts.bodyAt + (rng() % (bytes.length - parts.bodyAt))] = rng();
        names.push(`${n} body bytes`);
      }
      return bytes;
    case 8: // the deflated body replaced by another stream: longer, shorter, or of a changed body
      if (!parts || !(parts.flags & 1) || bytes.length < parts.bodyAt) return bytes;
      {
        const size = pick(rng, [0, 1, 7, 64, 1000, 100_000, 1_000_000, BOMB_SIZE]);
        const body = size === BOMB_SIZE ? bomb : deflateSync(new Uint8Array(size).fill(pick(rng, [0, 0xff, 0x11])));
        const out = new Uint8Array(parts.bodyAt + body.length);
        out.set(bytes.subarray(0, parts.bodyAt));
        out.set(body, parts.bodyAt);
        const view = new DataView(out.buffer);
        view.setBigUint64(parts.at, BigInt(body.length), true);
        // (a bomb keeps the declared length: declaring 128 MiB, it may take them)
        if (size !== BOMB_SIZE && rng() % 2) view.setBigUint64(parts.at + 8, BigInt(size), true);
        names.push(`deflated body of ${size} bytes`);
        return out;
      }
    case 9: // the metadata block's length or text
      if (!parts || !parts.meta) return bytes;
      if (rng() % 2) {
        const value = pick(rng, [0, 1, parts.meta.length - 1, parts.meta.length + 1, 65536, 65537, 0xffffffff]) >>> 0;
        parts.view.setUint32(parts.meta.at, value, true);
        names.push(`metadata length = ${value}`);
      } else {
        const i = parts.meta.at + 8 + (rng() % Math.max(parts.meta.length, 1));
        if (i < bytes.length) bytes[i] = pick(rng, [0, 0x22, 0x5b, 0x7b, 0x80, 0xc3, 0xff, rng() & 0xff]);
        names.push("a metadata byte");
      }
      return bytes;
    case 10: // the padding
      if (!parts) return bytes;
      {
        const from = parts.meta ? parts.meta.at + 8 + parts.meta.length : parts.at + 24;
        if (from < parts.bodyAt && from < bytes.length) bytes[from + (rng() % (parts.bodyAt - from))] = 1 + (rng() % 255);
        names.push("padding");
      }
      return bytes;
    case 11: { // a run of random bytes over the header
      const end = parts ? parts.at + 24 : bytes.length;
      const i = rng() % Math.max(end, 1);
      const n = 1 + (rng() % 16);
      for (let j = i; j < i + n && j < bytes.length; j++) bytes[j] = rng();
      names.push(`${n} random bytes at ${i}`);
      return bytes;
    }
    case 12: // the whole body dropped or doubled, lengths to fit
      if (!parts || bytes.length < parts.bodyAt) return bytes;
      {
        const body = bytes.subarray(parts.bodyAt);
        const doubled = rng() % 2;
        const out = new Uint8Array(parts.bodyAt + (doubled ? 2 * body.length : 0));
        out.set(bytes.subarray(0, parts.bodyAt));
        if (doubled) {
          out.set(body, parts.bodyAt);
          out.set(body, parts.bodyAt + body.length);
        }
        const view = new DataView(out.buffer);
        view.setBigUint64(parts.at, BigInt(out.length - parts.bodyAt), true);
        if (!(parts.flags & 1)) view.setBigUint64(parts.at + 8, BigInt(out.length - parts.bodyAt), true);
        names.push(doubled ? "body doubled" : "body dropped");
        return out;
      }
    default: { // a 64-bit word anywhere set to an interesting value
      const i = rng() % Math.max(bytes.length - 7, 1);
      if (bytes.length >= 8) new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(i, pick(rng, INTERESTING), true);
      names.push(`word at ${i}`);
      return bytes;
    }
  }
}

// After a cut or an append: half the time the stored (and, not deflated,
// inflated) length made to fit the file, so the checks after it are reached.
function fitLength(bytes, rng, names) {
  const parts = layout(bytes);
  if (!parts || bytes.length < parts.bodyAt || rng() % 2) return bytes;
  const stored = BigInt(bytes.length - parts.bodyAt);
  parts.view.setBigUint64(parts.at, stored, true);
  if (!(parts.flags & 1)) parts.view.setBigUint64(parts.at + 8, stored, true);
  names.push("lengths fitted");
  return bytes;
}

// Last: the functions above use constants defined on the way here.
if (worker) await runCases();
else await watch();
