# frozen_string_literal: true

# Writes the seed inputs in fuzz/corpus/ for the fuzzer (fuzz/harness.c and
# the models it drives): small programs that between them reach every
# operation of the harness.  Run it again after changing the harness's
# input format:  ruby fuzz/make_corpus.rb  (or ruby fuzz/make_corpus.rb DIR
# to write them to DIR instead, e.g. to compare with the committed ones:
# diff -r DIR fuzz/corpus).
#
# Input format (all integers little-endian; reads past the end yield zeros):
#   header  bits:    u16 n              (n % 5000 + 1 bits)
#           buckets: u8 width, u16 n    (width % 32 + 1, n % 2000 + 1)
#           bloom:   u16 m, u8 k, u8 kind, u32 seed
#           cont:    u16 m, u8 k, u8 flags (bit 0 kind, rest start slot), u32 seed
#           blocked: u8 blocks, u8 k, u32 seed (blocks % 64 + 1, k % 128 + 1)
#           counting: u16 m, u8 width, u8 k, u32 seed   (m % 1024 + 1, width % 32 + 1)
#           spectral: u16 m, u16 secondary m, u8 width, u8 k, u8 flags (bit 0: RM), u32 seed
#           bitwise:  u16 m, u8 width, u8 k, u32 seed   (m % 512 + 1, k % 32 + 1)
#           stable:   u16 m, u8 width, u8 k, u16 d, u32 seed, u64 random seed (d % m + 1)
#           a2:       u16 half bits, u8 k, u8 capacity, u32 seed (bits % 2048 + 1, capacity % 48 + 1)
#           scalable: u16 error rate, u8 initial capacity, u8 growth, u8 tightening,
#                     u8 even layers, u16 max capacity, u32 seed (see scalable_hdr)
#           cuckoo:   u8 buckets, u8 fingerprint bits, u32 seed (buckets % 64 + 1, bits % 25 + 8)
#           sliding:  nothing (error 0.01, ttl 1 s, g 4, first capacity 64, mixed
#                     probes, seed 0, the clock at 0; sl_new picks others)
#   then opcodes, each followed by its operands.  The numbers of the
#   opcodes, the kinds, the header's parts and the padding targets are the
#   places in fuzz/ops.h's lists, which this script reads: the seeds name
#   them (an unknown name fails here).
#   reinit: u8 which (a kind, numbered in the header's order), then that
#   kind's header.
#   A batch is a u8 count (count % 70 + 1) and that many keys.
#   bloom_batch / blocked_batch: u8 flags (bit 0: add the batch first, bit 1:
#   without the adds' answers), a batch; cont_batch: u8 flags (bit 0: add,
#   bit 1: clear_expired, bit 2: without the adds' answers), a batch.
#   A key is a length byte (255: a u16 length follows) and that many bytes.
#   bk_dec_run: u16 first, u16 length, u8 flags (bit 0: wrap at the end).
#   cnt_add / spec_add: a key, u8 t (t % 16 + 1 adds); bw_add: a key, u16 t
#   ((t % 1024) >> (t / 1024 % 11) + 1 adds).
#   cnt_remove_known / spec_remove_known: u8 index into the keys given so far.
#   Twins (a second instance of every kind, which u8 picks):
#   twin_make: u8 which, u8 mode (bit 0: a copy of the first, else empty of
#     its shape; cont: mode >> 1 picks an empty twin's start slot), and for
#     stable a u64 generator state.
#   twin_op: u8 which, u8 sub-op (that kind's ops, in the order of
#     fuzz/ops.h: twin(:bits_check) below), then its operands.
#   merge: u8 which, u8 flags: bit 0 intersection (counting, spectral: MIN
#     rather than SUM; buckets: (flags & 127) % 3 of SUM, MIN, MAX;
#     scalable, cuckoo: a union either way), bit 7 the first merged into the
#     twin.
#   crc: a key (the bytes), u32 crc, u8 flags (bits 0-2: cut points, 3-5:
#     alignment of a copy), a u16 per cut point.
#   crc_zeros: u32 crc, u32 n, u8 shift, u64 a, u64 b.
#   tail: u8 which (a padding target: bits, bits twin, buckets, buckets
#     twin, cont, cont twin, counting cells, an a2 half, cuckoo slots), u16
#     where in the padding, u8 flags (bit 0: plant a padding bit, bit 1: set
#     the last bit).
#   cont_plant: u8 which (bit 0: twin), u16 bucket, u8 slot (% 16), u8 flags
#     (bit 0: clear_stale after).
#   cont_tick_split: u8 which (bit 0: twin), u8 flags (bit 0: u64 ticks
#     follow, else u8 % 21).
#   blocked_rate_now: no operands.
#   sc_add / sc_contains: a key; sc_batch: u8 flags (bit 0: add the batch
#   first), a batch; sc_check: no operands.
#   ck_add: a key, u8 t (t % 16 + 1 adds); ck_fill: a key, then each of its
#   suffixes (longest first) added once; ck_remove / ck_count: a key;
#   ck_remove_known: u8 index into the keys given so far; ck_check: none.
#   sl_new: u16 error rate (as scalable's), u8 ttl, u8 g (% 9), u8 first
#   capacity, u8 flags (bit 0: unmixed probes, bits 1-2: the clock's
#   start), u32 seed (tables in fuzz/model_sliding.c); sl_add / sl_contains:
#   a key; sl_tick: u8 mode (% 4: 0 forward u8, 1 forward u16, 2 back u8,
#   3 to a u64's double); sl_batch: u8 flags (bit 0: add first), a batch;
#   sl_save_load: u8 later; sl_load_bad: u16 field, u64 xor, u8 flags;
#   sl_check: none.
#   The binary fuse filter has no header: fuse_build: u8 flags (bit 0:
#   16-bit, bit 1: dedup first, bit 2: hashes base + j, else splitmix64),
#   u64 seed, u16 g (% 3001 generated hashes), u16 d (g % d + 1 distinct),
#   u64 base, u8 r (% 33) and r u64 hashes, u64 shuffle; fuse_lookup: u8
#   count (% 32 + 1), per key a u8 (odd: a member, u16 index; else a u64);
#   fuse_shape: u8 shift, u64 n (>> shift % 64), u8 bits, u8 which (bit i
#   < 6: XOR field i with a u32; bit 6: u8 log2 length, u32 count first;
#   bit 7: fingerprints from the input), u64 seed, u8 count (% 16 + 1) and
#   that many u64 keys, then the fingerprints.

