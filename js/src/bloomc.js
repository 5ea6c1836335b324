// A reader of bloomc's binary format (docs/FORMAT.md, versions 1 to 3) for
// browsers and Node: parses a saved filter of any kind, checks its CRC32C
// checksums, and answers `has(key)` exactly as the C core does; fetchFilter
// and RemoteFilter get filters over HTTP and revalidate them. No
// dependencies.
//
// Keys: a string is hashed by its UTF-8 bytes, a Uint8Array by its bytes,
// and a bigint or a safe-integer number as Ruby's Integer keys are.
//
// Lookups hash in a small WebAssembly module built below where the platform
// allows, else in JavaScript with 64-bit values as pairs of uint32; the
// BigInt functions are the reference both are tested against.

const MASK64 = (1n << 64n) - 1n;
const MAGIC = [0x89, 0x42, 0x4c, 0x4f, 0x4f, 0x4d, 0x43, 0x0a];
const ALIGN = 64;
const MAX_RATIO = 1040;
const FLAG_DEFLATE = 1;
const FLAG_OPEN = 2;
const FLAG_METADATA = 4;

export const KINDS = Object.freeze({
  1: "BloomFilter", 2: "BlockedBloomFilter", 3: "ContinuousBloomFilter", 4: "CountingBloomFilter",
  5: "SpectralBloomFilter", 6: "BitwiseBloomFilter", 7: "StableBloomFilter", 8: "A2BloomFilter",
  9: "ScalableBloomFilter", 10: "CuckooFilter", 11: "BinaryFuseFilter", 12: "SlidingBloomFilter",
});

export class FormatError extends Error {
  constructor(message) {
    super(message);
    this.name = "FormatError";
  }
}

// ---- checksums and hashes --------------------------------------------------

const CRC32C_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let j = 0; j < 8; j++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    table[i] = c >>> 0;
  }
  return table;
})();

/** CRC-32C (Castagnoli) of bytes, as Bloomc::CRC32C.checksum. */
export function crc32c(bytes, crc = 0) {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC32C_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const rotl64 = (x, r) => ((x << BigInt(r)) | (x >> BigInt(64 - r))) & MASK64;

function fmix64(k) {
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK64;
  k ^= k >> 33n;
  return k;
}

function le64(bytes, at, n = 8) {
  let v = 0n;
  for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[at + i]);
  return v;
}

/** MurmurHash3 x64_128 (Appleby) of bytes with a 32-bit seed: [h1, h2] as bigints. */
export function murmur3x64_128(bytes, seed) {
  const c1 = 0x87c37b91114253d5n;
  const c2 = 0x4cf5ad432745937fn;
  let h1 = BigInt(seed >>> 0);
  let h2 = h1;
  const blocks = Math.floor(bytes.length / 16);
  for (let b = 0; b < blocks; b++) {
    let k1 = le64(bytes, 16 * b);
    let k2 = le64(bytes, 16 * b + 8);
    k1 = (rotl64((k1 * c1) & MASK64, 31) * c2) & MASK64;
    h1 ^= k1;
    h1 = (((rotl64(h1, 27) + h2) & MASK64) * 5n + 0x52dce729n) & MASK64;
    k2 = (rotl64((k2 * c2) & MASK64, 33) * c1) & MASK64;
    h2 ^= k2;
    h2 = (((rotl64(h2, 31) + h1) & MASK64) * 5n + 0x38495ab5n) & MASK64;
  }
  const tail = 16 * blocks;
  const rest = bytes.length - tail;
  if (rest > 8) {
    let k2 = le64(bytes, tail + 8, rest - 8);
    k2 = (rotl64((k2 * c2) & MASK64, 33) * c1) & MASK64;
    h2 ^= k2;
  }
  if (rest > 0) {
    let k1 = le64(bytes, tail, Math.min(rest, 8));
    k1 = (rotl64((k1 * c1) & MASK64, 31) * c2) & MASK64;
    h1 ^= k1;
  }
  const len = BigInt(bytes.length);
  h1 ^= len;
  h2 ^= len;
  h1 = (h1 + h2) & MASK64;
  h2 = (h2 + h1) & MASK64;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 = (h1 + h2) & MASK64;
  h2 = (h2 + h1) & MASK64;
  return [h1, h2];
}

/** FNV-1a 64 of bytes, as a bigint. */
export function fnv1a64(bytes) {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < bytes.length; i++) h = ((h ^ BigInt(bytes[i])) * 0x100000001b3n) & MASK64;
  return h;
}

// ---- keys ------------------------------------------------------------------

const utf8 = new TextEncoder();
const MURMUR3 = 0;
const FNV1A = 1;
// MurmurHash3's key hash and probe values, each probe value passed through
// fmix64 before it is mapped onto [0, m) (ext/bloomc/bf_probe.h).
const MURMUR3_MIXED = 2;
// Integer keys are hashed apart from Strings of the same bytes (ext/bloomc/keys.c).
const INTEGER_SEED_TWEAK = 0x9e3779b9;
const INTEGER_FNV_TWEAK = 0x9e3779b97f4a7c15n;

