/**
 * A key: a string (hashed by its UTF-8 bytes, as Ruby hashes a UTF-8 String),
 * a Uint8Array (its bytes, as a binary String), or a bigint or safe-integer
 * number (as Ruby hashes an Integer key).
 */
export type Key = string | Uint8Array | bigint | number;

/**
 * A filter's hash (the `hash` parameter of kinds 1 and 3; the other kinds
 * use 0): 0 MurmurHash3 (`hash: :murmur3`), 1 FNV-1a (bloombroom's layout),
 * 2 MurmurHash3 with each probe value through fmix64 before it picks a cell
 * (`hash: :murmur3_mixed`).
 */
export type Hash = 0 | 1 | 2;

/** Kind numbers of the format and their Ruby class names. */
export const KINDS: Readonly<Record<number, string>>;

/** The media type bloomc's Rack application serves the binary format under. */
export const MEDIA_TYPE: "application/vnd.bloomc";

/**
 * A damaged, foreign or unsupported file; from fetchFilter also a body that
 * runs past the length its own header declares, or a deflated body that
 * inflates past the length its header declares.
 */
export class FormatError extends Error {}

/**
 * A response that was neither a filter nor a 304 (status 0 when there was no
 * response at all), or a 200 whose body broke off or is longer than
 * maxBytes (status 200).
 */
export class FetchError extends Error {
  status: number;
}

/** fetchFilter's cap on a response body when not given maxBytes: 2^30 bytes (1 GiB). */
export const DEFAULT_MAX_BYTES: number;

/** A metadata document: a JSON string or object (version 3 files). */
export type Metadata = string | { [key: string]: unknown };

/** A filter built from capacity: and error_rate: (versions 2 and 3). */
export interface Sizing {
  capacity: number;
  errorRate: number;
  /** The keys new to the filter when it was saved (what over_capacity? compares). */
  keysNew: bigint;
}

export interface Filter {
  /** True for every key added; false for a key never added, but at the filter's false-positive rate. */
  has(key: Key): boolean;
  /** The Ruby class name, "BloomFilter" etc. */
  kindName: string;
  /** The format version of the file it came from: 1, 2 or 3. */
  version: number;
  /** The filter's metadata (version 3), or null. */
  metadata: Metadata | null;
  /** capacity and error rate it was sized for, or null. */
  sizing: Sizing | null;
}

export interface Parts {
  version: number;
  kind: number;
  kindName: string;
  flags: number;
  /** The kind's own parameters (the sizing ones are in `sizing`). */
  fields: bigint[];
  sizing: Sizing | null;
  metadata: Metadata | null;
  /** The body as stored: deflated when flags & 1. */
  body: Uint8Array;
  rawLength: number;
}

export function crc32c(bytes: Uint8Array, crc?: number): number;
/** MurmurHash3 x64_128 in BigInt arithmetic: [h1, h2]. */
export function murmur3x64_128(bytes: Uint8Array, seed: number): [bigint, bigint];
export function fnv1a64(bytes: Uint8Array): bigint;
/** A key's [h1, h2] as the lookups compute it (0 and 2: MurmurHash3 with seed, 1: FNV-1a). */
export function keyHash(key: Key, seed: number, hash: Hash): [bigint, bigint];
/** The same from the BigInt reference implementations. */
export function keyHashReference(key: Key, seed: number, hash: Hash): [bigint, bigint];
/** A key's k probe positions in [0, m) as the lookups compute them (m below 2^53). */
export function probes(key: Key, seed: number, hash: Hash, k: number, m: number): number[];
/** The same in BigInt arithmetic, as ext/bloomc/bf_probe.h gives them. */
export function probesReference(key: Key, seed: number, hash: Hash, k: number, m: bigint): bigint[];
/** Whether lookups hash in WebAssembly (the default where allowed); false forces JavaScript. */
export function useWebAssembly(on?: boolean): boolean;
/** Checks a saved filter (magic, version, kind, flags, checksums, padding) and splits it up. */
export function parse(bytes: Uint8Array): Parts;
/** The filter saved in bytes, checked and inflated. */
export function load(bytes: Uint8Array): Promise<AnyFilter>;

export interface FetchResult {
  filter: AnyFilter;
  etag: string | null;
  lastModified: string | null;
  /** 200, or 304 when previous was still current. */
  status: 200 | 304;
  changed: boolean;
}