require "fileutils"

# The entries of one of fuzz/ops.h's lists, NAME(ARGUMENTS) a line: each
# as [NAME, ARGUMENTS...].
def ops_h_list(source, list)
  block = source[/^#define #{list}\([^)]*\) \\\n((?:.*\\\n)*.*\n)/, 1] or raise "fuzz/ops.h has no list #{list}"
  block.lines.map do |line|
    entry = line[/\A\s*(\w+\([^)]*\))\s*\\?\s*\z/, 1] or raise "fuzz/ops.h, #{list}: cannot read #{line.strip.inspect}"
    name, args = entry.match(/(\w+)\((.*)\)/).captures
    [name, *args.split(",").map(&:strip)]
  end
end

# Names, lowercase, numbered by their places in a list; each only once.
def numbered(names)
  raise "fuzz/ops.h names #{names.tally.select { |_, n| n > 1 }.keys.join(', ')} twice" if names.uniq.size < names.size

  names.each_with_index.to_h
end

ops_h = File.read(File.join(__dir__, "ops.h"))
op_entries = ops_h_list(ops_h, "FUZZ_OPS")
OPS = numbered(op_entries.map { |_, name| name.downcase.to_sym }).freeze
KINDS = numbered(ops_h_list(ops_h, "FUZZ_KINDS").map { |_, kind| kind.downcase.to_sym }).freeze
# OP_REINIT's numbers: the kinds in the header's order.
HEADER = numbered(ops_h_list(ops_h, "FUZZ_HEADER").map { |_, kind| kind.downcase.to_sym }).freeze
# OP_TAIL's targets: :cont for the header's continuous filter, :cont_twin for its twin.
TAILS = numbered(ops_h_list(ops_h, "FUZZ_TAILS").map { |_, kind, which| :"#{kind.downcase}#{'_twin' if which == 'TWIN'}" }).freeze
# Each STRUCTURE_OP's kind and its place among that kind's: its sub-op for OP_TWIN_OP.
SUB_OPS = op_entries.select { |macro,| macro == "STRUCTURE_OP" }.group_by { |_, _, kind| kind }.flat_map do |kind, entries|
  entries.each_with_index.map { |(_, name), sub| [name.downcase.to_sym, [kind.downcase.to_sym, sub]] }
end.to_h.freeze
raise "fuzz/ops.h: a list is empty" if [OPS, KINDS, HEADER, TAILS, SUB_OPS].any?(&:empty?)
raise "fuzz/ops.h: the header does not have every kind once" unless HEADER.keys.sort == KINDS.keys.sort

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
def counting_hdr(m, width, k, seed) = u16(m - 1) + u8(width - 1) + u8(k - 1) + u32(seed)
def spectral_hdr(m, m2, width, k, rm, seed) = u16(m - 1) + u16(m2 - 1) + u8(width - 1) + u8(k - 1) + u8(rm ? 1 : 0) + u32(seed)
def bitwise_hdr(m, width, k, seed) = u16(m - 1) + u8(width - 1) + u8(k - 1) + u32(seed)
def stable_hdr(m, width, k, d, seed, random) = u16(m - 1) + u8(width - 1) + u8(k - 1) + u16(d - 1) + u32(seed) + u64(random)
def a2_hdr(bits, k, capacity, seed) = u16(bits - 1) + u8(k - 1) + u8(capacity - 1) + u32(seed)
# The harness's tables of growths and tightenings.
GROWTHS = [2, 1, 1.25, 1.5, 2.5, 3, 3.7, 4].freeze
TIGHTENINGS = [0.8, 0.85, 0.5, 0.9, 0.1, 0.3, 0.7, 0.99].freeze
# error: (1 + e % 999) / 1000 / 10^(e / 999 % 4), so a rate of three
# significant digits from 1e-6 to 0.999: mantissa 1..999, exponent 0..3.
def error_code(rate)
  (0..3).each do |exp|
    mant = (rate * 1000 * 10**exp).round
    return (mant - 1) + 999 * exp if mant.between?(1, 999) && (mant / 1000.0 / 10**exp - rate).abs < rate * 1e-9
  end
  raise ArgumentError, "no error code for #{rate}"
end

def scalable_hdr(error: 0.01, initial: 4, growth: 2, tightening: 0.8, even: 2, max: nil, seed: 0)
  u16(error_code(error)) + u8(initial - 1) + u8(GROWTHS.index(growth)) + u8(TIGHTENINGS.index(tightening)) +
    u8(even) + u16(max ? ((max - 1) << 1) | 1 : 0) + u32(seed)
end

def cuckoo_hdr(buckets, bits, seed) = u8(buckets - 1) + u8(bits - 8) + u32(seed)

def batch(keys) = u8(keys.size - 1) + keys.map { |k| key(k) }.join
# bf_blocked_fpr at n keys in nblocks (< 2^40) blocks, against nblocks + more and 2 * nblocks.
def rate(n, nblocks, k, more) = op(:blocked_rate) + u32(n - 1) + u8(0) + u8(0) + u64((nblocks - 1) << 24) + u8(k - 1) + u8(more - 1)

def header(bits: 100, width: 4, buckets: 50, bloom: [256, 3, 0, 0], cont: [128, 3, 0, 1, 0], blocked: [4, 6, 0],
           counting: [64, 4, 3, 0], spectral: [64, 32, 4, 3, false, 0], bitwise: [32, 1, 2, 0],
           stable: [64, 3, 3, 4, 0, 42], a2: [128, 3, 4, 0], scalable: {}, cuckoo: [16, 12, 0])
  bits_hdr(bits) + buckets_hdr(width, buckets) + bloom_hdr(*bloom) + cont_hdr(*cont) + blocked_hdr(*blocked) +
    counting_hdr(*counting) + spectral_hdr(*spectral) + bitwise_hdr(*bitwise) + stable_hdr(*stable) + a2_hdr(*a2) +
    scalable_hdr(**scalable) + cuckoo_hdr(*cuckoo)
end

def dec_run(first, len, wrap) = op(:bk_dec_run) + u16(first) + u16(len) + u8(wrap ? 1 : 0)

def twin_make(which, copy: false, slot: 0, random: nil)
  op(:twin_make) + u8(KINDS.fetch(which)) + u8((copy ? 1 : 0) | (slot << 1)) + (which == :stable ? u64(random || 7) : "".b)
end

# One of a kind's ops, on its twin: twin(:bits_check).
def twin(name)
  kind, sub = SUB_OPS.fetch(name)
  op(:twin_op) + u8(KINDS.fetch(kind)) + u8(sub)