// An integer's bytes: 8, little-endian two's complement, in the int64 range;
// else one byte more than its magnitude needs.
function integerBytes(value) {
  let v = BigInt(value);
  const int64 = v >= -(1n << 63n) && v < 1n << 63n;
  let len = 8;
  if (!int64) {
    let magnitude = v < 0n ? -v : v;
    len = 0;
    while (magnitude > 0n) {
      magnitude >>= 8n;
      len++;
    }
    len += 1;
  }
  if (v < 0n) v += 1n << BigInt(8 * len);
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * The key's hash [h1, h2] for a filter's seed and hash function (0 and 2:
 * MurmurHash3, 1: FNV-1a), in BigInt arithmetic straight from the
 * algorithms: the reference that keyHash, the lookups' own, is tested against.
 */
export function keyHashReference(key, seed, hash) {
  let bytes;
  let integer = false;
  if (typeof key === "string") bytes = utf8.encode(key);
  else if (key instanceof Uint8Array) bytes = key;
  else if (typeof key === "bigint" || (typeof key === "number" && Number.isSafeInteger(key))) {
    bytes = integerBytes(key);
    integer = true;
  } else throw new TypeError(`a key is a string, a Uint8Array or an integer, not ${typeof key}`);
  if (hash === FNV1A) {
    let v = fnv1a64(bytes);
    if (integer) v ^= INTEGER_FNV_TWEAK;
    return [v >> 32n, v & 0xffffffffn];
  }
  return murmur3x64_128(bytes, integer ? (seed ^ INTEGER_SEED_TWEAK) >>> 0 : seed);
}

/** The key's hash [h1, h2] as lookups compute it (32-bit halves), as bigints. */
export function keyHash(key, seed, hash) {
  hashInto(key, seed >>> 0, hash);
  return [(BigInt(H[0]) << 32n) | BigInt(H[1]), (BigInt(H[2]) << 32n) | BigInt(H[3])];
}

// floor(x * m / 2^64), in [0, m).
const reduce = (x, m) => (x * m) >> 64n;

/**
 * The k probe positions in [0, m) of a key, in BigInt arithmetic as
 * bf_probe.h gives them, for hash 0 (MurmurHash3: x_0 = h1, y_0 = h2, then
 * x += y, y += i + 1, each x mapped by floor(x * m / 2^64)), 1 (FNV-1a:
 * (h1 + h2 * (i + 1)) mod m) or 2 (as 0, each x through fmix64 first): the
 * reference that the lookups' probes are tested against. m a bigint.
 */
export function probesReference(key, seed, hash, k, m) {
  const [h1, h2] = keyHashReference(key, seed, hash);
  const out = [];
  let x = h1;
  let y = h2;
  for (let i = 0; i < k; i++) {
    if (hash === FNV1A) out.push(((h1 + h2 * BigInt(i + 1)) & MASK64) % m);
    else {
      out.push(reduce(hash === MURMUR3_MIXED ? fmix64(x) : x, m));
      x = (x + y) & MASK64;
      y = (y + BigInt(i + 1)) & MASK64;
    }
  }
  return out;
}

// ---- the same in 32-bit halves, for lookups --------------------------------
// BigInt is exact but slow and allocates. A lookup keeps every 64-bit value
// as a pair of uint32 (high, low) in local variables: Math.imul gives the low
// 32 bits of a product and mulHi the high 32, with every intermediate below
// 2^53, so each step is exact.

// floor(a * b / 2^32) for uint32 a and b: the double a * b is within 2^10 of
// the product, and subtracting the exact low word leaves the high word times
// 2^32 to within 2^11, so rounding (not flooring) gives it exactly.
function mulHi(a, b) {
  return ((a * b - (Math.imul(a, b) >>> 0)) / 4294967296 + 0.5) >>> 0;
}

// floor(xh:xl * m / 2^64) for m < 2^32: the high word of xh * m, plus the
// carry out of its low word and the high word of xl * m.
function reduce32(xh, xl, m) {
  return mulHi(xh, m) + ((Math.imul(xh, m) >>> 0) + mulHi(xl, m) > 0xffffffff ? 1 : 0);
}

let rh = 0; // results of the helpers below that give a 64-bit value
let rl = 0;

// The 64-bit product of two uint32, into rh:rl.
function mulWide(a, b) {
  rl = Math.imul(a, b) >>> 0;
  rh = mulHi(a, b);
}

// floor(xh:xl * m / 2^64) for any m < 2^53, as a number.
function reduceNumber(xh, xl, m) {
  if (m <= 0xffffffff) return reduce32(xh, xl, m);
  const mh = Math.floor(m / 4294967296);
  const ml = m >>> 0;
  mulWide(xl, ml);
  const t = rh;
  mulWide(xh, ml); // u = xh * ml + t
  let ul = rl + t;
  const uh = rh + (ul > 0xffffffff ? 1 : 0);
  ul >>>= 0;
  mulWide(xl, mh); // v = xl * mh + u_low
  const vl = rl + ul;
  const vh = rh + (vl > 0xffffffff ? 1 : 0);
  mulWide(xh, mh); // high = xh * mh + u_high + v_high
  let lo = rl + uh + vh;
  const hi = rh + Math.floor(lo / 4294967296);
  lo >>>= 0;
  return hi * 4294967296 + lo;
}

// Little-endian 32-bit word of bytes at i.
const word = (b, i) => (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;

// MurmurHash3's 64-bit finalizer of ah:al, into rh:rl.
function fmix(ah, al) {
  al = (al ^ (ah >>> 1)) >>> 0; // k ^= k >> 33
  let l = Math.imul(al, 0xed558ccd) >>> 0; // k *= 0xff51afd7ed558ccd
  let h = (mulHi(al, 0xed558ccd) + Math.imul(ah, 0xed558ccd) + Math.imul(al, 0xff51afd7)) >>> 0;
  l = (l ^ (h >>> 1)) >>> 0;
  rl = Math.imul(l, 0x1a85ec53) >>> 0; // k *= 0xc4ceb9fe1a85ec53
  rh = (mulHi(l, 0x1a85ec53) + Math.imul(h, 0x1a85ec53) + Math.imul(l, 0xc4ceb9fe)) >>> 0;
  rl = (rl ^ (rh >>> 1)) >>> 0;
}

// The key hash as four uint32: h1 = H[0]:H[1], h2 = H[2]:H[3].
const H = new Uint32Array(4);

// MurmurHash3 x64_128 of the first n bytes of b into H (the same as
// murmur3x64_128). The constants: c1 = 0x87c37b91_114253d5,
// c2 = 0x4cf5ad43_2745937f.
function murmurFast(b, n, seed, w) {
  let h1h = 0;
  let h1l = seed >>> 0;
  let h2h = 0;
  let h2l = seed >>> 0;
  const end = n - (n & 15);
  let kh, kl, th, tl, s;
  for (let at = 0; at < end; at += 16) {
    if (w) {
      kl = w[at >> 2];
      kh = w[(at >> 2) + 1];
    } else {
      kl = word(b, at);
      kh = word(b, at + 4);
    }
    tl = Math.imul(kl, 0x114253d5) >>> 0; // k1 *= c1
    th = (mulHi(kl, 0x114253d5) + Math.imul(kh, 0x114253d5) + Math.imul(kl, 0x87c37b91)) >>> 0;
    kh = ((th << 31) | (tl >>> 1)) >>> 0; // rotl 31
    kl = ((tl << 31) | (th >>> 1)) >>> 0;
    tl = Math.imul(kl, 0x2745937f) >>> 0; // k1 *= c2
    th = (mulHi(kl, 0x2745937f) + Math.imul(kh, 0x2745937f) + Math.imul(kl, 0x4cf5ad43)) >>> 0;
    h1h ^= th;
    h1l ^= tl;
    th = (h1h << 27) | (h1l >>> 5); // rotl 27
    tl = ((h1l << 27) | (h1h >>> 5)) >>> 0;
    s = tl + h2l; // += h2
    h1h = (th + h2h + (s > 0xffffffff ? 1 : 0)) >>> 0;
    s = (s >>> 0) * 5 + 0x52dce729; // * 5 + 0x52dce729
    h1h = (Math.imul(h1h, 5) + Math.floor(s / 4294967296)) >>> 0;
    h1l = s >>> 0;

    if (w) {
      kl = w[(at >> 2) + 2];
      kh = w[(at >> 2) + 3];
    } else {
      kl = word(b, at + 8);
      kh = word(b, at + 12);
    }
    tl = Math.imul(kl, 0x2745937f) >>> 0; // k2 *= c2
    th = (mulHi(kl, 0x2745937f) + Math.imul(kh, 0x2745937f) + Math.imul(kl, 0x4cf5ad43)) >>> 0;
    kh = ((tl << 1) | (th >>> 31)) >>> 0; // rotl 33
    kl = ((th << 1) | (tl >>> 31)) >>> 0;
    tl = Math.imul(kl, 0x114253d5) >>> 0; // k2 *= c1
    th = (mulHi(kl, 0x114253d5) + Math.imul(kh, 0x114253d5) + Math.imul(kl, 0x87c37b91)) >>> 0;
    h2h ^= th;
    h2l ^= tl;
    th = (h2h << 31) | (h2l >>> 1); // rotl 31
    tl = ((h2l << 31) | (h2h >>> 1)) >>> 0;
    s = tl + h1l; // += h1
    h2h = (th + h1h + (s > 0xffffffff ? 1 : 0)) >>> 0;
    s = (s >>> 0) * 5 + 0x38495ab5; // * 5 + 0x38495ab5
    h2h = (Math.imul(h2h, 5) + Math.floor(s / 4294967296)) >>> 0;
    h2l = s >>> 0;
  }
  const rest = n - end;
  if (rest > 8) {
    kh = 0;
    kl = 0;
    for (let i = rest - 1; i >= 8; i--) {
      if (i >= 12) kh = ((kh << 8) | b[end + i]) >>> 0;
      else kl = ((kl << 8) | b[end + i]) >>> 0;
    }
    tl = Math.imul(kl, 0x2745937f) >>> 0;
    th = (mulHi(kl, 0x2745937f) + Math.imul(kh, 0x2745937f) + Math.imul(kl, 0x4cf5ad43)) >>> 0;
    kh = ((tl << 1) | (th >>> 31)) >>> 0;
    kl = ((th << 1) | (tl >>> 31)) >>> 0;
    tl = Math.imul(kl, 0x114253d5) >>> 0;
    th = (mulHi(kl, 0x114253d5) + Math.imul(kh, 0x114253d5) + Math.imul(kl, 0x87c37b91)) >>> 0;
    h2h ^= th;
    h2l ^= tl;
  }
  if (rest > 0) {
    kh = 0;
    kl = 0;
    for (let i = (rest < 8 ? rest : 8) - 1; i >= 0; i--) {
      if (i >= 4) kh = ((kh << 8) | b[end + i]) >>> 0;
      else kl = ((kl << 8) | b[end + i]) >>> 0;
    }
    tl = Math.imul(kl, 0x114253d5) >>> 0;
    th = (mulHi(kl, 0x114253d5) + Math.imul(kh, 0x114253d5) + Math.imul(kl, 0x87c37b91)) >>> 0;
    kh = ((th << 31) | (tl >>> 1)) >>> 0;
    kl = ((tl << 31) | (th >>> 1)) >>> 0;
    tl = Math.imul(kl, 0x2745937f) >>> 0;
    th = (mulHi(kl, 0x2745937f) + Math.imul(kh, 0x2745937f) + Math.imul(kl, 0x4cf5ad43)) >>> 0;
    h1h ^= th;
    h1l ^= tl;
  }
  h1h >>>= 0;
  h2h >>>= 0;
  h1l = (h1l ^ n) >>> 0; // lengths below 2^32
  h2l = (h2l ^ n) >>> 0;
  s = h1l + h2l; // h1 += h2
  h1h = (h1h + h2h + (s > 0xffffffff ? 1 : 0)) >>> 0;
  h1l = s >>> 0;
  s = h2l + h1l; // h2 += h1
  h2h = (h2h + h1h + (s > 0xffffffff ? 1 : 0)) >>> 0;
  h2l = s >>> 0;
  fmix(h1h, h1l);
  h1h = rh;
  h1l = rl;
  fmix(h2h, h2l);
  h2h = rh;
  h2l = rl;
  s = h1l + h2l;
  h1h = (h1h + h2h + (s > 0xffffffff ? 1 : 0)) >>> 0;
  h1l = s >>> 0;
  s = h2l + h1l;
  H[0] = h1h;
  H[1] = h1l;
  H[2] = h2h + h1h + (s > 0xffffffff ? 1 : 0);
  H[3] = s;
}

// FNV-1a 64 of the first n bytes of b into H, split as the C core splits it
// (h1 the high half, h2 the low half). The prime is 2^40 + 0x1b3.
function fnvFast(b, n, tweak) {
  let hh = 0xcbf29ce4;
  let hl = 0x84222325;
  for (let i = 0; i < n; i++) {
    hl = (hl ^ b[i]) >>> 0;
    const p = hl * 0x1b3;
    hh = (Math.imul(hh, 0x1b3) + Math.floor(p / 4294967296) + (hl << 8)) >>> 0;
    hl = p >>> 0;
  }
  H[0] = 0;
  H[1] = tweak ? hh ^ 0x9e3779b9 : hh;
  H[2] = 0;
  H[3] = tweak ? hl ^ 0x7f4a7c15 : hl;
}

// A reused buffer for a string key's UTF-8 bytes (no allocation a lookup).
let keyBuffer = new Uint8Array(256);
// Its 32-bit words, when this host is little-endian (the words of the hash).
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
let keyWords = new Uint32Array(keyBuffer.buffer);

// A string's UTF-8 bytes into keyBuffer; their number.
function utf8Into(s) {
  if (keyBuffer.length < 3 * s.length) {
    keyBuffer = new Uint8Array(3 * s.length + 64);
    keyWords = new Uint32Array(keyBuffer.buffer);
  }
  return utf8.encodeInto(s, keyBuffer).written;
}

// ---- the hash in WebAssembly -------------------------------------------------
// WebAssembly has 64-bit integers: MurmurHash3 there takes about a tenth of
// the time of the 32-bit halves above. The module is assembled here, byte by
// byte (no build step, no file to fetch); where WebAssembly is missing or
// refused (a Content-Security-Policy without 'wasm-unsafe-eval'), lookups
// keep the JavaScript hash, which gives the same answers.
//
// murmur(len, seed) hashes the len bytes at KEY_AT and stores h1 and h2,
// little-endian, at 0 and 8. The bytes after the key may be anything: the
// tail's loads are masked to the key's bytes.
//
// mix(k, m), for hash 2 and m < 2^32: the k probe positions of the hash h1,
// h2 at 0 and 8, each x_i through fmix64 and mapped by
// floor(x * m / 2^64) = (hi(x) * m + (lo(x) * m >> 32)) >> 32, as uint32 at
// POS_AT.

const KEY_AT = 64;
const POS_AT = 65536 - 4 * 128; // the positions of up to 128 probes, at the end of the page
const WASM_KEY_BYTES = POS_AT - KEY_AT - 16; // the tail's loads read up to 16 bytes on

// Signed LEB128 of a 64-bit value (i32.const and i64.const immediates).
function sleb(value) {
  let v = BigInt.asIntN(64, BigInt(value));
  const out = [];
  for (;;) {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    if ((v === 0n && !(byte & 0x40)) || (v === -1n && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
}

function murmurModule() {
  const [len, seed, h1, h2, k1, k2, p, end, rest] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const get = (i) => [0x20, i];
  const set = (i) => [0x21, i];
  const i64 = (v) => [0x42, ...sleb(v)];
  const i32 = (v) => [0x41, ...sleb(v)];
  const load64 = (offset) => [0x29, 0, offset]; // align hint 1, offset < 128
  const [add, mul, and, xor, shrU, rotl] = [[0x7c], [0x7e], [0x83], [0x85], [0x88], [0x89]];
  const extend = [0xad]; // i64.extend_i32_u
  const C1 = 0x87c37b91114253d5n;
  const C2 = 0x4cf5ad432745937fn;
  // k = rotl(k * a, r) * b, on the stack
  const scramble = (a, r, b) => [...i64(a), ...mul, ...i64(r), ...rotl, ...i64(b), ...mul];
  const body = [
    ...get(seed), ...extend, ...set(h1), ...get(h1), ...set(h2),
    ...i32(KEY_AT), ...set(p),
    ...get(len), ...i32(~15), 0x71, ...i32(KEY_AT), 0x6a, ...set(end),
    0x02, 0x40, 0x03, 0x40, // block, loop
    ...get(p), ...get(end), 0x4f, 0x0d, 1, // br_if out when p >= end
    ...get(p), ...load64(0), ...scramble(C1, 31, C2), ...get(h1), ...xor,
    ...i64(27), ...rotl, ...get(h2), ...add, ...i64(5), ...mul, ...i64(0x52dce729), ...add, ...set(h1),
    ...get(p), ...load64(8), ...scramble(C2, 33, C1), ...get(h2), ...xor,
    ...i64(31), ...rotl, ...get(h1), ...add, ...i64(5), ...mul, ...i64(0x38495ab5), ...add, ...set(h2),
    ...get(p), ...i32(16), 0x6a, ...set(p),
    0x0c, 0, // br loop
    0x0b, 0x0b, // end loop, end block
    ...get(len), ...i32(15), 0x71, ...set(rest),
    // rest > 8: h2 ^= scramble2(load(p + 8) & ~0 >> (64 - 8 (rest - 8)))
    ...get(rest), ...i32(8), 0x4b, 0x04, 0x40,
    ...get(p), ...load64(8), ...i64(-1), ...i32(128), ...get(rest), ...i32(8), 0x6c, 0x6b, ...extend, ...shrU, ...and,
    ...scramble(C2, 33, C1), ...get(h2), ...xor, ...set(h2),
    0x0b,
    // rest > 0: h1 ^= scramble1(load(p) & ~0 >> (64 - 8 min(rest, 8)))
    ...get(rest), 0x04, 0x40,
    ...get(p), ...load64(0), ...i64(-1), ...i32(64),
    ...get(rest), ...i32(8), ...get(rest), ...i32(8), 0x49, 0x1b, // select(rest, 8, rest < 8)
    ...i32(8), 0x6c, 0x6b, ...extend, ...shrU, ...and,
    ...scramble(C1, 31, C2), ...get(h1), ...xor, ...set(h1),
    0x0b,
    ...get(h1), ...get(len), ...extend, ...xor, ...set(h1),
    ...get(h2), ...get(len), ...extend, ...xor, ...set(h2),
    ...get(h1), ...get(h2), ...add, ...set(h1),
    ...get(h2), ...get(h1), ...add, ...set(h2),
    ...get(h1), 0x10, 1, ...set(h1), // call fmix
    ...get(h2), 0x10, 1, ...set(h2),
    ...get(h1), ...get(h2), ...add, ...set(h1),
    ...get(h2), ...get(h1), ...add, ...set(h2),
    ...i32(0), ...get(h1), 0x37, 0, 0, // i64.store at 0
    ...i32(0), ...get(h2), 0x37, 0, 8, // i64.store at 8
    0x0b,
  ];
  const locals = [2, 4, 0x7e, 3, 0x7f]; // 4 i64, 3 i32
  const fmix = [
    0x00, // no locals
    ...get(0), ...get(0), ...i64(33), ...shrU, ...xor, ...i64(0xff51afd7ed558ccdn), ...mul, 0x22, 0,
    ...i64(33), ...shrU, ...get(0), ...xor, ...i64(0xc4ceb9fe1a85ec53n), ...mul, 0x22, 0,
    ...i64(33), ...shrU, ...get(0), ...xor,
    0x0b,
  ];
  const [k, m, x, y, i, v, m64] = [0, 1, 2, 3, 4, 5, 6];
  const low32 = [...i64(0xffffffff), ...and];
  const mix = [
    3, 2, 0x7e, 1, 0x7f, 2, 0x7e, // locals: x, y (i64); i (i32); v, m64 (i64)
    ...i32(0), ...load64(0), ...set(x), ...i32(0), ...load64(8), ...set(y),
    ...get(m), ...extend, ...set(m64),
    0x02, 0x40, 0x03, 0x40, // block, loop
    ...get(i), ...get(k), 0x4f, 0x0d, 1, // br_if out when i >= k
    ...get(x), 0x10, 1, ...set(v), // v = fmix64(x)
    ...get(i), ...i32(2), 0x74, // the address: 4 i
    ...get(v), ...i64(32), ...shrU, ...get(m64), ...mul,
    ...get(v), ...low32, ...get(m64), ...mul, ...i64(32), ...shrU, ...add,
    ...i64(32), ...shrU, 0xa7, // i32.wrap_i64
    0x36, 2, ...uleb(POS_AT), // i32.store at POS_AT + 4 i
    ...get(x), ...get(y), ...add, ...set(x), // x += y
    ...get(i), ...i32(1), 0x6a, 0x22, i, // i += 1 (and kept on the stack)
    ...extend, ...get(y), ...add, ...set(y), // y += i + 1, by the old i
    0x0c, 0, // br loop
    0x0b, 0x0b,
    0x0b,
  ];
  const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
  const name = (s) => [s.length, ...Array.from(s, (c) => c.charCodeAt(0))];
  const code = [...locals, ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, 0x60, 2, 0x7f, 0x7f, 0, 0x60, 1, 0x7e, 1, 0x7e]), // types: (i32, i32) -> (), (i64) -> i64
    ...section(3, [3, 0, 1, 0]), // functions: murmur, fmix, mix
    ...section(5, [1, 0x00, 1]), // memory: one page
    ...section(7, [3, ...name("memory"), 2, 0, ...name("murmur"), 0, 0, ...name("mix"), 0, 2]),
    ...section(10, [3, ...uleb(code.length), ...code, ...uleb(fmix.length), ...fmix, ...uleb(mix.length), ...mix]),
  ]);
}

function uleb(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
}

// {murmur, mix, key: Uint8Array at KEY_AT, words: Uint32Array of the hash, positions: Uint32Array at POS_AT}
let wasm = startWebAssembly();

function startWebAssembly() {
  if (!LITTLE_ENDIAN || typeof WebAssembly !== "object") return null;
  try {
    const { exports } = new WebAssembly.Instance(new WebAssembly.Module(murmurModule()), {});
    return {
      murmur: exports.murmur,
      mix: exports.mix,
      key: new Uint8Array(exports.memory.buffer, KEY_AT, WASM_KEY_BYTES),
      words: new Uint32Array(exports.memory.buffer, 0, 4),
      positions: new Uint32Array(exports.memory.buffer, POS_AT, 128),
    };
  } catch {
    return null;
  }
}

/**
 * Whether lookups hash in WebAssembly: on by default where the platform
 * allows it. useWebAssembly(false) keeps them in JavaScript (the same
 * answers, slower); useWebAssembly(true) turns it back on if it can.
 */
export function useWebAssembly(on = true) {
  wasm = on ? wasm ?? startWebAssembly() : null;
  return wasm !== null;
}

// A key's hash into H (the same as keyHash).
//
// Issue 32: Node 20's optimizer, inlining the call into WebAssembly, read a
// typed array's field of the key before the check that it was one, and a
// process that looked up both string and small-integer keys died of
// SIGSEGV. So the key's type is settled here by typeof before anything else
// is read from it, each type has a function of its own, and only
// wasmMurmur, whose arguments are always two numbers, calls the module.
function hashInto(key, seed, hash) {
  const type = typeof key;
  if (type === "string") hashString(key, seed, hash);
  else if (type === "number") {
    if (!Number.isSafeInteger(key)) throw new TypeError(`a number key is a safe integer, not ${key}`);
    hashNumber(key, seed, hash);
  } else if (type === "bigint") {
    const bytes = integerBytes(key);
    hashBytes(bytes, bytes.length, seed, hash, true);
  } else if (type === "object" && key instanceof Uint8Array) hashBytes(key, key.length, seed, hash, false);
  else throw new TypeError(`a key is a string, a Uint8Array or an integer, not ${type}`);
}

function hashString(s, seed, hash) {
  if (wasm !== null && hash !== FNV1A && 3 * s.length <= WASM_KEY_BYTES) {
    wasmMurmur(utf8.encodeInto(s, wasm.key).written, seed);
    return;
  }
  const n = utf8Into(s); // first: it may replace keyBuffer
  hashBytes(keyBuffer, n, seed, hash, false);
}

// A safe integer's 8 bytes, little-endian two's complement (integerBytes
// without BigInt), through a buffer of its own.
const numberBytes = new Uint8Array(8);
const numberView = new DataView(numberBytes.buffer);

function hashNumber(v, seed, hash) {
  numberView.setUint32(0, v >>> 0, true);
  numberView.setUint32(4, Math.floor(v / 4294967296) >>> 0, true);
  hashBytes(numberBytes, 8, seed, hash, true);
}

// The first n bytes of a Uint8Array (a key, keyBuffer or an integer's bytes).
function hashBytes(bytes, n, seed, hash, integer) {
  if (hash === FNV1A) {
    fnvFast(bytes, n, integer);
    return;
  }
  const s = integer ? (seed ^ INTEGER_SEED_TWEAK) >>> 0 : seed;
  if (wasm !== null && n <= WASM_KEY_BYTES) {
    wasm.key.set(n === bytes.length ? bytes : bytes.subarray(0, n));
    wasmMurmur(n, s);
  } else murmurFast(bytes, n, s, bytes === keyBuffer && LITTLE_ENDIAN ? keyWords : null);
}

// MurmurHash3 of the n bytes at KEY_AT into H, in WebAssembly: with
// wasmMix, the only callers of the module, each with two numbers (see
// hashInto).
function wasmMurmur(n, seed) {
  wasm.murmur(n, seed);
  const w = wasm.words;
  H[0] = w[1];
  H[1] = w[0];
  H[2] = w[3];
  H[3] = w[2];
}

// The k (1..128) mixed probe positions (hash 2) of the hash in H for m below
// 2^32, in WebAssembly: wasm.positions holds them.
function wasmMix(k, m) {
  const w = wasm.words; // H may come from the JavaScript hash: it goes in again
  w[0] = H[1];
  w[1] = H[0];
  w[2] = H[3];
  w[3] = H[2];
  wasm.mix(k, m);
}

// ---- probes ----------------------------------------------------------------
// A probe walk over [0, m) from the hash in H, as bf_probe.h: MurmurHash3's
// x_i = h1 + i*h2 + (i^3 - i)/6 mapped by multiply-shift (hash 0), the same
// with each x_i through fmix64 first (hash 2), or FNV-1a's
// (h1 + h2 * (i + 1)) mod m (hash 1). Any kind takes any of them by passing
// its hash to probeStart (and to checkBasics); BloomFilter has loops of its
// own for speed, the other kinds walk with probeNext.

let pxh = 0;
let pxl = 0;
let pyh = 0;
let pyl = 0;
let pi = 0;
let pm = 0;
let pfnv = false;
let pmix = false;
let pready = false; // the k positions are in wasm.positions already

// A walk of k probes (1..128) over [0, m) for hash 0, 1 or 2.
function probeStart(m, hash, k) {
  pxh = H[0];
  pxl = H[1];
  pyh = H[2];
  pyl = H[3];
  pi = 0;
  pm = m;
  pfnv = hash === FNV1A;
  pmix = hash === MURMUR3_MIXED;
  pready = pmix && wasm !== null && m <= 0xffffffff;
  if (pready) wasmMix(k, m);
}

function probeNext() {
  pi++;
  // h1, h2 < 2^32 and i <= 128: exact in a double, no wrap mod 2^64
  if (pfnv) return (pxl + pyl * pi) % pm;
  if (pready) return wasm.positions[pi - 1];
  let pos;
  if (pmix) {
    fmix(pxh, pxl);
    pos = reduceNumber(rh, rl, pm);
  } else pos = reduceNumber(pxh, pxl, pm);
  let l = pxl + pyl; // x += y
  pxh = (pxh + pyh + (l > 0xffffffff ? 1 : 0)) >>> 0;
  pxl = l >>> 0;
  l = pyl + pi; // y += i + 1
  pyh = (pyh + (l > 0xffffffff ? 1 : 0)) >>> 0;
  pyl = l >>> 0;
  return pos;
}

/**
 * The k probe positions in [0, m) of a key as lookups compute them (m a
 * number below 2^53), for hash 0, 1 or 2: the same as probesReference.
 */
export function probes(key, seed, hash, k, m) {
  hashInto(key, seed >>> 0, hash);
  probeStart(m, hash, k);
  const out = [];
  for (let i = 0; i < k; i++) out.push(probeNext());
  return out;
}

// Cell i of width w (1..32) of a cell field (docs/FORMAT.md: lowest bit
// first, 7 trailing bytes, so 5 bytes from the cell's first are there).
function cellAt(body, i, w) {
  const bit = i * w;
  const at = Math.floor(bit / 8);
  const shift = bit % 8;
  let v = word(body, at) >>> shift;
  if (shift) v |= body[at + 4] << (32 - shift);
  return w === 32 ? v >>> 0 : (v & ((2 ** w - 1) | 0)) >>> 0;
}

// The bit at i of a bit field from byte offset `at`.
const bitAt = (body, at, i) => (body[at + Math.floor(i / 8)] >> i % 8) & 1;

// ---- the filters -----------------------------------------------------------

function bitSet(body, i) {
  return (body[Number(i >> 3n)] >> Number(i & 7n)) & 1;
}

// The seed parameter of a kind without a hash parameter (docs/FORMAT.md): the
// seed in bits 0-31, the hash id (0 or 2) in bits 32 and up.
function seedAndHash(field) {
  const hash = Number(field >> 32n);
  if (hash !== MURMUR3 && hash !== MURMUR3_MIXED) throw new FormatError(`hash id ${hash} in the seed parameter is not 0 or 2`);
  return [Number(field & 0xffffffffn), hash];
}

function checkBasics(k, seed, hash) {
  if (k < 1 || k > 128) throw new FormatError(`k ${k} is not 1..128`);
  if (seed > 0xffffffff) throw new FormatError(`seed ${seed} is not 32 bits`);
  if (hash !== MURMUR3 && hash !== FNV1A && hash !== MURMUR3_MIXED) throw new FormatError(`unknown hash ${hash}`);
}

// Bytes of a field of count cells of width bits (bf_buckets_nbytes).
const cellBytes = (count, width) => Number((count * BigInt(width) + 7n) / 8n) + 7;

/** A BloomFilter: m bits, k probes by enhanced double hashing (or bloombroom's FNV-1a layout). */
export class BloomFilter {
  constructor(fields, body) {
    [this.m, this.k, this.seed, this.hash, this.count] = fields;
    this.k = Number(this.k);
    this.seed = Number(this.seed);
    this.hash = Number(this.hash);
    checkBasics(this.k, this.seed, this.hash);
    if (this.m < 1n || body.length !== Number((this.m + 63n) / 64n) * 8) throw new FormatError("the body is not m bits");
    this.body = body;
    this.mNumber = this.m < 1n << 53n ? Number(this.m) : undefined;
  }

  has(key) {
    const m = this.mNumber;
    if (m === undefined) return this.hasExact(key);
    hashInto(key, this.seed, this.hash);
    const body = this.body;
    const k = this.k;
    if (this.hash === FNV1A) {
      // h1 and h2 are below 2^32, so h1 + h2 * (i + 1) is exact in a double
      const a = H[1];
      const b = H[3];
      for (let i = 1; i <= k; i++) {
        const pos = (a + b * i) % m;
        if (!((body[Math.floor(pos / 8)] >> (pos % 8)) & 1)) return false;
      }
      return true;
    }
    if (this.hash === MURMUR3_MIXED) return this.probeMixed(body, k, m);
    let xh = H[0];
    let xl = H[1];
    let yh = H[2];
    let yl = H[3];
    if (m <= 0xffffffff) {
      for (let i = 1; i <= k; i++) {
        const pos = mulHi(xh, m) + ((Math.imul(xh, m) >>> 0) + mulHi(xl, m) > 0xffffffff ? 1 : 0);
        if (!((body[pos >>> 3] >> (pos & 7)) & 1)) return false;
        let l = xl + yl; // x += y
        xh = (xh + yh + (l > 0xffffffff ? 1 : 0)) >>> 0;
        xl = l >>> 0;
        l = yl + i; // y += i + 1 (i counts from 1 here)
        yh = (yh + (l > 0xffffffff ? 1 : 0)) >>> 0;
        yl = l >>> 0;
      }
      return true;
    }
    for (let i = 1; i <= k; i++) {
      const pos = reduceNumber(xh, xl, m);
      if (!((body[Math.floor(pos / 8)] >> (pos % 8)) & 1)) return false;
      let l = xl + yl;
      xh = (xh + yh + (l > 0xffffffff ? 1 : 0)) >>> 0;
      xl = l >>> 0;
      l = yl + i;
      yh = (yh + (l > 0xffffffff ? 1 : 0)) >>> 0;
      yl = l >>> 0;
    }
    return true;
  }

  // has() for hash 2, once the key's hash is in H: the positions from
  // WebAssembly read here (the shared walk's calls cost a third of the
  // lookups), else the shared walk.
  probeMixed(body, k, m) {
    if (wasm !== null && m <= 0xffffffff) {
      wasmMix(k, m);
      const positions = wasm.positions;
      for (let i = 0; i < k; i++) {
        const pos = positions[i];
        if (!((body[pos >>> 3] >> (pos & 7)) & 1)) return false;
      }
      return true;
    }
    probeStart(m, MURMUR3_MIXED, k);
    for (let i = 0; i < k; i++) {
      const pos = probeNext();
      if (!((body[Math.floor(pos / 8)] >> (pos % 8)) & 1)) return false;
    }
    return true;
  }

  // The BigInt path, for m of 2^53 bits or more.
  hasExact(key) {
    const [h1, h2] = keyHashReference(key, this.seed, this.hash);
    let x = h1;
    let y = h2;
    for (let i = 0; i < this.k; i++) {
      let pos;
      if (this.hash === FNV1A) pos = ((h1 + h2 * BigInt(i + 1)) & MASK64) % this.m;
      else {
        pos = reduce(this.hash === MURMUR3_MIXED ? fmix64(x) : x, this.m);
        x = (x + y) & MASK64;
        y = (y + BigInt(i + 1)) & MASK64;
      }
      if (!bitSet(this.body, pos)) return false;
    }
    return true;
  }
}

/** A BlockedBloomFilter: every key's k bits in one 64-byte block. */
export class BlockedBloomFilter {
  constructor(fields, body) {
    [this.blocks, this.k, this.seed, this.count] = fields;
    this.k = Number(this.k);
    this.seed = Number(this.seed);
    checkBasics(this.k, this.seed, MURMUR3);
    if (this.blocks < 1n || body.length !== Number(this.blocks) * 64) throw new FormatError("the body is not whole blocks");
    this.body = body;
    this.blocksNumber = Number(this.blocks); // whole 64-byte blocks in memory: far below 2^53
  }

  has(key) {
    hashInto(key, this.seed, MURMUR3);
    const block = reduceNumber(H[0], H[1], this.blocksNumber) * 64;
    let oh = H[2]; // the hash word the bits come from: h2, remixed every 10 probes
    let ol = H[3];
    let wh = oh; // what is left of it, 6 bits a probe
    let wl = ol;
    const first = oh >>> 29;
    const body = this.body;
    const k = this.k;
    let remixAt = 10;
    for (let i = 0; i < k; i++) {
      if (i === remixAt) {
        // remix: w ^= w >> 32; w *= the 64-bit golden ratio; w ^= w >> 29
        ol = (ol ^ oh) >>> 0;
        const h = (mulHi(ol, 0x7f4a7c15) + Math.imul(oh, 0x7f4a7c15) + Math.imul(ol, 0x9e3779b9)) >>> 0;
        const l = Math.imul(ol, 0x7f4a7c15) >>> 0;
        ol = (l ^ ((l >>> 29) | (h << 3))) >>> 0;
        oh = (h ^ (h >>> 29)) >>> 0;
        wh = oh;
        wl = ol;
        remixAt += 10;
      }
      const bit = wl & 63;
      wl = ((wl >>> 6) | (wh << 26)) >>> 0;
      wh >>>= 6;
      if (!((body[block + 8 * ((i + first) & 7) + (bit >> 3)] >> (bit & 7)) & 1)) return false;
    }
    return true;
  }
}

const CONT_SLOTS = 15;
const CONT_DIVISOR = 2;

/**
 * A ContinuousBloomFilter, answered by its saved clock: a key is present
 * when each of its k 4-bit buckets holds one of the live slots (the current
 * slot and the two before it), as bf_continuous_lookup decides.
 */
export class ContinuousBloomFilter {
  constructor(fields, body) {
    const [m, k, seed, hash, slot, ticks, a0, a1, a2, ttl] = fields;
    this.m = m;
    this.k = Number(k);
    this.seed = Number(seed);
    this.hash = Number(hash);
    this.slot = Number(slot);
    this.ticks = ticks;
    this.recentAdds = [a0, a1, a2];
    this.ttl = new Float64Array(new BigUint64Array([ttl]).buffer)[0];
    checkBasics(this.k, this.seed, this.hash);
    if (this.slot < 1 || this.slot > CONT_SLOTS) throw new FormatError(`slot ${this.slot} is not 1..15`);
    if (m < 1n || body.length !== cellBytes(m, 4)) throw new FormatError("the body is not m 4-bit buckets");
    this.body = body;
    this.mNumber = Number(m);
    let live = 0;
    for (let d = 0; d <= CONT_DIVISOR; d++) live |= 1 << (((this.slot + CONT_SLOTS - 1 - d) % CONT_SLOTS) + 1);
    this.liveMask = live;
  }

  has(key) {
    hashInto(key, this.seed, this.hash);
    probeStart(this.mNumber, this.hash, this.k);
    const body = this.body;
    for (let i = 0; i < this.k; i++) {
      const pos = probeNext();
      const bucket = (body[Math.floor(pos / 2)] >> ((pos % 2) * 4)) & 0xf;
      if (!((this.liveMask >> bucket) & 1)) return false;
    }
    return true;
  }
}

/** A CountingBloomFilter: a key is present when each of its k cells is non-zero. */
export class CountingBloomFilter {
  constructor(fields, body) {
    const [m, k, width, seed, count] = fields;
    this.m = m;
    this.k = Number(k);
    this.width = Number(width);
    [this.seed, this.hash] = seedAndHash(seed);
    this.count = count;
    checkBasics(this.k, this.seed, this.hash);
    if (this.width < 1 || this.width > 32) throw new FormatError(`width ${this.width} is not 1..32`);
    if (m < 1n || body.length !== cellBytes(m, this.width)) throw new FormatError("the body is not m cells");
    this.body = body;
    this.mNumber = Number(m);
  }

  has(key) {
    hashInto(key, this.seed, this.hash);
    probeStart(this.mNumber, this.hash, this.k);
    for (let i = 0; i < this.k; i++) if (cellAt(this.body, probeNext(), this.width) === 0) return false;
    return true;
  }
}

/**
 * A SpectralBloomFilter (minimum increase or recurring minimum): present
 * when each of its k primary cells is non-zero; the secondary cells (RM)
 * only sharpen counts.
 */
export class SpectralBloomFilter extends CountingBloomFilter {
  constructor(fields, body) {
    const [algorithm, m, k, width, seed, count, saturated, secondaryM] = fields;
    if (algorithm > 1n) throw new FormatError(`unknown spectral algorithm ${algorithm}`);
    const primary = cellBytes(m, Number(width));
    const secondary = algorithm === 1n ? cellBytes(secondaryM, Number(width)) : 0;
    if (algorithm === 1n && secondaryM < 1n) throw new FormatError("a recurring-minimum filter has secondary cells");
    if (body.length !== primary + secondary) throw new FormatError("the body is not the primary and secondary cells");
    super([m, k, width, seed, count, saturated], body.subarray(0, primary));
    this.algorithm = algorithm === 1n ? "rm" : "mi";
  }
}

/** A StableBloomFilter: present when each of its k cells is non-zero (as it stood when saved). */
export class StableBloomFilter extends CountingBloomFilter {
  constructor(fields, body) {
    const [m, k, d, width, seed, , count] = fields;
    if (d < 1n || d > m) throw new FormatError("d is not 1..m");
    super([m, k, width, seed, count], body);
    this.d = d;
  }
}

/**
 * A BitwiseBloomFilter: present when each of its k cells of level 0 is
 * non-zero (a count above 0 starts there; the other levels only carry).
 */
export class BitwiseBloomFilter extends CountingBloomFilter {
  constructor(fields, body) {
    const [m, k, width, seed, count, levels] = fields;
    const w = Number(width);
    if (levels < 1n || levels > 64n || w < 1 || w > 32) throw new FormatError("bad levels or width");
    let total = 0;
    for (let l = 0; l < Number(levels); l++) total += cellBytes(m, Math.min(32, w * 2 ** l));
    if (body.length !== total) throw new FormatError("the body is not the levels' cells");
    super([m, k, width, seed, count], body.subarray(0, cellBytes(m, w)));
    this.levels = Number(levels);
  }
}

/** An A2BloomFilter: present when either half holds all of the key's k bits. */
export class A2BloomFilter {
  constructor(fields, body) {
    const [half, k, seed, capacity, active, , count] = fields;
    this.k = Number(k);
    [this.seed, this.hash] = seedAndHash(seed);
    this.capacity = capacity;
    this.active = Number(active);
    this.count = count;
    checkBasics(this.k, this.seed, this.hash);
    if (active > 1n) throw new FormatError("the active half is not 0 or 1");
    const bytes = Number((half + 63n) / 64n) * 8;
    if (half < 1n || body.length !== 2 * bytes) throw new FormatError("the body is not two halves of bits");
    this.half = Number(half);
    this.halfBytes = bytes;
    this.body = body;
  }

  has(key) {
    hashInto(key, this.seed, this.hash);
    for (const at of [this.active * this.halfBytes, (1 - this.active) * this.halfBytes]) {
      probeStart(this.half, this.hash, this.k);
      let all = true;
      for (let i = 0; i < this.k && all; i++) all = bitAt(this.body, at, probeNext()) === 1;
      if (all) return true;
    }
    return false;
  }
}

const bitsDouble = (bits) => new Float64Array(new BigUint64Array([bits]).buffer)[0];

/** A ScalableBloomFilter: present when any layer (a plain MurmurHash3 filter) holds the key. */
export class ScalableBloomFilter {
  constructor(fields, body) {
    [this.seed, this.hash] = seedAndHash(fields[0]);
    this.errorRate = bitsDouble(fields[1]);
    this.count = fields[7];
    const n = Number(fields[8]);
    this.layers = [];
    let at = 0;
    for (let i = 0; i < n; i++) {
      const [m, k, capacity, count] = fields.slice(9 + 4 * i, 13 + 4 * i);
      checkBasics(Number(k), 0, this.hash);
      if (m < 1n || m > 1n << 60n) throw new FormatError(`layer ${i}'s m is not 1..2^60`);
      const bytes = Number((m + 63n) / 64n) * 8;
      this.layers.push({ m: Number(m), k: Number(k), capacity, count, at });
      at += bytes;
    }
    if (body.length !== at) throw new FormatError("the body is not the layers' bits");
    this.body = body;
    this.newestFirst = this.layers.slice().reverse();
  }

  has(key) {
    hashInto(key, this.seed, this.hash);
    return anyLayerHas(this.body, this.newestFirst, this.hash);
  }
}

// Whether one of layers (each {m, k, at}: a plain filter's bits at offset at
// of body) has every bit of the key hashed last (hashInto).
function anyLayerHas(body, layers, hash) {
  for (const layer of layers) {
    probeStart(layer.m, hash, layer.k);
    let all = true;
    for (let i = 0; i < layer.k && all; i++) all = bitAt(body, layer.at, probeNext()) === 1;
    if (all) return true;
  }
  return false;
}

/** A CuckooFilter: present when either of the key's two buckets holds its fingerprint. */
export class CuckooFilter {
  constructor(fields, body) {
    const [buckets, bits, seed, count] = fields;
    this.buckets = buckets;
    this.fingerprintBits = Number(bits);
    this.seed = Number(seed);
    this.count = count;
    checkBasics(1, this.seed, MURMUR3);
    if (this.fingerprintBits < 8 || this.fingerprintBits > 32) throw new FormatError("fingerprint bits are not 8..32");
    if (buckets < 1n || body.length !== cellBytes(4n * buckets, this.fingerprintBits)) {
      throw new FormatError("the body is not 4 cells a bucket");
    }
    this.body = body;
    this.n = Number(buckets);
    this.max = 2 ** this.fingerprintBits - 1;
  }

  has(key) {
    hashInto(key, this.seed, MURMUR3);
    const n = this.n;
    const fp = reduceNumber(H[2], H[3], this.max) + 1;
    const i1 = reduceNumber(H[0], H[1], n);
    if (this.bucketHas(i1, fp)) return true;
    fmix(0, fp);
    const h = reduceNumber(rh, rl, n);
    return this.bucketHas(h >= i1 ? h - i1 : h + n - i1, fp);
  }

  bucketHas(b, fp) {
    for (let s = 4 * b; s < 4 * b + 4; s++) if (cellAt(this.body, s, this.fingerprintBits) === fp) return true;
    return false;
  }
}

/** A BinaryFuseFilter (3-wise; 8- or 16-bit fingerprints): the xor of the key's three slots is its fingerprint. */
export class BinaryFuseFilter {
  constructor(fields, body) {
    const [bits, seed, buildSeed, length, segments, keys] = fields;
    this.fingerprintBits = Number(bits);
    this.seed = Number(seed);
    this.buildSeed = buildSeed;
    this.count = keys;
    checkBasics(1, this.seed, MURMUR3);
    if (this.fingerprintBits !== 8 && this.fingerprintBits !== 16) throw new FormatError("fingerprint bits are not 8 or 16");
    const L = Number(length);
    const count = Number(segments);
    if (L === 0 && count === 0) {
      if (body.length !== 1) throw new FormatError("the empty filter's body is one byte");
      this.empty = true;
    } else {
      if (L < 4 || L > 1 << 18 || (L & (L - 1)) !== 0) throw new FormatError(`segment length ${L} is not a power of two 4..2^18`);
      if (count < 1 || (count + 2) * L > 0xffffffff) throw new FormatError("bad segment count");
      if (body.length !== (count + 2) * L * (this.fingerprintBits / 8)) throw new FormatError("the body is not the slots");
      this.empty = false;
    }
    this.segmentLength = L;
    this.segmentCount = count;
    this.countLength = count * L;
    this.seedHigh = Number(buildSeed >> 32n);
    this.seedLow = Number(buildSeed & 0xffffffffn);
    this.body = body;
  }

  has(key) {
    if (this.empty) return false;
    hashInto(key, this.seed, MURMUR3);
    const s = H[1] + this.seedLow; // h = fmix64(h1 + build seed)
    fmix((H[0] + this.seedHigh + (s > 0xffffffff ? 1 : 0)) >>> 0, s >>> 0);
    const hh = rh;
    const hl = rl;
    const L = this.segmentLength;
    const mask = L - 1;
    const p0 = reduce32(hh, hl, this.countLength);
    const p1 = ((p0 + L) ^ (hl & mask)) >>> 0;
    const p2 = ((p0 + 2 * L) ^ (((hl >>> 18) | (hh << 14)) & mask)) >>> 0;
    const b = this.body;
    if (this.fingerprintBits === 8) return (((hl ^ hh) ^ b[p0] ^ b[p1] ^ b[p2]) & 0xff) === 0;
    const at = (p) => b[2 * p] | (b[2 * p + 1] << 8);
    return (((hl ^ hh) ^ at(p0) ^ at(p1) ^ at(p2)) & 0xffff) === 0;
  }
}

/**
 * A SlidingBloomFilter: generations of a time window, each a chain of
 * layers as a ScalableBloomFilter's. has(key, at) answers at the time at (a
 * Date, or Unix seconds; by default now, by the wall clock): a generation
 * whose life (ttl + ttl / generations from its start) has passed by then
 * answers no more, as in bloomc.
 */
export class SlidingBloomFilter {
  constructor(fields, body) {
    [this.seed, this.hash] = seedAndHash(fields[0]);
    this.errorRate = bitsDouble(fields[1]);
    this.ttl = bitsDouble(fields[2]);
    this.generations = Number(fields[3]);
    this.count = fields[5];
    const G = Number(fields[6]);
    const L = Number(fields[7]);
    if (!(this.ttl >= 0.01 && this.ttl <= 2 ** 32)) throw new FormatError("ttl is not 0.01..2^32 seconds");
    if (this.generations < 1 || this.generations > 8 || G > this.generations + 1) throw new FormatError("bad generations");
    const tail = 8 + 3 * G + 4 * L;
    const since = bitsDouble(fields[tail]);
    const wall = bitsDouble(fields[tail + 1]);
    if (!(since >= 0 && since <= 2 ** 36) || !(Math.abs(wall) <= 2 ** 36)) throw new FormatError("the save's time is out of range");
    const newestStart = wall - since; // Unix seconds
    this.life = this.ttl + this.ttl / this.generations;
    this.windows = [];
    let at = 0;
    let layer = 0;
    for (let g = 0; g < G; g++) {
      const age = bitsDouble(fields[8 + 3 * g]);
      const n = Number(fields[9 + 3 * g]);
      if (!(Math.abs(age) <= 2 ** 37) || n < 1 || layer + n > L) throw new FormatError("the generations' layers do not add up");
      const layers = [];
      for (let i = 0; i < n; i++, layer++) {
        const [m, k] = fields.slice(8 + 3 * G + 4 * layer, 10 + 3 * G + 4 * layer);
        checkBasics(Number(k), 0, this.hash);
        if (m < 1n || m > 1n << 60n) throw new FormatError(`layer ${layer}'s m is not 1..2^60`);
        layers.push({ m: Number(m), k: Number(k), at });
        at += Number((m + 63n) / 64n) * 8;
      }
      this.windows.push({ start: newestStart - age, newestFirst: layers.reverse() });
    }
    if (layer !== L) throw new FormatError("the generations' layers do not add up");
    if (body.length !== at) throw new FormatError("the body is not the layers' bits");
    this.body = body;
  }

  has(key, at = Date.now() / 1000) {
    const now = at instanceof Date ? at.getTime() / 1000 : Number(at);
    hashInto(key, this.seed, this.hash);
    for (let g = this.windows.length - 1; g >= 0; g--) {
      const window = this.windows[g];
      if (now - window.start >= this.life) break; // it and every older one have ended
      if (anyLayerHas(this.body, window.newestFirst, this.hash)) return true;
    }
    return false;
  }
}

const READERS = {
  1: BloomFilter,
  2: BlockedBloomFilter,
  3: ContinuousBloomFilter,
  4: CountingBloomFilter,
  5: SpectralBloomFilter,
  6: BitwiseBloomFilter,
  7: StableBloomFilter,
  8: A2BloomFilter,
  9: ScalableBloomFilter,
  10: CuckooFilter,
  11: BinaryFuseFilter,
  12: SlidingBloomFilter,
};

// Each kind's own parameters; kinds 1-8 and 10 may end with 3 sizing ones.
const OWN_FIELDS = { 1: 5, 2: 4, 3: 10, 4: 6, 5: 10, 6: 6, 7: 7, 8: 8, 10: 4, 11: 6 };
const SIZED = (kind) => kind <= 8 || kind === 10;

// ---- the format ------------------------------------------------------------

const utf8Strict = new TextDecoder("utf-8", { fatal: true });

// The metadata block of a version 3 file at offset at: [value, body offset].
function parseMetadata(bytes, view, at) {
  if (bytes.length < at + 8) throw new FormatError("truncated metadata block");
  const length = view.getUint32(at, true);
  if (length < 1 || length > 65536) throw new FormatError(`metadata length ${length} is not 1..65536`);
  if (bytes.length < at + 8 + length) throw new FormatError("truncated metadata");
  const text = bytes.subarray(at + 8, at + 8 + length);
  if (crc32c(text) !== view.getUint32(at + 4, true)) throw new FormatError("metadata checksum mismatch");
  let value;
  try {
    value = JSON.parse(utf8Strict.decode(text));
  } catch (e) {
    throw new FormatError(`the metadata is not UTF-8 JSON (${e.message})`);
  }
  if (!(typeof value === "string" || (value !== null && typeof value === "object" && !Array.isArray(value)))) {
    throw new FormatError("the metadata is neither a JSON string nor an object");
  }
  return [value, Math.ceil((at + 8 + length) / ALIGN) * ALIGN];
}

/**
 * The parts of a saved filter, checked as bloomc checks them: magic, version,
 * kind, flags, lengths, the checksums (header, metadata, body) and the
 * padding. The body is as stored (deflated when flags & 1).
 */
export function parse(bytes) {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("a saved filter is a Uint8Array");
  if (bytes.length < 16 || MAGIC.some((b, i) => bytes[i] !== b)) throw new FormatError("not a bloomc filter (bad magic)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(8, true);
  const kind = view.getUint16(10, true);
  const flags = view.getUint16(12, true);
  const n = view.getUint16(14, true);
  if (version < 1 || version > 3) throw new FormatError(`format version ${version} is not one this reader reads (1 to 3)`);
  if (!KINDS[kind]) throw new FormatError(`unknown filter kind ${kind}`);
  if (flags & ~(FLAG_DEFLATE | FLAG_OPEN | FLAG_METADATA)) throw new FormatError(`unknown flags ${flags}`);
  if (flags & FLAG_METADATA && version < 3) throw new FormatError("only a version 3 file carries metadata");
  const at = 16 + 8 * n;
  if (bytes.length < at + 24) throw new FormatError("truncated header");
  if (crc32c(bytes.subarray(0, at + 20)) !== view.getUint32(at + 20, true)) throw new FormatError("header checksum mismatch");
  const fields = [];
  for (let i = 0; i < n; i++) fields.push(view.getBigUint64(16 + 8 * i, true));
  checkFieldCount(version, kind, fields);
  let metadata = null;
  let bodyAt = Math.ceil((at + 24) / ALIGN) * ALIGN;
  let padFrom = at + 24;
  if (flags & FLAG_METADATA) {
    [metadata, bodyAt] = parseMetadata(bytes, view, at + 24);
    padFrom = at + 32 + view.getUint32(at + 24, true);
  }
  if (bytes.length < bodyAt) throw new FormatError("truncated header");
  for (let i = padFrom; i < bodyAt; i++) if (bytes[i] !== 0) throw new FormatError("padding is not zero");
  const stored = view.getBigUint64(at, true);
  const raw = view.getBigUint64(at + 8, true);
  if (BigInt(bytes.length) !== BigInt(bodyAt) + stored) throw new FormatError("truncated or padded");
  const body = bytes.subarray(bodyAt);
  if (!(flags & FLAG_OPEN) && crc32c(body) !== view.getUint32(at + 16, true)) {
    throw new FormatError("body checksum mismatch: the data is corrupted");
  }
  if (flags & FLAG_DEFLATE ? raw > stored * BigInt(MAX_RATIO) : raw !== stored) throw new FormatError("bad body length");
  const own = kind === 9 || kind === 12 ? fields.length : OWN_FIELDS[kind];
  let sizing = null;
  if (fields.length === own + 3 && SIZED(kind)) {
    const [capacity, errorRate, keysNew] = fields.slice(own);
    if (capacity !== 0n || errorRate !== 0n) {
      sizing = { capacity: bitsDouble(capacity), errorRate: bitsDouble(errorRate), keysNew };
    }
  }
  return {
    version, kind, kindName: KINDS[kind], flags, fields: fields.slice(0, own), sizing, metadata, body,
    rawLength: Number(raw),
  };
}

function checkFieldCount(version, kind, fields) {
  const n = fields.length;
  let ok;
  if (kind === 9) ok = version >= 2 && n >= 13 && n === 9 + 4 * Number(fields[8]) && fields[8] <= 64n;
  else if (kind === 11) ok = n === OWN_FIELDS[kind];
  else if (kind === 12) {
    ok = n >= 10 && fields[6] <= 9n && fields[7] <= 64n && n === 10 + 3 * Number(fields[6]) + 4 * Number(fields[7]);
  }
  else if (version === 1) ok = n === OWN_FIELDS[kind];
  else if (version === 2) ok = n === OWN_FIELDS[kind] || n === OWN_FIELDS[kind] + 3;
  else ok = n === OWN_FIELDS[kind] + 3;
  if (!ok) throw new FormatError(`a version ${version} ${KINDS[kind]} does not have ${n} parameters`);
}

// The deflated body inflated, as a stream: it stops with FormatError as
// soon as the output passes rawLength, the length the header declares, so a
// small file that inflates to far more (a zip bomb) costs about rawLength,
// not its whole output. DecompressionStream is the one inflater that both
// browsers and Node (18+) have. Node's waits for each chunk of output to be
// read; a browser's may inflate a whole write before it is read, so the
// input goes in pieces of 16 KiB (64 KiB for bodies over 64 MiB), one at a
// time: zlib inflates a byte to at most 1,032, so one piece gives at most
// 16.5 MiB (or about rawLength) past the declared length.
async function inflate(body, rawLength) {
  const piece = Math.min(65536, Math.max(16384, Math.ceil(rawLength / 1024)));
  const stream = new DecompressionStream("deflate");
  const writer = stream.writable.getWriter();
  const reader = stream.readable.getReader();
  const feeding = (async () => {
    for (let at = 0; at < body.length; at += piece) await writer.write(body.subarray(at, at + piece));
    await writer.close();
  })();
  feeding.catch(() => {}); // its failure is the reader's too, reported below
  const chunks = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > rawLength) throw new FormatError(`the deflated body holds more than the ${rawLength} bytes the header says`);
      chunks.push(value);
    }
    await feeding;
  } catch (e) {
    reader.cancel().catch(() => {});
    writer.abort().catch(() => {});
    if (e instanceof FormatError) throw e;
    throw new FormatError(`the deflated body does not inflate (${e?.message ?? e})`);
  }
  if (total !== rawLength) throw new FormatError("inflated body has the wrong length");
  return concat(chunks, total);
}

