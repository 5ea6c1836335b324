// The reader against bloomc's own answers. spec/bloomc/js_reader_spec.rb
// writes filters, the keys it asks (keys.json) and, for each filter, Ruby's
// answer for every key into the directory BLOOMC_JS_FIXTURES, then runs
// `node --test js/test/*.test.js`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  crc32c, fnv1a64, FormatError, keyHash, keyHashReference, load, murmur3x64_128, parse, probes, probesReference,
  useWebAssembly,
} from "../src/bloomc.js";
import { saved } from "./saved.js";

const utf8 = new TextEncoder();

test("CRC32C, MurmurHash3 x64_128 and FNV-1a 64 give the published check values", () => {
  assert.equal(crc32c(utf8.encode("123456789")), 0xe3069283); // RFC 3720's check value
  assert.deepEqual(murmur3x64_128(new Uint8Array(0), 0), [0n, 0n]);
  // SMHasher's MurmurHash3_x64_128 of "The quick brown fox jumps over the lazy dog", seed 0
  // (as printed by its reference implementation: 6c1b07bc7bbc4be3 47939ac4a93c437a, big-endian per half)
  assert.deepEqual(murmur3x64_128(utf8.encode("The quick brown fox jumps over the lazy dog"), 0),
    [0xe34bbc7bbc071b6cn, 0x7a433ca9c49a9347n]);
  assert.equal(fnv1a64(new Uint8Array(0)), 0xcbf29ce484222325n);
  assert.equal(fnv1a64(utf8.encode("a")), 0xaf63dc4c8601ec8cn); // the FNV page's test vector
});

// Each of these runs with the hash in WebAssembly (where it runs) and in JavaScript.
const modes = useWebAssembly() ? [true, false] : [false];

test("the WebAssembly module compiles here (Node has WebAssembly: a module that fails would hide behind the fallback)", () => {
  assert.equal(typeof WebAssembly, "object");
  assert.deepEqual(modes, [true, false]);
});

test("the lookups' hash, in WebAssembly and in 32-bit halves, is the BigInt reference's", () => {
  for (const mode of modes) {
    useWebAssembly(mode);
    compareHashes();
  }
  useWebAssembly(true);
  const long = "x\u00e9".repeat(30000); // longer than the WebAssembly buffer: hashed in JavaScript
  assert.deepEqual(keyHash(long, 7, 0), keyHashReference(long, 7, 0));
});

function compareHashes() {
  let state = 0x12345678;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  for (let round = 0; round < 3000; round++) {
    const bytes = Uint8Array.from({ length: round % 97 }, () => next() >>> 24);
    const seed = round % 5 === 0 ? 0xffffffff : next();
    assert.deepEqual(keyHash(bytes, seed, 0), keyHashReference(bytes, seed, 0), `murmur3 of ${bytes}`);
    assert.deepEqual(keyHash(bytes, 0, 1), keyHashReference(bytes, 0, 1), `fnv1a of ${bytes}`);
    const int = BigInt(next()) * BigInt(next()) * (round % 2 ? -1n : 1n) ** BigInt(round % 3);
    assert.deepEqual(keyHash(int, seed, 0), keyHashReference(int, seed, 0), `murmur3 of ${int}`);
    assert.deepEqual(keyHash(int, 0, 1), keyHashReference(int, 0, 1), `fnv1a of ${int}`);
    const text = String.fromCharCode(...Array.from({ length: round % 41 }, () => next() % (round % 4 ? 0x80 : 0x3000)));
    assert.deepEqual(keyHash(text, seed, 0), keyHashReference(text, seed, 0), `murmur3 of ${text}`);
  }
}

test("the probe positions of hashes 0, 1 and 2, in WebAssembly and in 32-bit halves, are the BigInt reference's", () => {
  let state = 0x9e3779b9;
  const next = () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const sizes = [1, 2, 11, 97, 24_543, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 15, 2 ** 45 + 3, 2 ** 53 - 1];
  for (const mode of modes) {
    useWebAssembly(mode);
    for (let round = 0; round < 600; round++) {
      const key = [`key-${round}`, next() - 2 ** 31, new Uint8Array([round & 0xff, next() & 0xff]), BigInt(next()) << 50n][round % 4];
      const seed = round % 7 === 0 ? 0xffffffff : next();
      const m = sizes[round % sizes.length];
      const k = 1 + (next() % 40);
      for (const hash of [0, 1, 2]) {
        const s = hash === 1 ? 0 : seed;
        const want = probesReference(key, s, hash, k, BigInt(m)).map(Number);
        assert.deepEqual(probes(key, s, hash, k, m), want, `hash ${hash}, m ${m}, k ${k}, key ${String(key)}`);
      }
    }
  }
  useWebAssembly(true);
  // hash 2 is hash 0's walk with each value mixed: they part at the first probe
  assert.notDeepEqual(probes("a", 0, 2, 5, 1 << 30), probes("a", 0, 0, 5, 1 << 30));
});

test("a damaged or foreign file is refused with FormatError", () => {
  assert.throws(() => parse(utf8.encode("not a filter at all, not even close")), FormatError);
});

const doubleBits = (x) => new BigUint64Array(new Float64Array([x]).buffer)[0];