export interface FetchOptions {
  /** An earlier result: asks with If-None-Match / If-Modified-Since, and a 304 returns it again. */
  previous?: FetchResult | null;
  /** Defaults to the global fetch. */
  fetch?: typeof globalThis.fetch;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * The most bytes a response body may have (default DEFAULT_MAX_BYTES, 1 GiB).
   * The body is read as a stream: past this, or once a Content-Length or the
   * file's own header (B + L) says it will pass it, the reading is cancelled
   * and fetchFilter rejects with FetchError (status 200).
   */
  maxBytes?: number;
}

/**
 * GETs a saved filter and checks it before resolving. Rejects with FetchError
 * (a status other than 200/304, no response, a body that breaks off or
 * passes maxBytes) or FormatError (bad magic as soon as the first bytes are
 * in, a body past its header's B + L, or anything load refuses).
 */
export function fetchFilter(url: string | URL, options?: FetchOptions): Promise<FetchResult>;

/** A filter at a URL, kept fresh by conditional GETs; a failed refresh keeps the last good filter. */
export class RemoteFilter {
  constructor(url: string | URL, options?: Omit<FetchOptions, "previous">);
  readonly url: string | URL;
  /** The last good filter, or null before the first good fetch. */
  readonly filter: AnyFilter | null;
  readonly etag: string | null;
  /** The last refresh's failure, or null after a good one. */
  error: Error | null;
  /** When the server last answered 200 or 304. */
  checkedAt: Date | null;
  /** Milliseconds since then (Infinity before the first). */
  readonly staleness: number;
  /** Resolves to whether the filter changed; rejects on failure, keeping the last good filter. */
  refresh(): Promise<boolean>;
  /** has(key) of the last good filter; throws FetchError before there is one. */
  has(key: Key): boolean;
  /** Refreshes every ms milliseconds until stop(). */
  start(ms: number): this;
  stop(): void;
}

export class BloomFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  m: bigint;
  k: number;
  seed: number;
  /** 0: MurmurHash3, 1: FNV-1a (bloombroom's layout), 2: MurmurHash3 with mixed probes. */
  hash: Hash;
  count: bigint;
}
export class BlockedBloomFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  blocks: bigint;
  k: number;
  seed: number;
  count: bigint;
}
/** Answered by its saved clock: a bucket counts when it holds one of the three live slots. */
export class ContinuousBloomFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  m: bigint;
  k: number;
  seed: number;
  hash: Hash;
  slot: number;
  ticks: bigint;
  /** Seconds. */
  ttl: number;
}
export class CountingBloomFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  m: bigint;
  k: number;
  width: number;
  seed: number;
  /** 0: MurmurHash3 (filters made before mixed probes), 2: mixed probes; from the seed parameter's high bits. */
  hash: Hash;
  count: bigint;
}
/** Present when each of its k primary cells is non-zero. */
export class SpectralBloomFilter extends CountingBloomFilter {
  algorithm: "mi" | "rm";
}
/** Present when each of its k cells of level 0 is non-zero. */
export class BitwiseBloomFilter extends CountingBloomFilter {
  levels: number;
}
/** Present when each of its k cells is non-zero. */
export class StableBloomFilter extends CountingBloomFilter {
  d: bigint;
}
/** Present when either half holds all of its k bits. */
export class A2BloomFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  k: number;
  seed: number;
  /** 0 or 2, as CountingBloomFilter's. */
  hash: Hash;
  capacity: bigint;
  /** The half that takes adds: 0 or 1. */
  active: number;
  count: bigint;
}
export class ScalableBloomFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  seed: number;
  /** 0 or 2, as CountingBloomFilter's (2: layers also sized by their expected rate). */
  hash: Hash;
  errorRate: number;
  count: bigint;
  layers: { m: number; k: number; capacity: bigint; count: bigint; at: number }[];
}
export class CuckooFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  buckets: bigint;
  fingerprintBits: number;
  seed: number;
  count: bigint;
}
export class BinaryFuseFilter implements Filter {
  has(key: Key): boolean;
  kindName: string;
  version: number;
  metadata: Metadata | null;
  sizing: Sizing | null;
  fingerprintBits: 8 | 16;
  seed: number;
  buildSeed: bigint;
  /** Distinct key hashes it was built from. */
  count: bigint;
}

export type AnyFilter =
  | BloomFilter
  | BlockedBloomFilter
  | ContinuousBloomFilter
  | CountingBloomFilter
  | SpectralBloomFilter
  | BitwiseBloomFilter
  | StableBloomFilter
  | A2BloomFilter
  | ScalableBloomFilter
  | CuckooFilter
  | BinaryFuseFilter;