/**
 * The filter saved in bytes (a Uint8Array), ready for has(key). It also
 * carries kindName, version, metadata (the parsed JSON value, or null) and
 * sizing ({capacity, errorRate, keysNew}, or null).
 */
export async function load(bytes) {
  const parts = parse(bytes);
  const Reader = READERS[parts.kind];
  if (!Reader) throw new FormatError(`${parts.kindName} (kind ${parts.kind}) is not read by this reader`);
  const body = parts.flags & FLAG_DEFLATE ? await inflate(parts.body, parts.rawLength) : parts.body;
  const filter = new Reader(parts.fields, body);
  filter.kindName = parts.kindName;
  filter.version = parts.version;
  filter.metadata = parts.metadata;
  filter.sizing = parts.sizing;
  return filter;
}

// ---- over HTTP -------------------------------------------------------------

export const MEDIA_TYPE = "application/vnd.bloomc";

/** A response that was neither a filter nor a 304; `status` is its HTTP status (0: no response). */
export class FetchError extends Error {
  constructor(message, status = 0) {
    super(message);
    this.name = "FetchError";
    this.status = status;
  }
}

/** fetchFilter's cap on a response body when not given maxBytes: 1 GiB. */
export const DEFAULT_MAX_BYTES = 2 ** 30;

