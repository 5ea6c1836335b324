// A reader of bloomc's binary format (docs/FORMAT.md) for browsers and Node:
// parses a saved filter, checks its CRC32C checksums, and answers `has(key)`
// exactly as the C core does. No dependencies.
//
// Keys: a string is hashed by its UTF-8 bytes, a Uint8Array by its bytes,
// and a bigint or a safe-integer number as Ruby's Integer keys are.

const MASK64 = (1n << 64n) - 1n;
const MAGIC = [0x89, 0x42, 0x4c, 0x4f, 0x4f, 0x4d, 0x43, 0x0a];
const ALIGN = 64;
const MAX_RATIO = 1040;
const FLAG_DEFLATE = 1;
const FLAG_OPEN = 2;

export const KINDS = Object.freeze({
  1: "BloomFilter", 2: "BlockedBloomFilter", 3: "ContinuousBloomFilter", 4: "CountingBloomFilter",
  5: "SpectralBloomFilter", 6: "BitwiseBloomFilter", 7: "StableBloomFilter", 8: "A2BloomFilter",
  9: "ScalableBloomFilter", 10: "CuckooFilter", 11: "BinaryFuseFilter",
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

/** The key's hash [h1, h2] for a filter's seed and hash function (0: MurmurHash3, 1: FNV-1a). */
export function keyHash(key, seed, hash) {
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

// floor(x * m / 2^64), in [0, m).
const reduce = (x, m) => (x * m) >> 64n;

// ---- the same in 32-bit halves, for lookups --------------------------------
// BigInt is exact but slow; a lookup hashes and probes with 64-bit values
// kept as [high, low] pairs of uint32, multiplied 16 bits at a time, so
// every step is exact in a double. The results land in these variables.

let rh = 0; // a 64-bit result: high and low halves
let rl = 0;

// The 64-bit product of two uint32 values, into rh:rl.
function mulWide(a, b) {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  rl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  rh = (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16)) >>> 0;
}

// (ah:al * bh:bl) mod 2^64, into rh:rl.
function mul64(ah, al, bh, bl) {
  mulWide(al, bl);
  rh = (rh + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

// floor(xh:xl * m / 2^64) for m < 2^53, as a number.
function reduceNumber(xh, xl, m) {
  const mh = Math.floor(m / 4294967296);
  const ml = m >>> 0;
  mulWide(xl, ml);
  const t = rh;
  mulWide(xh, ml); // u = xh * ml + t
  let ul = rl + t;
  let uh = rh + (ul > 0xffffffff ? 1 : 0);
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

// Rotations of ah:al left by r (0 < r < 32 or 32 < r < 64), into rh:rl.
function rotl(ah, al, r) {
  if (r >= 32) {
    const t = ah;
    ah = al;
    al = t;
    r -= 32;
  }
  rh = ((ah << r) | (al >>> (32 - r))) >>> 0;
  rl = ((al << r) | (ah >>> (32 - r))) >>> 0;
}

// MurmurHash3's 64-bit finalizer of ah:al, into rh:rl.
function fmix(ah, al) {
  al = (al ^ ah >>> 1) >>> 0; // k ^= k >> 33
  mul64(ah, al, 0xff51afd7, 0xed558ccd);
  ah = rh;
  al = (rl ^ (ah >>> 1)) >>> 0;
  mul64(ah, al, 0xc4ceb9fe, 0x1a85ec53);
  rl = (rl ^ (rh >>> 1)) >>> 0;
}

// The key hash as four uint32: h1 = H[0]:H[1], h2 = H[2]:H[3].
const H = new Uint32Array(4);

// MurmurHash3 x64_128 of the first n bytes of b into H (the same as
// murmur3x64_128).
function murmurFast(b, n, seed) {
  let h1h = 0;
  let h1l = seed >>> 0;
  let h2h = 0;
  let h2l = seed >>> 0;
  const blocks = n >>> 4;
  for (let i = 0; i < blocks; i++) {
    const at = 16 * i;
    mul64(word(b, at + 4), word(b, at), 0x87c37b91, 0x114253d5);
    rotl(rh, rl, 31);
    mul64(rh, rl, 0x4cf5ad43, 0x2745937f);
    h1h = (h1h ^ rh) >>> 0;
    h1l = (h1l ^ rl) >>> 0;
    rotl(h1h, h1l, 27);
    let l = rl + h2l;
    let h = rh + h2h + (l > 0xffffffff ? 1 : 0);
    mul64(h >>> 0, l >>> 0, 0, 5);
    l = rl + 0x52dce729;
    h1h = (rh + (l > 0xffffffff ? 1 : 0)) >>> 0;
    h1l = l >>> 0;
    mul64(word(b, at + 12), word(b, at + 8), 0x4cf5ad43, 0x2745937f);
    rotl(rh, rl, 33);
    mul64(rh, rl, 0x87c37b91, 0x114253d5);
    h2h = (h2h ^ rh) >>> 0;
    h2l = (h2l ^ rl) >>> 0;
    rotl(h2h, h2l, 31);
    l = rl + h1l;
    h = rh + h1h + (l > 0xffffffff ? 1 : 0);
    mul64(h >>> 0, l >>> 0, 0, 5);
    l = rl + 0x38495ab5;
    h2h = (rh + (l > 0xffffffff ? 1 : 0)) >>> 0;
    h2l = l >>> 0;
  }
  const tail = 16 * blocks;
  const rest = n - tail;
  if (rest > 8) {
    let kh = 0;
    let kl = 0;
    for (let i = rest - 1; i >= 8; i--) {
      if (i >= 12) kh = ((kh << 8) | b[tail + i]) >>> 0;
      else kl = ((kl << 8) | b[tail + i]) >>> 0;
    }
    mul64(kh, kl, 0x4cf5ad43, 0x2745937f);
    rotl(rh, rl, 33);
    mul64(rh, rl, 0x87c37b91, 0x114253d5);
    h2h = (h2h ^ rh) >>> 0;
    h2l = (h2l ^ rl) >>> 0;
  }
  if (rest > 0) {
    let kh = 0;
    let kl = 0;
    for (let i = Math.min(rest, 8) - 1; i >= 0; i--) {
      if (i >= 4) kh = ((kh << 8) | b[tail + i]) >>> 0;
      else kl = ((kl << 8) | b[tail + i]) >>> 0;
    }
    mul64(kh, kl, 0x87c37b91, 0x114253d5);
    rotl(rh, rl, 31);
    mul64(rh, rl, 0x4cf5ad43, 0x2745937f);
    h1h = (h1h ^ rh) >>> 0;
    h1l = (h1l ^ rl) >>> 0;
  }
  h1l = (h1l ^ n) >>> 0; // lengths below 2^32
  h2l = (h2l ^ n) >>> 0;
  let l = h1l + h2l;
  h1h = (h1h + h2h + (l > 0xffffffff ? 1 : 0)) >>> 0;
  h1l = l >>> 0;
  l = h2l + h1l;
  h2h = (h2h + h1h + (l > 0xffffffff ? 1 : 0)) >>> 0;
  h2l = l >>> 0;
  fmix(h1h, h1l);
  h1h = rh;
  h1l = rl;
  fmix(h2h, h2l);
  h2h = rh;
  h2l = rl;
  l = h1l + h2l;
  h1h = (h1h + h2h + (l > 0xffffffff ? 1 : 0)) >>> 0;
  h1l = l >>> 0;
  l = h2l + h1l;
  h2h = (h2h + h1h + (l > 0xffffffff ? 1 : 0)) >>> 0;
  h2l = l >>> 0;
  H[0] = h1h;
  H[1] = h1l;
  H[2] = h2h;
  H[3] = h2l;
}

// A reused buffer for a string key's UTF-8 bytes (no allocation a lookup).
let keyBuffer = new Uint8Array(256);

// A key's hash into H (the same as keyHash).
function hashInto(key, seed, hash) {
  if (hash === MURMUR3 && typeof key === "string") {
    if (keyBuffer.length < 3 * key.length) keyBuffer = new Uint8Array(3 * key.length);
    const { written } = utf8.encodeInto(key, keyBuffer);
    return murmurFast(keyBuffer, written, seed);
  }
  if (hash === MURMUR3 && key instanceof Uint8Array) return murmurFast(key, key.length, seed);
  const [a, b] = keyHash(key, seed, hash);
  H[0] = Number(a >> 32n);
  H[1] = Number(a & 0xffffffffn);
  H[2] = Number(b >> 32n);
  H[3] = Number(b & 0xffffffffn);
}

// ---- the filters -----------------------------------------------------------

function bitSet(body, i) {
  return (body[Number(i >> 3n)] >> Number(i & 7n)) & 1;
}

/** A BloomFilter: m bits, k probes by enhanced double hashing (or bloombroom's FNV-1a layout). */
export class BloomFilter {
  constructor(fields, body) {
    [this.m, this.k, this.seed, this.hash, this.count] = fields;
    this.k = Number(this.k);
    this.seed = Number(this.seed);
    this.hash = Number(this.hash);
    if (body.length !== Number((this.m + 63n) / 64n) * 8) throw new FormatError("the body is not m bits");
    this.body = body;
    this.mNumber = this.m < 1n << 53n ? Number(this.m) : undefined;
  }

  has(key) {
    if (this.mNumber === undefined) return this.hasExact(key);
    hashInto(key, this.seed, this.hash);
    const m = this.mNumber;
    const body = this.body;
    if (this.hash === FNV1A) {
      // h1 and h2 are below 2^32, so h1 + h2 * (i + 1) is exact in a double
      for (let i = 0; i < this.k; i++) {
        const pos = (H[1] + H[3] * (i + 1)) % m;
        if (!((body[Math.floor(pos / 8)] >> (pos % 8)) & 1)) return false;
      }
      return true;
    }
    let xh = H[0];
    let xl = H[1];
    let yh = H[2];
    let yl = H[3];
    for (let i = 0; i < this.k; i++) {
      const pos = reduceNumber(xh, xl, m);
      if (!((body[Math.floor(pos / 8)] >> (pos % 8)) & 1)) return false;
      let l = xl + yl; // x += y
      xh = (xh + yh + (l > 0xffffffff ? 1 : 0)) >>> 0;
      xl = l >>> 0;
      l = yl + i + 1; // y += i + 1
      yh = (yh + (l > 0xffffffff ? 1 : 0)) >>> 0;
      yl = l >>> 0;
    }
    return true;
  }

  // The BigInt path, for m of 2^53 bits or more.
  hasExact(key) {
    const [h1, h2] = keyHash(key, this.seed, this.hash);
    let x = h1;
    let y = h2;
    for (let i = 0; i < this.k; i++) {
      let pos;
      if (this.hash === FNV1A) pos = ((h1 + h2 * BigInt(i + 1)) & MASK64) % this.m;
      else {
        pos = reduce(x, this.m);
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
    if (body.length !== Number(this.blocks) * 64) throw new FormatError("the body is not whole blocks");
    this.body = body;
    this.blocksNumber = Number(this.blocks); // whole 64-byte blocks in memory: far below 2^53
  }

  has(key) {
    hashInto(key, this.seed, MURMUR3);
    const block = reduceNumber(H[0], H[1], this.blocksNumber) * 64;
    const first = H[2] >>> 29;
    let wh = H[2];
    let wl = H[3];
    const body = this.body;
    for (let i = 0; i < this.k; i++) {
      if (i >= 10 && i % 10 === 0) {
        // remix: w ^= w >> 32; w *= golden ratio; w ^= w >> 29
        mul64(wh, (wl ^ wh) >>> 0, 0x9e3779b9, 0x7f4a7c15);
        wh = rh;
        wl = (rl ^ ((rl >>> 29) | (rh << 3))) >>> 0;
        wh = (wh ^ (wh >>> 29)) >>> 0;
      }
      const shift = 6 * (i % 10);
      const bit = (shift < 32 ? (wl >>> shift) | (shift > 26 ? wh << (32 - shift) : 0) : wh >>> (shift - 32)) & 63;
      const lane = block + 8 * ((i + first) % 8);
      if (!((body[lane + (bit >> 3)] >> (bit & 7)) & 1)) return false;
    }
    return true;
  }
}

const READERS = { 1: BloomFilter, 2: BlockedBloomFilter };

// ---- the format ------------------------------------------------------------

/**
 * The parts of a saved filter, checked as bloomc checks them: magic, version,
 * kind, flags, lengths, both checksums and the padding. The body is as stored
 * (deflated when flags & 1).
 */
export function parse(bytes) {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("a saved filter is a Uint8Array");
  if (bytes.length < 16 || MAGIC.some((b, i) => bytes[i] !== b)) throw new FormatError("not a bloomc filter (bad magic)");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint16(8, true);
  const kind = view.getUint16(10, true);
  const flags = view.getUint16(12, true);
  const n = view.getUint16(14, true);
  if (version < 1 || version > 2) throw new FormatError(`format version ${version} is not one this reader reads`);
  if (!KINDS[kind]) throw new FormatError(`unknown filter kind ${kind}`);
  if (flags & ~(FLAG_DEFLATE | FLAG_OPEN)) throw new FormatError(`unknown flags ${flags}`);
  const at = 16 + 8 * n;
  const bodyAt = Math.ceil((at + 24) / ALIGN) * ALIGN;
  if (bytes.length < bodyAt) throw new FormatError("truncated header");
  if (crc32c(bytes.subarray(0, at + 20)) !== view.getUint32(at + 20, true)) throw new FormatError("header checksum mismatch");
  for (let i = at + 24; i < bodyAt; i++) if (bytes[i] !== 0) throw new FormatError("padding is not zero");
  const fields = [];
  for (let i = 0; i < n; i++) fields.push(view.getBigUint64(16 + 8 * i, true));
  const stored = view.getBigUint64(at, true);
  const raw = view.getBigUint64(at + 8, true);
  if (BigInt(bytes.length) !== BigInt(bodyAt) + stored) throw new FormatError("truncated or padded");
  const body = bytes.subarray(bodyAt);
  if (!(flags & FLAG_OPEN) && crc32c(body) !== view.getUint32(at + 16, true)) {
    throw new FormatError("body checksum mismatch: the data is corrupted");
  }
  if (flags & FLAG_DEFLATE ? raw > stored * BigInt(MAX_RATIO) : raw !== stored) throw new FormatError("bad body length");
  return { version, kind, kindName: KINDS[kind], flags, fields, body, rawLength: Number(raw) };
}

async function inflate(body, rawLength) {
  const stream = new Blob([body]).stream().pipeThrough(new DecompressionStream("deflate"));
  const out = new Uint8Array(await new Response(stream).arrayBuffer());
  if (out.length !== rawLength) throw new FormatError("inflated body has the wrong length");
  return out;
}

/** The filter saved in bytes (a Uint8Array), ready for has(key). */
export async function load(bytes) {
  const parts = parse(bytes);
  const Reader = READERS[parts.kind];
  if (!Reader) throw new FormatError(`this reader does not read ${parts.kindName} yet`);
  const body = parts.flags & FLAG_DEFLATE ? await inflate(parts.body, parts.rawLength) : parts.body;
  return new Reader(parts.fields, body);
}