end

def merge(which, flags = 0) = op(:merge) + u8(KINDS.fetch(which)) + u8(flags)
INTERSECT = 1
REVERSE = 128
def tail(which, off, flags) = op(:tail) + u8(TAILS.fetch(which)) + u16(off) + u8(flags)
def reinit(kind) = op(:reinit) + u8(HEADER.fetch(kind))
def plant(twin, bucket, slot, clear) = op(:cont_plant) + u8(twin ? 1 : 0) + u16(bucket) + u8(slot) + u8(clear ? 1 : 0)
def tick_split(twin, n) = op(:cont_tick_split) + u8(twin ? 1 : 0) + (n < 256 ? u8(0) + u8(n) : u8(1) + u64(n))
def times_op(name, k, times) = op(name) + key(k) + u8(times - 1)

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
  op(:bits_set) + u16(5) + reinit(:bits) + bits_hdr(4999) + op(:bits_set) + u16(4998) +
  op(:bk_set) + u16(3) + u32(9) + reinit(:buckets) + buckets_hdr(32, 1) + op(:bk_dec) + u16(0) +
  op(:bloom_add) + key("q") + reinit(:bloom) + bloom_hdr(1, 1, 1, 0) + op(:bloom_add) + key("r") +
  op(:cont_add) + key("s") + reinit(:cont) + cont_hdr(1, 128, 0, 15, 0) + op(:cont_add) + key("t") +
  op(:cont_tick) + u8(2) + op(:cont_lookup) + key("t") + u8(1)

words = (1..70).map { |i| "key-#{i}" }
seeds["batches"] = header(bloom: [512, 5, 0, 3], cont: [256, 4, 1, 2, 0]) +
  op(:bloom_batch) + u8(1) + batch(words.first(40)) + op(:bloom_batch) + u8(0) + batch(words) +
  op(:cont_batch) + u8(1) + batch(words.first(20)) + op(:cont_tick) + u8(2) +
  op(:cont_batch) + u8(2) + batch(words.first(30)) + op(:cont_tick) + u8(1) +
  op(:cont_batch) + u8(2) + batch(words.first(30)) +
  # Keys repeated within a batch and from the last one: new once at most.
  op(:bloom_batch) + u8(1) + batch(%w[key-1 again again key-70 other again]) +
  op(:bloom_batch) + u8(3) + batch(%w[again more more]) +
  op(:cont_batch) + u8(1) + batch(%w[key-1 again again key-30 other again]) +
  op(:cont_batch) + u8(5) + batch(%w[again more more])

seeds["blocked"] = header(blocked: [8, 12, 77]) +
  %w[a b c d e f].map { |k| op(:blocked_add) + key(k) }.join +
  op(:blocked_contains) + key("a") + op(:blocked_contains) + key("zzz") +
  op(:blocked_batch) + u8(1) + batch(words.first(50)) + op(:blocked_batch) + u8(0) + batch(words) +
  op(:blocked_batch) + u8(1) + batch(%w[key-1 again again key-70 other again]) +
  op(:blocked_batch) + u8(3) + batch(%w[again more more]) +
  op(:blocked_size) + u16(999) + u16(42)

# k = 128: every probe past the unrolled eight and twelve remixed words; then
# one block and k = 9, and rates from an empty block to a million keys per
# block (n = 4289384 in 7 blocks at k = 116 once came out above 1).
seeds["blocked_more"] = header(blocked: [3, 128, 5]) +
  words.first(12).map { |k| op(:blocked_add) + key(k) }.join + op(:blocked_recent) +
  op(:blocked_batch) + u8(1) + batch(words.first(9)) + op(:blocked_contains) + key("nope") +
  reinit(:blocked) + blocked_hdr(1, 9, 0xffffffff) + op(:blocked_batch) + u8(1) + batch(words.first(70)) +
  op(:blocked_recent) + op(:blocked_batch) + u8(0) + batch(%w[x y z]) +
  rate(1000, 3, 7, 1) + rate(4289384, 7, 116, 1) + rate(10_000_000, 10, 8, 200) +
  rate(9_999_999, (1 << 40) - 1, 128, 256) +
  op(:blocked_size) + u16(19_999) + u16(2999) + u8(3 | (2 << 2)) # 1e7 keys at 1e-6

# Runs of decrements on buckets of every kind of width (one lane per word at
# 29..32 bits, 57 / w lanes below): full buckets, zeros, runs within the
# field, up to its end, empty ones, and runs wrapping at the end.
[1, 2, 5, 8, 19, 29, 32].each do |w|
  n = 45
  body = (0...n).map { |i| op(:bk_set) + u16(i) + u32(i % 5 == 0 ? 0xffffffff : i % 3 == 0 ? 0 : 1 + i * 7919) }.join +
    dec_run(0, n, false) + dec_run(3, 20, false) + dec_run(n, 0, false) + dec_run(7, 0, false) +
    dec_run(40, 5, false) + dec_run(41, 10, true) + dec_run(0, n, true) + dec_run(44, n, true) +
    op(:bk_check) + (0...n).step(4).map { |i| op(:bk_inc) + u16(i) }.join + dec_run(1, 43, false) + op(:bk_check)
  seeds["dec_run_w#{w}"] = header(width: w, buckets: n) + body
end

zipf = (1..12).flat_map { |i| ["w#{i}"] * (12 / i) }
# Counting: width 2 saturates at 3 adds; deletes of keys added, of keys
# added and deleted already, of keys never added.
seeds["counting"] = header(counting: [16, 2, 3, 5]) +
  zipf.map { |k| op(:cnt_add) + key(k) + u8(0) }.join + times_op(:cnt_add, "heavy", 5) +
  op(:cnt_count) + key("heavy") + op(:cnt_count) + key("never") + op(:cnt_check) +
  op(:cnt_remove) + key("w12") + op(:cnt_remove) + key("w12") + op(:cnt_remove) + key("never") +
  (0...8).map { |i| op(:cnt_remove_known) + u8(i * 3) }.join + op(:cnt_check) +
  times_op(:cnt_add, "w1", 16) + op(:cnt_count) + key("w1")
seeds["counting_wide"] = header(counting: [200, 32, 7, 9]) +
  zipf.map { |k| op(:cnt_add) + key(k) + u8(2) }.join +
  (0...20).map { |i| op(:cnt_remove_known) + u8(i) }.join + op(:cnt_check) +
  reinit(:counting) + counting_hdr(1, 1, 4, 0) + times_op(:cnt_add, "a", 1) + times_op(:cnt_add, "b", 1) +
  op(:cnt_remove) + key("a") + op(:cnt_remove) + key("b") + op(:cnt_check)