/**
 * Fetches a saved filter and checks it (load: magic, checksums, kind).
 * With `previous` (an earlier result), asks with If-None-Match and
 * If-Modified-Since, and on 304 returns previous again with changed false.
 * Resolves to {filter, etag, lastModified, status, changed}; rejects with
 * FetchError (a status other than 200 or 304, no response, a body that
 * breaks off, or one longer than maxBytes) or FormatError (the bytes are no
 * good filter, or run past the length their header declares). The body is
 * read as a stream and the reading stops at the first of these it can tell.
 * Uses the global fetch (browsers, Node 18+) unless given one.
 */
export async function fetchFilter(url, {
  previous = null, fetch: fetchImpl = globalThis.fetch, headers = {}, signal, maxBytes = DEFAULT_MAX_BYTES,
} = {}) {
  const ask = { Accept: MEDIA_TYPE, ...headers };
  if (previous?.etag) ask["If-None-Match"] = previous.etag;
  if (previous?.lastModified) ask["If-Modified-Since"] = previous.lastModified;
  let response;
  try {
    response = await fetchImpl(url, { headers: ask, signal });
  } catch (e) {
    throw new FetchError(`${url}: ${e.message}`);
  }
  if (response.status === 304 && previous) return { ...previous, status: 304, changed: false };
  if (response.status !== 200) throw new FetchError(`${url}: HTTP ${response.status}`, response.status);
  const filter = await load(await readBody(url, response, maxBytes));
  return {
    filter,
    etag: response.headers.get("ETag"),
    lastModified: response.headers.get("Last-Modified"),
    status: 200,
    changed: true,
  };
}

