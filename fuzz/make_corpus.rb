# frozen_string_literal: true

# Writes the seed inputs in fuzz/corpus/ for fuzz/fuzz_core.c: small programs
# that between them reach every operation of the harness.  Run it again after
# changing the harness's input format:  ruby fuzz/make_corpus.rb
#
# Input format (all integers little-endian; reads past the end yield zeros):
#   header  bits:    u16 n              (n % 5000 + 1 bits)
#           buckets: u8 width, u16 n    (width % 32 + 1, n % 2000 + 1)
#           bloom:   u16 m, u8 k, u8 kind, u32 seed
#           cont:    u16 m, u8 k, u8 flags (bit 0 kind, rest start slot), u32 seed
#           blocked: u8 blocks, u8 k, u32 seed (blocks % 64 + 1, k % 128 + 1)
#   then opcodes (byte % 28), each followed by its operands; see OPS below.
#   reinit: u8 which (% 5: bits, buckets, bloom, cont, blocked), then that header.
#   A batch is a u8 count (count % 70 + 1) and that many keys.
#   A key is a length byte (255: a u16 length follows) and that many bytes.

require "fileutils"

OPS = {
  bits_set: 0, bits_clear: 1, bits_get: 2, bits_check: 3,
  bk_set: 4, bk_get: 5, bk_inc: 6, bk_dec: 7, bk_check: 8,
  bloom_add: 9, bloom_contains: 10, bloom_recent: 11,
  cont_add: 12, cont_tick: 13, cont_lookup: 14, cont_tick_big: 15,
  hash: 16, positions: 17, reinit: 18, nbytes: 19,
  bloom_batch: 20, cont_batch: 21, blocked_add: 22, blocked_contains: 23, blocked_batch: 24, blocked_size: 25,
  blocked_recent: 26, blocked_rate: 27
}.freeze

def u8(v) = [v].pack("C")
def u16(v) = [v].pack("v")
def u32(v) = [v].pack("V")
def u64(v) = [v].pack("Q<")
def key(s) = (s.bytesize < 255 ? u8(s.bytesize) : u8(255) + u16(s.bytesize)) + s.b
def op(name) = u8(OPS.fetch(name))

def bits_hdr(n) = u16(n - 1)
def buckets_hdr(width, n) = u8(width - 1) + u16(n - 1)
def bloom_hdr(m, k, kind, seed) = u16(m - 1) + u8(k - 1) + u8(kind) + u32(seed)
def cont_hdr(m, k, kind, slot, seed) = u16(m - 1) + u8(k - 1) + u8(kind | ((slot - 1) << 1)) + u32(seed)
def blocked_hdr(blocks, k, seed) = u8(blocks - 1) + u8(k - 1) + u32(seed)
def batch(keys) = u8(keys.size - 1) + keys.map { |k| key(k) }.join
# bf_blocked_fpr at n keys in nblocks (< 2^40) blocks, against nblocks + more and 2 * nblocks.
def rate(n, nblocks, k, more) = op(:blocked_rate) + u32(n - 1) + u8(0) + u8(0) + u64((nblocks - 1) << 24) + u8(k - 1) + u8(more - 1)

def header(bits: 100, width: 4, buckets: 50, bloom: [256, 3, 0, 0], cont: [128, 3, 0, 1, 0], blocked: [4, 6, 0])
  bits_hdr(bits) + buckets_hdr(width, buckets) + bloom_hdr(*bloom) + cont_hdr(*cont) + blocked_hdr(*blocked)
end

seeds = {}

seeds["bits"] = header(bits: 130) +
  [0, 7, 8, 63, 64, 65, 129].map { |i| op(:bits_set) + u16(i) }.join +
  op(:bits_check) + op(:bits_clear) + u16(64) + op(:bits_get) + u16(64) +
  op(:bits_clear) + u16(3) + op(:bits_set) + u16(500) + op(:bits_check)

[1, 3, 4, 7, 13, 25, 31, 32].each do |w|
  n = w == 32 ? 9 : 40
  body = (0...n).step(3).map { |i| op(:bk_set) + u16(i) + u32(0xdeadbeef ^ (i * 0x01010101)) }.join +
    op(:bk_inc) + u16(1) + op(:bk_inc) + u16(n - 1) + op(:bk_dec) + u16(0) + op(:bk_dec) + u16(2) +
    op(:bk_set) + u16(n - 1) + u32(0xffffffff) + op(:bk_inc) + u16(n - 1) +
    op(:bk_get) + u16(n / 2) + op(:bk_check)
  seeds["buckets_w#{w}"] = header(width: w, buckets: n) + body
end

%w[murmur fnv].each_with_index do |name, kind|
  keys = ["", "a", "abc", "abcd", "hello world", "x" * 17, "0123456789abcdef!", "long" * 80]
  seeds["bloom_#{name}"] = header(bloom: [97, kind.zero? ? 7 : 128, kind, 0x9747b28c]) +
    keys.map { |k| op(:bloom_add) + key(k) }.join +
    op(:bloom_contains) + key("missing") + op(:bloom_contains) + key("abc") + op(:bloom_recent)
end