# Spectral: MI (no deletes) and RM with a small secondary, so that keys enter
# it through each other's cells and deletes reach it.
seeds["spectral_mi"] = header(spectral: [16, 8, 3, 4, false, 7]) +
  zipf.map { |k| op(:spec_add) + key(k) + u8(0) }.join + times_op(:spec_add, "heavy", 9) +
  op(:spec_count) + key("w1") + op(:spec_count) + key("nope") + op(:spec_remove) + key("w1") +
  op(:spec_remove_known) + u8(0) + op(:spec_check)
seeds["spectral_rm"] = header(spectral: [12, 4, 4, 3, true, 11]) +
  zipf.map { |k| op(:spec_add) + key(k) + u8(0) }.join + times_op(:spec_add, "heavy", 3) +
  op(:spec_count) + key("w1") + op(:spec_count) + key("w5") + op(:spec_check) +
  op(:spec_remove) + key("w2") + op(:spec_remove) + key("never") +
  (0...10).map { |i| op(:spec_remove_known) + u8(i * 2) }.join + op(:spec_check) +
  zipf.first(10).map { |k| op(:spec_add) + key(k) + u8(1) }.join + op(:spec_check)
# RM on a Zipf stream with honest deletes only (no lower bound is switched
# off): keys go in and out of the secondary as their primary minimum stops
# and starts recurring.
seeds["spectral_rm_zipf"] = header(spectral: [8, 4, 4, 2, true, 3]) +
  zipf.shuffle(random: Random.new(0)).map { |k| op(:spec_add) + key(k) + u8(0) + op(:spec_count) + key(k) }.join +
  op(:spec_check) + (1..12).map { |i| op(:spec_remove) + key("w#{i}") }.join + op(:spec_check) +
  zipf.first(20).map { |k| op(:spec_add) + key(k) + u8(1) }.join + op(:spec_check)
seeds["spectral_rm_wide"] = header(spectral: [300, 150, 32, 6, true, 1]) +
  zipf.map { |k| times_op(:spec_add, k, 4) }.join + (0...12).map { |i| op(:spec_remove_known) + u8(i) }.join +
  op(:spec_check) + reinit(:spectral) + spectral_hdr(1, 1, 1, 2, true, 0) +
  times_op(:spec_add, "a", 1) + times_op(:spec_add, "b", 2) + op(:spec_remove) + key("a") + op(:spec_check)

# Bitwise: one cell, k = 1, width 1: levels of 1, 2, 4, 8, 16 and 32 bits,
# the last one reached after 1 + 3 + 15 + 255 + 65535 adds.
seeds["bitwise_levels"] = header(bitwise: [1, 1, 1, 3]) +
  op(:bw_add) + key("a") + u16(0) + op(:bw_add) + key("b") + u16(2) + op(:bw_check) +
  op(:bw_add) + key("c") + u16(300) + op(:bw_check) +
  (0...65).map { |i| op(:bw_add) + key("k#{i % 3}") + u16(1023) }.join + op(:bw_count) + key("k1") + op(:bw_check)
seeds["bitwise"] = header(bitwise: [40, 2, 3, 8]) +
  zipf.map { |k| op(:bw_add) + key(k) + u16(0) }.join + op(:bw_add) + key("heavy") + u16(40) +
  op(:bw_count) + key("heavy") + op(:bw_count) + key("w3") + op(:bw_count) + key("nope") + op(:bw_check) +
  reinit(:bitwise) + bitwise_hdr(8, 31, 5, 0) + op(:bw_add) + key("x") + u16(5) + op(:bw_check)

# Stable: runs within the cells and wrapping, d = m, width 1 (only the last
# add is sure to be found) and width 32.
keys40 = (1..40).map { |i| "s#{i}" }
seeds["stable"] = header(stable: [50, 3, 3, 7, 1, 42]) +
  keys40.map { |k| op(:st_add) + key(k) }.join + keys40.map { |k| op(:st_contains) + key(k) }.join + op(:st_check)
# Width 1 and d = m: every add first empties every cell, so a key added
# twice in a row is found before its second add (not new) and gone after
# the decrements: "new" must be told before them.
seeds["stable_edges"] = header(stable: [10, 1, 2, 10, 0, 0xffffffffffffffff]) +
  keys40.first(12).map { |k| op(:st_add) + key(k) + op(:st_contains) + key(k) }.join + op(:st_check) +
  op(:st_add) + key("s1") + op(:st_add) + key("s1") +
  reinit(:stable) + stable_hdr(33, 32, 5, 32, 9, 1234567) +
  keys40.first(20).map { |k| op(:st_add) + key(k) }.join + op(:st_contains) + key("s1") + op(:st_check) +
  reinit(:stable) + stable_hdr(1, 2, 1, 1, 0, 7) + op(:st_add) + key("a") + op(:st_add) + key("b") + op(:st_check)

# A2: capacity 4, so swaps come every few distinct keys; repeats of keys in
# the active half change nothing.
seeds["a2"] = header(a2: [128, 3, 4, 0]) +
  keys40.first(25).each_with_index.map { |k, i| op(:a2_add) + key(k) + (i % 3 == 0 ? op(:a2_add) + key(k) : "".b) }.join +
  keys40.first(25).map { |k| op(:a2_contains) + key(k) }.join + op(:a2_check) +
  reinit(:a2) + a2_hdr(7, 2, 1, 3) + keys40.first(9).map { |k| op(:a2_add) + key(k) }.join + op(:a2_check)

# Twins and merges. Bit fields of 130 bits (a partial last byte and word)
# and 128 (no padding): OR and AND both ways, then every padding check.
[130, 128].each do |n|
  seeds["merge_bits_#{n}"] = header(bits: n) +
    [0, 7, 8, 63, 64, n - 1].map { |i| op(:bits_set) + u16(i) }.join + twin_make(:bits) +
    [1, 7, 9, 64, 100, n - 1].map { |i| twin(:bits_set) + u16(i) }.join + twin(:bits_check) +
    merge(:bits) + op(:bits_check) + twin(:bits_clear) + u16(7) + merge(:bits, INTERSECT) +
    twin_make(:bits, copy: true) + twin(:bits_set) + u16(3) + merge(:bits, REVERSE) + merge(:bits, INTERSECT | REVERSE) +
    (TAILS.keys - [:cuckoo]).map { |t| tail(t, 0, 1) + tail(t, 1000, 3) }.join