// The file's own length, B + L, from its first bytes (head): null while
// they do not yet tell it. Bad magic is a FormatError at once; the rest of
// the header is load's to check.
function declaredLength(head) {
  if (head.length < 8) return null;
  if (MAGIC.some((b, i) => head[i] !== b)) throw new FormatError("not a bloomc filter (bad magic)");
  if (head.length < 16) return null;
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const at = 16 + 8 * view.getUint16(14, true);
  if (head.length < at + 28) return null;
  let bodyAt = Math.ceil((at + 24) / ALIGN) * ALIGN;
  if (view.getUint16(12, true) & FLAG_METADATA) bodyAt = Math.ceil((at + 32 + view.getUint32(at + 24, true)) / ALIGN) * ALIGN;
  return bodyAt + Number(view.getBigUint64(at, true));
}

function concat(chunks, total) {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

// A 200 response's body, read as a stream: a FetchError past maxBytes (or
// when Content-Length already says so), a FormatError on bad magic or past
// the length the file's header declares; either cancels the reading.
async function readBody(url, response, maxBytes) {
  const tooLong = () => new FetchError(`${url}: the body is longer than maxBytes (${maxBytes})`, 200);
  const announced = Number(response.headers.get("Content-Length") ?? NaN);
  if (announced > maxBytes) {
    response.body?.cancel().catch(() => {});
    throw tooLong();
  }
  if (!response.body) { // a fetch of its own may give a response without a stream
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length > maxBytes) throw tooLong();
    return bytes;
  }
  const reader = response.body.getReader();
  const chunks = [];
  let total = 0;
  let declared = null;
  try {
    for (;;) {
      let part;
      try {
        part = await reader.read();
      } catch (e) {
        throw new FetchError(`${url}: the body broke off (${e.message})`, 200);
      }
      if (part.done) break;
      const chunk = part.value instanceof Uint8Array ? part.value : new Uint8Array(part.value);
      chunks.push(chunk);
      total += chunk.length;
      if (total > maxBytes) throw tooLong();
      if (declared === null) {
        const head = concat(chunks, total); // kept as one chunk: the header is at most 512 KiB
        chunks.length = 0;
        chunks.push(head);
        declared = declaredLength(head);
        if (declared !== null && declared > maxBytes) throw tooLong();
      }
      if (declared !== null && total > declared) {
        throw new FormatError(`the body runs past the ${declared} bytes its header declares`);
      }
    }
  } catch (e) {
    reader.cancel().catch(() => {});
    throw e;
  }
  return concat(chunks, total);
}

