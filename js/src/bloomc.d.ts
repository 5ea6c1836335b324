export type Key = string | Uint8Array | bigint | number;

export const KINDS: Readonly<Record<number, string>>;

export class FormatError extends Error {}

export interface Filter {
  /** True for every key added; false for a key never added, but at the filter's false-positive rate. */
  has(key: Key): boolean;
}

export interface Parts {
  version: number;
  kind: number;
  kindName: string;
  flags: number;
  fields: bigint[];
  body: Uint8Array;
  rawLength: number;
}

export function crc32c(bytes: Uint8Array, crc?: number): number;
export function murmur3x64_128(bytes: Uint8Array, seed: number): [bigint, bigint];
export function fnv1a64(bytes: Uint8Array): bigint;
export function keyHash(key: Key, seed: number, hash: 0 | 1): [bigint, bigint];
export function parse(bytes: Uint8Array): Parts;
export function load(bytes: Uint8Array): Promise<Filter>;
export class BloomFilter implements Filter {
  has(key: Key): boolean;
}
export class BlockedBloomFilter implements Filter {
  has(key: Key): boolean;
}