end

# Buckets of every kind of width, values near the maximum: SUM saturates,
# MIN and MAX either way round.
[1, 3, 7, 8, 13, 31, 32].each do |w|
  n = 37
  max = (1 << w) - 1
  body = (0...n).map { |i| op(:bk_set) + u16(i) + u32(i.even? ? max - i : i * 2654435761) }.join + twin_make(:buckets) +
    (0...n).step(2).map { |i| twin(:bk_set) + u16(i) + u32(i % 3 == 0 ? max : i) }.join +
    twin(:bk_set) + u16(n - 1) + u32(1) + merge(:buckets, 0) + merge(:buckets, 1) + merge(:buckets, 2) +
    twin_make(:buckets, copy: true) + twin(:bk_inc) + u16(0) + twin(:bk_dec) + u16(5) + twin(:bk_dec_run) + u16(3) + u16(20) + u8(0) +
    merge(:buckets, REVERSE) + merge(:buckets, REVERSE | 1) + merge(:buckets, REVERSE | 2) + op(:bk_check) +
    tail(:buckets, 0, 1) + tail(:buckets, 55, 3) + tail(:buckets_twin, 7, 3)
  seeds["merge_buckets_w#{w}"] = header(width: w, buckets: n) + body
end

# Continuous: a twin on another slot of the ring, its own adds and ticks;
# unions and intersections both ways round, a copy ticked apart.
%w[murmur fnv].each_with_index do |name, kind|
  seeds["merge_continuous_#{name}"] = header(cont: [64, 3, kind, 14, 5]) +
    op(:cont_add) + key("alpha") + op(:cont_tick) + u8(1) + op(:cont_add) + key("beta") +
    twin_make(:cont, slot: 3) + twin(:cont_add) + key("beta") + twin(:cont_tick) + u8(2) + twin(:cont_add) + key("gamma") +
    twin(:cont_add) + key("alpha") + merge(:cont) + op(:cont_lookup) + key("gamma") + u8(0) + op(:cont_tick) + u8(1) +
    merge(:cont, INTERSECT) + merge(:cont, REVERSE) + twin(:cont_lookup) + key("alpha") + u8(1) +
    twin_make(:cont, copy: true) + twin(:cont_tick) + u8(1) + twin(:cont_add) + key("delta") + op(:cont_add) + key("eps") +
    merge(:cont, INTERSECT | REVERSE) + merge(:cont) + twin(:cont_batch) + u8(1) + batch(%w[a b c d e]) +
    merge(:cont, INTERSECT) + op(:cont_tick) + u8(2) + merge(:cont) + op(:cont_tick) + u8(1)
end

# Planted slots: stale ones (3..14 ticks old), "future" ones that come alive
# after a tick or two, live ones, empty; valid, clear_stale, lookups that
# clear, split ticks of 0, 1, 2, 3 and very many.
seeds["continuous_plant"] = header(cont: [40, 3, 0, 5, 9]) +
  %w[a b c d e f].map { |k| op(:cont_add) + key(k) }.join + op(:cont_tick) + u8(1) +
  [3, 6, 9, 13, 14, 15].map { |v| plant(false, v * 2 + 1, v, false) }.join + op(:cont_lookup) + key("a") + u8(1) +
  op(:cont_lookup) + key("b") + u8(0) + tick_split(false, 1) + plant(false, 0, 8, false) + tick_split(false, 2) +
  plant(false, 3, 1, true) + tick_split(false, 0) + tick_split(false, 3) + op(:cont_add) + key("g") +
  plant(false, 39, 2, false) + op(:cont_batch) + u8(2) + batch(%w[a b c g x y]) + tick_split(false, 2**40 + 7) +
  twin_make(:cont, slot: 12) + twin(:cont_add) + key("q") + plant(true, 5, 9, false) + tail(:cont_twin, 0, 3) + tail(:cont, 9, 1) +
  merge(:cont) + plant(true, 6, 10, false) + merge(:cont, INTERSECT | REVERSE) + tick_split(true, 1)
# Four buckets, so that every key meets the planted slots: lookups (one at a
# time and batched) that clear them, and keys that lose their guarantee.
seeds["continuous_plant_small"] = header(cont: [4, 2, 1, 1, 3]) +
  op(:cont_add) + key("a") + op(:cont_add) + key("b") + (0...4).map { |i| plant(false, i, 7 + i, false) }.join +
  op(:cont_lookup) + key("a") + u8(1) + op(:cont_lookup) + key("b") + u8(0) + op(:cont_add) + key("c") +
  plant(false, 1, 9, false) + plant(false, 2, 15, false) + op(:cont_batch) + u8(2) + batch(%w[a b c d]) +
  plant(false, 3, 14, true) + op(:cont_add) + key("d") + plant(false, 0, 13, false) + tick_split(false, 2) +
  op(:cont_lookup) + key("d") + u8(1)

# Counting: width 2 (saturates at 3) and 9; SUM and MIN both ways, deletes after.
[[2, 16], [9, 64]].each do |w, m|
  seeds["merge_counting_w#{w}"] = header(counting: [m, w, 3, 5]) +
    zipf.first(12).map { |k| op(:cnt_add) + key(k) + u8(1) }.join + twin_make(:counting) +
    zipf.last(12).map { |k| twin(:cnt_add) + key(k) + u8(0) }.join + twin(:cnt_add) + key("w1") + u8(2) +
    merge(:counting) + op(:cnt_count) + key("w1") + op(:cnt_remove) + key("w1") + merge(:counting, INTERSECT) +
    twin_make(:counting, copy: true) + twin(:cnt_remove) + key("w2") + merge(:counting, REVERSE) +
    merge(:counting, INTERSECT | REVERSE) + twin(:cnt_check) + op(:cnt_check) + (0...4).map { |i| op(:cnt_remove_known) + u8(i) }.join
end

# Spectral MI and RM: the secondary is emptied by every merge.
[false, true].each do |rm|
  seeds["merge_spectral_#{rm ? 'rm' : 'mi'}"] = header(spectral: [16, 6, 3, 3, rm, 7]) +
    zipf.map { |k| op(:spec_add) + key(k) + u8(0) }.join + twin_make(:spectral) +
    zipf.first(10).map { |k| twin(:spec_add) + key(k) + u8(1) }.join + merge(:spectral) +
    op(:spec_count) + key("w1") + op(:spec_add) + key("w3") + u8(2) + op(:spec_remove) + key("w1") +
    merge(:spectral, INTERSECT) + twin_make(:spectral, copy: true) + twin(:spec_add) + key("new") + u8(3) +
    merge(:spectral, REVERSE) + twin(:spec_check) + merge(:spectral, INTERSECT | REVERSE) + op(:spec_check)