/**
 * A filter at a URL, kept fresh by conditional GETs: `refresh()` (or
 * `start(ms)` for one every ms) revalidates with the ETag and
 * Last-Modified; a 304 keeps the filter, a 200 replaces it only once the new
 * bytes have been checked. When a refresh fails (a server error, no
 * network, bad bytes) the last good filter stays and the failure is in
 * `error`; `checkedAt` is when the server last answered well.
 */
export class RemoteFilter {
  constructor(url, options = {}) {
    this.url = url;
    this.options = options;
    this.current = null;
    this.error = null;
    this.checkedAt = null;
    this.timer = null;
  }

  /** The last good filter, or null before the first good fetch. */
  get filter() {
    return this.current?.filter ?? null;
  }

  get etag() {
    return this.current?.etag ?? null;
  }

  /** Milliseconds since the server last answered well (Infinity before that). */
  get staleness() {
    return this.checkedAt === null ? Infinity : Date.now() - this.checkedAt.getTime();
  }

  /** Revalidates; resolves to whether the filter changed, rejects (keeping the last good one) on failure. */
  async refresh() {
    try {
      this.current = await fetchFilter(this.url, { ...this.options, previous: this.current });
      this.error = null;
      this.checkedAt = new Date();
      return this.current.changed;
    } catch (e) {
      this.error = e;
      throw e;
    }
  }

  /** has(key) of the last good filter; throws before there is one. */
  has(key) {
    if (!this.current) throw new FetchError(`${this.url}: not fetched yet${this.error ? ` (${this.error.message})` : ""}`);
    return this.current.filter.has(key);
  }

  /** Refreshes every ms milliseconds (failures land in `error`) until stop(). */
  start(ms) {
    this.stop();
    this.timer = setInterval(() => this.refresh().catch(() => {}), ms);
    this.timer.unref?.(); // Node: do not keep the process alive for it
    return this;
  }

  stop() {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