%w[murmur fnv].each_with_index do |name, kind|
  seeds["continuous_#{name}"] = header(cont: [64, 4, kind, kind.zero? ? 1 : 14, 42]) +
    op(:cont_add) + key("alpha") + op(:cont_tick) + u8(1) + op(:cont_add) + key("beta") +
    op(:cont_lookup) + key("alpha") + u8(0) + op(:cont_tick) + u8(2) +
    op(:cont_lookup) + key("alpha") + u8(1) + op(:cont_add) + key("gamma") +
    op(:cont_tick) + u8(1) + op(:cont_lookup) + key("beta") + u8(1) +
    op(:cont_tick) + u8(3) + op(:cont_add) + key("delta") + op(:cont_tick) + u8(0) +
    op(:cont_tick_big) + u64(15 * 1000 + 1) + op(:cont_add) + key("eps") +
    op(:cont_tick_big) + u64(0xffffffffffffffff) + op(:cont_lookup) + key("eps") + u8(1)
end

seeds["hash"] = header +
  [0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 255, 300, 1029].each_with_index.map { |len, i|
    op(:hash) + key((0...len).map { |j| ((j * 37 + i) & 0xff).chr }.join) + u8(i) + u32(i * 0x01000193)
  }.join

seeds["positions"] = header +
  op(:positions) + u8(0) + u8(6) + u64(1000) + key("k1") + u32(1) +
  op(:positions) + u8(1) + u8(127) + u64(1) + key("k2") + u32(0) +
  op(:positions) + u8(0) + u8(15) + u64(0xffffffffffffffff) + key("k3") + u32(7) +
  op(:positions) + u8(3 | (40 << 2)) + u8(31) + u64(0x123456789abcdef0) + key("k4") + u32(9) +
  op(:nbytes) + u64(0) + u8(4) + u8(0) +
  op(:nbytes) + u64(0xffffffffffffffff) + u8(32) + u8(3) +
  op(:nbytes) + u64(0xffffffffffffffff) + u8(32) + u8(8) +
  op(:nbytes) + u64(1000) + u8(0) + u8(0) +
  op(:nbytes) + u64(1000) + u8(33) + u8(0)

seeds["reinit"] = header +
  op(:bits_set) + u16(5) + op(:reinit) + u8(0) + bits_hdr(4999) + op(:bits_set) + u16(4998) +
  op(:bk_set) + u16(3) + u32(9) + op(:reinit) + u8(1) + buckets_hdr(32, 1) + op(:bk_dec) + u16(0) +
  op(:bloom_add) + key("q") + op(:reinit) + u8(2) + bloom_hdr(1, 1, 1, 0) + op(:bloom_add) + key("r") +
  op(:cont_add) + key("s") + op(:reinit) + u8(3) + cont_hdr(1, 128, 0, 15, 0) + op(:cont_add) + key("t") +
  op(:cont_tick) + u8(2) + op(:cont_lookup) + key("t") + u8(1)

words = (1..70).map { |i| "key-#{i}" }
seeds["batches"] = header(bloom: [512, 5, 0, 3], cont: [256, 4, 1, 2, 0]) +
  op(:bloom_batch) + u8(1) + batch(words.first(40)) + op(:bloom_batch) + u8(0) + batch(words) +
  op(:cont_batch) + u8(1) + batch(words.first(20)) + op(:cont_tick) + u8(2) +
  op(:cont_batch) + u8(2) + batch(words.first(30)) + op(:cont_tick) + u8(1) +
  op(:cont_batch) + u8(2) + batch(words.first(30))

seeds["blocked"] = header(blocked: [8, 12, 77]) +
  %w[a b c d e f].map { |k| op(:blocked_add) + key(k) }.join +
  op(:blocked_contains) + key("a") + op(:blocked_contains) + key("zzz") +
  op(:blocked_batch) + u8(1) + batch(words.first(50)) + op(:blocked_batch) + u8(0) + batch(words) +
  op(:blocked_size) + u16(999) + u16(42)

# k = 128: every probe past the unrolled eight and twelve remixed words; then
# one block and k = 9, and rates from an empty block to a million keys per
# block (n = 4289384 in 7 blocks at k = 116 once came out above 1).
seeds["blocked_more"] = header(blocked: [3, 128, 5]) +
  words.first(12).map { |k| op(:blocked_add) + key(k) }.join + op(:blocked_recent) +
  op(:blocked_batch) + u8(1) + batch(words.first(9)) + op(:blocked_contains) + key("nope") +
  op(:reinit) + u8(4) + blocked_hdr(1, 9, 0xffffffff) + op(:blocked_batch) + u8(1) + batch(words.first(70)) +
  op(:blocked_recent) + op(:blocked_batch) + u8(0) + batch(%w[x y z]) +
  rate(1000, 3, 7, 1) + rate(4289384, 7, 116, 1) + rate(10_000_000, 10, 8, 200) +
  rate(9_999_999, (1 << 40) - 1, 128, 256) +
  op(:blocked_size) + u16(19_999) + u16(2999) + u8(3 | (2 << 2)) # 1e7 keys at 1e-6

dir = File.join(__dir__, "corpus")
FileUtils.mkdir_p(dir)
seeds.each { |name, bytes| File.binwrite(File.join(dir, name), bytes) }
puts "#{seeds.size} seeds written to #{dir}"