end

# Bitwise: a twin with more levels (width 1, k = 1: levels after 1, 3, 15
# adds), union (levels added) and intersection (levels dropped).
seeds["merge_bitwise"] = header(bitwise: [4, 1, 1, 3]) +
  op(:bw_add) + key("a") + u16(2) + op(:bw_add) + key("b") + u16(0) + twin_make(:bitwise) +
  twin(:bw_add) + key("a") + u16(20) + twin(:bw_add) + key("c") + u16(1) + merge(:bitwise) +
  op(:bw_count) + key("a") + op(:bw_check) + merge(:bitwise, INTERSECT | REVERSE) + twin(:bw_check) +
  twin_make(:bitwise, copy: true) + op(:bw_add) + key("d") + u16(300) + merge(:bitwise, INTERSECT) +
  merge(:bitwise, REVERSE) + merge(:bitwise) + op(:bw_check)

# Stable: twins with their own generators; MAX and MIN both ways.
seeds["merge_stable"] = header(stable: [30, 3, 2, 3, 1, 42]) +
  keys40.first(10).map { |k| op(:st_add) + key(k) }.join + twin_make(:stable, random: 99) +
  keys40[5, 10].map { |k| twin(:st_add) + key(k) }.join + merge(:stable) + op(:st_add) + key("s1") +
  merge(:stable, INTERSECT) + twin_make(:stable, copy: true) + twin(:st_add) + key("x") +
  merge(:stable, REVERSE) + merge(:stable, INTERSECT | REVERSE) + op(:st_check) + twin(:st_check)

# A2: capacity 3, so the halves swap; the twin's active half differs.
seeds["merge_a2"] = header(a2: [100, 2, 3, 1]) +
  keys40.first(7).map { |k| op(:a2_add) + key(k) }.join + twin_make(:a2) +
  keys40[4, 5].map { |k| twin(:a2_add) + key(k) }.join + merge(:a2) + op(:a2_check) + op(:a2_add) + key("s30") +
  merge(:a2, INTERSECT) + twin_make(:a2, copy: true) + twin(:a2_add) + key("s31") + twin(:a2_add) + key("s32") +
  merge(:a2, REVERSE) + merge(:a2, INTERSECT | REVERSE) + twin(:a2_check) + tail(:a2, 0, 1) + tail(:a2, 1, 3)

# Plain (both hashes) and blocked filters, merged as the binding merges them.
%w[murmur fnv].each_with_index do |name, kind|
  seeds["merge_bloom_#{name}"] = header(bloom: [200, 4, kind, 11]) +
    words.first(12).map { |k| op(:bloom_add) + key(k) }.join + twin_make(:bloom) +
    words[8, 12].map { |k| twin(:bloom_add) + key(k) }.join + merge(:bloom) + op(:bloom_recent) +
    merge(:bloom, INTERSECT | REVERSE) + twin(:bloom_recent) + twin_make(:bloom, copy: true) +
    twin(:bloom_batch) + u8(1) + batch(words.last(9)) + merge(:bloom, REVERSE) + merge(:bloom, INTERSECT) + op(:bloom_recent)
end
seeds["merge_blocked"] = header(blocked: [3, 7, 21]) +
  words.first(20).map { |k| op(:blocked_add) + key(k) }.join + twin_make(:blocked) +
  twin(:blocked_batch) + u8(1) + batch(words[15, 30]) + twin(:blocked_rate_now) + merge(:blocked) + op(:blocked_rate_now) +
  merge(:blocked, INTERSECT | REVERSE) + twin(:blocked_recent) + twin_make(:blocked, copy: true) + twin(:blocked_add) + key("z") +
  merge(:blocked, INTERSECT) + op(:blocked_rate_now) + merge(:blocked, REVERSE) + twin(:blocked_rate_now)

# CRC-32C: lengths around the 8-byte blocks, pieces at cut points, copies
# at every alignment; runs of zeros short and long.
crc_body = [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 300, 1000].each_with_index.map do |len, i|
  bytes = (0...len).map { |j| ((j * 131 + i * 7) & 0xff).chr }.join
  cuts = [len - 1, len / 3, len / 2].map { |c| c.clamp(0, len) }.first(i % 4)
  op(:crc) + key(bytes) + u32(i * 0x9e3779b9 & 0xffffffff) + u8(cuts.size | ((i % 8) << 3)) + cuts.map { |c| u16(c) }.join
end.join
zeros_body = [[0, 0], [1, 0], [7, 0], [8, 0], [4096, 0], [65_536, 0], [300_000, 0], [524_288, 0], [1000, 3]].map do |n, shift|
  op(:crc_zeros) + u32(n * 2654435761 & 0xffffffff) + u32(n) + u8(shift) + u64(0x0123456789abcdef) + u64(0xfedcba9876543210)
end.join
seeds["crc32c"] = header + crc_body + zeros_body

# The blocked filter's rate as it is: empty, a few keys, k = 9 over 2 blocks, full.
seeds["blocked_rate_now"] = header(blocked: [2, 9, 3]) + op(:blocked_rate_now) +
  %w[a b c].map { |k| op(:blocked_add) + key(k) + op(:blocked_rate_now) }.join +
  op(:blocked_batch) + u8(1) + batch(words) + op(:blocked_rate_now) +
  reinit(:blocked) + blocked_hdr(1, 128, 0) + op(:blocked_rate_now) +
  op(:blocked_batch) + u8(1) + batch(words) + op(:blocked_batch) + u8(1) + batch(words.map { |w| w + "!" }) +
  op(:blocked_rate_now)

