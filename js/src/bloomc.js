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
  }

  has(key) {
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

// The blocked filter's next hash word (ext/bloomc/bf_blocked.c).
function remix(w) {
  w ^= w >> 32n;
  w = (w * 0x9e3779b97f4a7c15n) & MASK64;
  return w ^ (w >> 29n);
}

/** A BlockedBloomFilter: every key's k bits in one 64-byte block. */
export class BlockedBloomFilter {
  constructor(fields, body) {
    [this.blocks, this.k, this.seed, this.count] = fields;
    this.k = Number(this.k);
    this.seed = Number(this.seed);
    if (body.length !== Number(this.blocks) * 64) throw new FormatError("the body is not whole blocks");
    this.body = body;
  }

  has(key) {
    const [h1, h2] = keyHash(key, this.seed, MURMUR3);
    const block = Number(reduce(h1, this.blocks)) * 64;
    const first = Number(h2 >> 61n);
    let w = h2;
    for (let i = 0; i < this.k; i++) {
      if (i >= 10 && i % 10 === 0) w = remix(w);
      const lane = block + 8 * ((i + first) % 8);
      const bit = Number((w >> BigInt(6 * (i % 10))) & 63n);
      if (!((this.body[lane + (bit >> 3)] >> (bit & 7)) & 1)) return false;
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
