// The reader against bloomc's own answers. spec/bloomc/js_reader_spec.rb
// writes filters and, for every key it asks, Ruby's answer into the
// directory BLOOMC_JS_FIXTURES, then runs `node --test js/test/`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32c, fnv1a64, FormatError, load, murmur3x64_128, parse } from "../src/bloomc.js";

const utf8 = new TextEncoder();

test("CRC32C, MurmurHash3 x64_128 and FNV-1a 64 give the published check values", () => {
  assert.equal(crc32c(utf8.encode("123456789")), 0xe3069283); // RFC 3720's check value
  assert.deepEqual(murmur3x64_128(new Uint8Array(0), 0), [0n, 0n]);
  assert.equal(fnv1a64(new Uint8Array(0)), 0xcbf29ce484222325n);
  assert.equal(fnv1a64(utf8.encode("a")), 0xaf63dc4c8601ec8cn);
});

test("a damaged or foreign file is refused with FormatError", () => {
  assert.throws(() => parse(utf8.encode("not a filter at all, not even close")), FormatError);
});

const dir = process.env.BLOOMC_JS_FIXTURES;
const fixtures = dir ? readdirSync(dir).filter((name) => name.endsWith(".bloom")) : [];

// A key as the fixture writes it: [type, value] (s: a UTF-8 string, b: hex
// bytes, i: a decimal integer).
function key([type, value]) {
  if (type === "s") return value;
  if (type === "i") return BigInt(value);
  return Uint8Array.from(value.match(/../g) ?? [], (h) => parseInt(h, 16));
}

for (const name of fixtures) {
  test(`${name}: has(key) is bloomc's answer for every key asked`, async () => {
    const filter = await load(new Uint8Array(readFileSync(join(dir, name))));
    const { keys, answers } = JSON.parse(readFileSync(join(dir, name.replace(/\.bloom$/, ".json")), "utf8"));
    assert.equal(keys.length, answers.length);
    let wrong = 0;
    const examples = [];
    keys.forEach((k, i) => {
      if (filter.has(key(k)) !== answers[i]) {
        wrong++;
        if (examples.length < 5) examples.push(k);
      }
    });
    assert.equal(wrong, 0, `${wrong} of ${keys.length} answers differ, e.g. ${JSON.stringify(examples)}`);
  });

  test(`${name}: one flipped byte is refused`, () => {
    const bytes = new Uint8Array(readFileSync(join(dir, name)));
    bytes[bytes.length - 1] ^= 1;
    assert.throws(() => parse(bytes), FormatError);
  });
}

test("the fixtures were written", { skip: !dir && "BLOOMC_JS_FIXTURES is not set (the Ruby spec sets it)" }, () => {
  assert.ok(fixtures.length >= 4);
});