test("version 3: metadata and sizing are read, a bad metadata block is refused", async () => {
  const body = new Uint8Array(16).fill(0xff); // 128 bits, all set: every key is in
  const fields = [128, 3, 0, 0, 5, doubleBits(10), doubleBits(0.01), 5];
  const text = JSON.stringify({ source: "test", period: "2026-11-24T13", "\u65e5": [1, null] });
  const filter = await load(saved({ version: 3, fields, body, metadata: text }));
  assert.deepEqual(filter.metadata, JSON.parse(text));
  assert.deepEqual(filter.sizing, { capacity: 10, errorRate: 0.01, keysNew: 5n });
  assert.equal(filter.has("anything"), true);
  assert.equal((await load(saved({ version: 3, fields, body, metadata: '"just a string"' }))).metadata, "just a string");
  assert.equal((await load(saved({ version: 3, fields, body }))).metadata, null);
  assert.equal((await load(saved({ version: 2, fields, body }))).sizing.capacity, 10);
  assert.equal((await load(saved({ fields: fields.slice(0, 5), body }))).sizing, null);

  const bad = saved({ version: 3, fields, body, metadata: text });
  bad[40 + 8 * fields.length + 9] ^= 1; // a byte of the metadata: its CRC32C no longer matches
  assert.throws(() => parse(bad), /metadata checksum/);
  assert.throws(() => parse(saved({ version: 3, fields, body, metadata: "[1, 2]" })), /neither a JSON string nor an object/);
  assert.throws(() => parse(saved({ version: 3, fields, body, metadata: "{oops" })), /not UTF-8 JSON/);
  assert.throws(() => parse(saved({ version: 2, fields, body, metadata: "{}" })), /only a version 3/);
  assert.throws(() => parse(saved({ version: 3, fields: fields.slice(0, 5), body })), /parameters/);
  assert.throws(() => parse(saved({ version: 4, fields, body })), /version 4/);
});

test("a kind it does not know is refused by number", async () => {
  await assert.rejects(load(saved({ kind: 13, fields: [1], body: new Uint8Array(8) })), /unknown filter kind 13/);
});

const dir = process.env.BLOOMC_JS_FIXTURES;
const fixtures = dir ? readdirSync(dir).filter((name) => name.endsWith(".bloom")) : [];
const keys = dir ? JSON.parse(readFileSync(join(dir, "keys.json"), "utf8")).map(key) : [];

// A key as the fixture writes it: [type, value] (s: a UTF-8 string, b: hex
// bytes, i: a decimal integer).
function key([type, value]) {
  if (type === "s") return value;
  if (type === "i") return BigInt(value);
  return Uint8Array.from(value.match(/../g) ?? [], (h) => parseInt(h, 16));
}

for (const name of fixtures) {
  test(`${name}: has(key) is bloomc's answer for every key asked, and the metadata is its own`, async () => {
    const filter = await load(new Uint8Array(readFileSync(join(dir, name))));
    const { answers, metadata } = JSON.parse(readFileSync(join(dir, name.replace(/\.bloom$/, ".json")), "utf8"));
    assert.equal(keys.length, answers.length);
    for (const mode of modes) {
      useWebAssembly(mode);
      let wrong = 0;
      const examples = [];
      keys.forEach((k, i) => {
        if (filter.has(k) !== answers[i]) {
          wrong++;
          if (examples.length < 5) examples.push(typeof k === "bigint" ? String(k) : k);
        }
      });
      const how = mode ? "WebAssembly" : "JavaScript";
      assert.equal(wrong, 0, `${how}: ${wrong} of ${keys.length} answers differ, e.g. ${JSON.stringify(examples)}`);
    }
    useWebAssembly(true);
    if (metadata !== null) assert.deepEqual(filter.metadata, metadata);
  });

  test(`${name}: one flipped byte is refused`, () => {
    const bytes = new Uint8Array(readFileSync(join(dir, name)));
    bytes[bytes.length - 1] ^= 1;
    assert.throws(() => parse(bytes), FormatError);
  });
}

test("a sliding filter answers at the time it is given: each generation ends ttl + ttl / generations after its start", {
  skip: !fixtures.includes("sliding.bloom") && "no sliding.bloom fixture",
}, async () => {
  const filter = await load(new Uint8Array(readFileSync(join(dir, "sliding.bloom"))));
  const { answers } = JSON.parse(readFileSync(join(dir, "sliding.json"), "utf8"));
  const found = keys.filter((_, i) => answers[i]);
  const now = Date.now() / 1000;
  assert.ok(found.length > 1000);
  assert.ok(found.every((k) => filter.has(k, now) && filter.has(k, new Date())));
  // the newest generation started at most a few simulated minutes ago
  const ends = filter.windows.map((w) => w.start + filter.life);
  const oldestEnd = Math.min(...ends);
  const lastEnd = Math.max(...ends);
  assert.ok(found.some((k) => !filter.has(k, oldestEnd + 1)), "the oldest generation's keys outlived it");
  assert.equal(found.filter((k) => filter.has(k, lastEnd)).length, 0);
});

test("the fixtures were written", { skip: !dir && "BLOOMC_JS_FIXTURES is not set (the Ruby spec sets it)" }, () => {
  assert.ok(fixtures.length >= 4);
});