# Scalable: layers of 2, 4, 8, 16, 32 keys as 40 keys come (some twice);
# lookups one at a time and batched, keys in and out in turn; unions with
# an empty twin both ways (each count the larger of its own and what the
# fill implies, which may be below it).
sc_keys = (1..40).map { |i| "c#{i}" }
seeds["scalable"] = header(scalable: { error: 0.01, initial: 2, growth: 2, even: 1, seed: 5 }) +
  sc_keys.each_with_index.map { |k, i| op(:sc_add) + key(k) + (i % 7 == 0 ? op(:sc_add) + key(sc_keys[i / 2]) : "".b) }.join +
  op(:sc_contains) + key("c3") + op(:sc_contains) + key("nope") + op(:sc_check) +
  op(:sc_batch) + u8(0) + batch(sc_keys.first(8).zip((1..8).map { |i| "x#{i}" }).flatten) +
  op(:sc_batch) + u8(1) + batch(%w[p q p c1 r]) + op(:sc_check) +
  twin_make(:scalable) + merge(:scalable, REVERSE) + twin_make(:scalable) + merge(:scalable)
# max_capacity 10 over layers of 3, 5 and 2 (growth 1.5: 4.5 rounds to 5,
# 6.75 to 7, cut to 2): the eleventh new key is refused and changes nothing,
# old ones are still found; max_capacity 3 in one layer; growth 1, which is
# refused (below 1.25 the 64 layers would run out); and max_capacity 65
# from one key a layer.
seeds["scalable_full"] = header(scalable: { error: 0.05, initial: 3, growth: 1.5, tightening: 0.5, even: 0, max: 10 }) +
  (1..13).map { |i| op(:sc_add) + key("f#{i}") }.join + op(:sc_add) + key("f2") + op(:sc_check) +
  op(:sc_batch) + u8(1) + batch(%w[f1 f12 f13 g]) + op(:sc_check) +
  reinit(:scalable) + scalable_hdr(error: 0.05, initial: 3, max: 3) +
  (1..5).map { |i| op(:sc_add) + key("f#{i}") }.join +
  reinit(:scalable) + scalable_hdr(error: 0.999, initial: 1, growth: 1, tightening: 0.1, even: 12, seed: 9) +
  op(:sc_batch) + u8(1) + batch((1..66).map { |i| "g#{i}" }) + op(:sc_add) + key("g1") + op(:sc_check) +
  reinit(:scalable) + scalable_hdr(error: 0.5, initial: 1, growth: 1.25, max: 65) + op(:sc_add) + key("h")
# Unions: a twin that grows past the first (the first takes copies of its
# layers), adds after the union into a layer over its capacity, the other
# way round, and a copy.
seeds["merge_scalable"] = header(scalable: { error: 0.001, initial: 2, growth: 1.5, tightening: 0.9, even: 3, seed: 77 }) +
  sc_keys.first(5).map { |k| op(:sc_add) + key(k) }.join + twin_make(:scalable) +
  twin(:sc_batch) + u8(1) + batch(sc_keys[3, 20]) + merge(:scalable) + op(:sc_check) +
  sc_keys[25, 8].map { |k| op(:sc_add) + key(k) }.join + twin(:sc_add) + key("t1") + merge(:scalable, REVERSE) +
  twin(:sc_check) + twin_make(:scalable, copy: true) + twin(:sc_add) + key("t2") + merge(:scalable, INTERSECT) +
  op(:sc_check) + twin(:sc_contains) + key("c1") +
  # Four keys whose bits overlap (seed 6: 54 bits, k = 9, 4 keys that the
  # fill puts at 3), and a union with an empty twin: the count stays 4.
  reinit(:scalable) + scalable_hdr(error: 0.01, initial: 4, growth: 2, even: 2, seed: 6) +
  (1..4).map { |i| op(:sc_add) + key("u#{i}") }.join + twin_make(:scalable) + merge(:scalable) + op(:sc_check) +
  # One key a layer, the first layer 2 bits and k = 1 (error 0.999, seed
  # 3): "a" sets bit 1, "b" goes to a second layer, the twin's "d" sets bit
  # 0, so that the union fills the first layer, which then counts
  # UINT64_MAX: distinct must not wrap past it.
  reinit(:scalable) + scalable_hdr(error: 0.999, initial: 1, growth: 1.25, tightening: 0.1, even: 0, seed: 3) +
  op(:sc_add) + key("a") + op(:sc_add) + key("b") + twin_make(:scalable) + twin(:sc_add) + key("d") +
  merge(:scalable) + op(:sc_check) + op(:sc_add) + key("e") + op(:sc_check)

# Cuckoo: 4 buckets of 8-bit fingerprints filled from the suffixes of one
# long key, past full (kicks, then refusals that must change nothing); one
# key 16 times (its 8 slots, then refused); counts, removes of keys in and
# out (false positives at 8 bits), a padding bit planted; then one bucket
# (both of a key's buckets the same) of 32-bit fingerprints, and 64
# buckets of 20 bits filled from a 255-byte key.
long = (0...120).map { |i| ((i * 37 + 11) % 251).chr }.join
seeds["cuckoo"] = header(cuckoo: [4, 8, 3]) +
  op(:ck_fill) + key(long[0, 12]) + op(:ck_check) + op(:ck_fill) + key(long) + op(:ck_check) +
  times_op(:ck_add, "dup", 16) + op(:ck_count) + key("dup") + op(:ck_count) + key("nope") +
  op(:ck_remove) + key("dup") + op(:ck_remove) + key("nope") + op(:ck_remove_known) + u8(3) +
  (0...30).map { |i| op(:ck_remove) + key("r#{i}") }.join + op(:ck_check) +
  tail(:cuckoo, 3, 3) + op(:ck_fill) + key(long[50, 20]) + op(:ck_check) +
  reinit(:cuckoo) + cuckoo_hdr(1, 32, 0xffffffff) + times_op(:ck_add, "one", 6) +
  op(:ck_add) + key("two") + u8(0) + op(:ck_remove_known) + u8(0) + op(:ck_remove) + key("two") +
  times_op(:ck_add, "two", 3) + op(:ck_check) + tail(:cuckoo, 0, 3) +
  reinit(:cuckoo) + cuckoo_hdr(64, 20, 7) + op(:ck_fill) + key((long * 3)[0, 254]) +
  op(:ck_fill) + key((long * 3)[1, 254].reverse) + op(:ck_check)
# Unions: into an empty twin and back, with a twin of its own keys, and a
# copy merged into its original until there is no room (put back).
seeds["merge_cuckoo"] = header(cuckoo: [8, 10, 5]) +
  op(:ck_fill) + key(long[0, 10]) + twin_make(:cuckoo) + merge(:cuckoo, REVERSE) +
  twin(:ck_fill) + key(long[20, 8]) + twin(:ck_add) + key("t") + u8(2) + merge(:cuckoo) + op(:ck_check) +
  twin(:ck_check) + twin(:ck_remove) + key("t") + twin_make(:cuckoo, copy: true) + merge(:cuckoo, INTERSECT) +
  merge(:cuckoo) + merge(:cuckoo) + op(:ck_check) + twin(:ck_remove_known) + u8(1) + twin(:ck_count) + key("t") +
  reinit(:cuckoo) + cuckoo_hdr(2, 8, 1) + op(:ck_fill) + key(long[0, 7]) + twin_make(:cuckoo, copy: true) +
  merge(:cuckoo, REVERSE) + twin(:ck_check)

# Binary fuse: builds from 0, 1, 2 and 3 keys (the smallest shapes), the
# same hash 3000 times, 3000 hashes of 100 distinct (repeats, left in or
# deduplicated first), raw hashes that repeat and neighbours base + j,
# 16-bit fingerprints; lookups of members and not; shapes refused (bits 7,
# 9 and 32, over 2^32 keys), the largest accepted, and mutated ones (a
# count whose products wrap, a mask off by one, an empty filter with a
# length, a small valid shape with fingerprints from the input).
def fuse_build(flags, seed, gen, pool, base, raw = [], shuffle = 1)
  op(:fuse_build) + u8(flags) + u64(seed) + u16(gen) + u16(pool - 1) + u64(base) + u8(raw.size) +
    raw.map { |v| u64(v) }.join + u64(shuffle)
end

def fuse_lookup(picks) = op(:fuse_lookup) + u8(picks.size - 1) + picks.map { |p| p.is_a?(Array) ? u8(1) + u16(p[0]) : u8(0) + u64(p) }.join

def fuse_shape(n, bits, which: 0, fields: "".b, seed: 0, keys: [1])
  op(:fuse_shape) + u8(0) + u64(n) + u8(bits) + u8(which) + fields + u64(seed) + u8(keys.size - 1) + keys.map { |k| u64(k) }.join
end

seeds["fuse"] = header +
  fuse_build(0, 0, 0, 1, 0) + fuse_lookup([5, 0]) +
  fuse_build(0, 7, 0, 1, 0, [42]) + fuse_lookup([[0], 42, 43]) +
  fuse_build(1, 7, 0, 1, 0, [1, 2]) + fuse_build(0, 3, 0, 1, 0, [1, 2, 3, 2, 1]) +
  fuse_build(0, 9, 3000, 1, 5) + fuse_build(1, 11, 3000, 100, 77, [], 5) + fuse_lookup([[3], [99], 1234, 0]) +
  fuse_build(2, 11, 3000, 100, 77, [], 9) + fuse_build(3, 0, 2000, 2000, 1 << 40) +
  fuse_build(4, 2, 500, 300, 0xfffffffffffffff0, [0, 0xffffffffffffffff, 0, 17]) +
  fuse_build(6, 0xffffffffffffffff, 1010, 1010, 0, [5, 5]) + fuse_lookup([[0], [1], [2], 1 << 63])
seeds["fuse_shapes"] = header +
  fuse_shape(0, 8) + fuse_shape(1, 16) + fuse_shape(3, 8) + fuse_shape(1000, 7) + fuse_shape(1000, 9) +
  fuse_shape(5, 32) + fuse_shape((1 << 32) + 1, 8) + fuse_shape(1 << 32, 16) + fuse_shape(3_800_000_000, 8) +
  fuse_shape(3_500_000_000, 16, keys: [1, 2, 3]) +
  fuse_shape(100, 8, which: 64, fields: u8(18) + u32(1 << 14)) +
  fuse_shape(100, 8, which: 64, fields: u8(18) + u32((1 << 14) - 3)) +
  fuse_shape(100, 8, which: 2, fields: u32(1)) + fuse_shape(0, 8, which: 16, fields: u32(12)) +
  fuse_shape(0, 8, which: 64, fields: u8(2) + u32(0)) + fuse_shape(0, 8, which: 64, fields: u8(1) + u32(3)) +
  fuse_shape(0, 8, which: 64 | 128, fields: u8(2) + u32(1), seed: 3, keys: [1, 2, 3, 4]) + (0...12).map { |i| u8(i * 29) }.join +
  fuse_shape(40, 16, which: 32, fields: u32(24), keys: [9, 8])

# Sliding: keys at a steady pace through several windows (starts, ends,
# growth past the first layer of 64), a big jump that ends every
# generation, the clock set back, a save loaded later, corrupted fields,
# then another filter (ttl 0.01 s, g 1, unmixed probes, at 1.7e9 s) whose
# clock jumps to a time no add takes.
def sl_new(error: 0.01, ttl: 0, g: 4, first: 0, flags: 0, seed: 0)
  op(:sl_new) + u16(error_code(error)) + u8(ttl) + u8(g) + u8(first) + u8(flags) + u32(seed)
end

def sl_tick(mode, *operands) = op(:sl_tick) + u8(mode) + operands.join

sl_keys = (1..150).map { |i| "s#{i}" }
seeds["sliding"] = header +
  sl_keys.each_slice(10).map { |ks| ks.map { |k| op(:sl_add) + key(k) }.join + sl_tick(0, u8(7)) }.join +
  op(:sl_contains) + key("s1") + op(:sl_contains) + key("s150") + op(:sl_check) +
  op(:sl_batch) + u8(1) + batch(sl_keys.first(70)) + op(:sl_save_load) + u8(9) + op(:sl_check) +
  op(:sl_load_bad) + u16(3) + u64(0) + u8(0) + op(:sl_load_bad) + u16(8) + u64(1 << 62) + u8(0) +
  op(:sl_load_bad) + u16(0) + u64(0) + u8(1) + sl_tick(2, u8(40)) + op(:sl_add) + key("back") +
  sl_tick(1, u16(600)) + op(:sl_contains) + key("back") + op(:sl_add) + key("after") + op(:sl_check) +
  sl_new(error: 0.001, ttl: 1, g: 1, first: 2, flags: 1 | (1 << 1), seed: 9) +
  (1..20).map { |i| op(:sl_add) + key("t#{i}") }.join + sl_tick(3, u64(0x7ff0000000000000)) +
  sl_tick(0, u8(63)) + op(:sl_batch) + u8(0) + batch(%w[t1 t2 t20 x]) + op(:sl_check)

dir = ARGV.fetch(0) { File.join(__dir__, "corpus") }
FileUtils.mkdir_p(dir)
seeds.each { |name, bytes| File.binwrite(File.join(dir, name), bytes) }
puts "#{seeds.size} seeds written to #{dir}"
