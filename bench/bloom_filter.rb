# frozen_string_literal: true

# bloomc's BloomFilter against its peers and against floors measured in the
# same process: an empty loop over the keys, a loop calling String#hash on them,
# and Set#include?. Run with `bundle exec rake bench`.
#
#   BENCH_ROUNDS=5   rounds per measurement (the fastest round is kept)
#   BENCH_LARGE=0    skip the large (out-of-cache) filter

require "set"
require "objspace"
require "bloomc"
require_relative "support"

include BenchSupport

ROUNDS = Integer(ENV.fetch("BENCH_ROUNDS", "5"))
HAVE_BLOOM_FILTER = load_peer("bloom-filter")       # top-level ::BloomFilter (C extension)
HAVE_BLOOMBROOM = load_peer("bloombroom")           # Bloombroom::BloomFilter (pure Ruby + FFI FNV)
BLOOMBROOM_SAMPLE = 20_000 # bloombroom takes microseconds a key; time it on a sample

def ns(seconds, count) = seconds * 1e9 / count

# One scenario: a filter sized for `capacity` keys at `error`, holding `present`,
# probed with `present` (hits) and `absent` (misses).
def scenario(title, capacity:, error:, present:, absent:, set_floor:)
  n = present.size
  m, k = Bloomc::BloomHelper.find_m_k(capacity, error)
  puts "\n== #{title}: m=#{m} bits (#{(m / 8.0 / 1024).round} KiB), k=#{k}, #{n} keys added, " \
       "#{absent.size} absent keys probed"

  bloomc = Bloomc::BloomFilter.new(m, k)
  present.each { |key| bloomc << key }
  jobs = {
    "empty loop" => -> { present.each { |key| key } },
    # A block, like every other job (each(&:hash) would skip the block call).
    "String#hash loop" => -> { present.each { |key| key.hash } },
    "bloomc add" => -> { f = Bloomc::BloomFilter.new(m, k); present.each { |key| f.add(key) } },
    "bloomc include? (hits)" => -> { present.each { |key| bloomc.include?(key) } },
    "bloomc include? (misses)" => -> { absent.each { |key| bloomc.include?(key) } },
  }
  if set_floor
    set = Set.new(present)
    jobs["Set#include? (hits)"] = -> { present.each { |key| set.include?(key) } }
    jobs["Set#include? (misses)"] = -> { absent.each { |key| set.include?(key) } }
  end
  if HAVE_BLOOM_FILTER
    peer = ::BloomFilter.new(size: capacity, error_rate: error)
    present.each { |key| peer.insert(key) }
    jobs["bloom-filter add"] = -> { f = ::BloomFilter.new(size: capacity, error_rate: error); present.each { |key| f.insert(key) } }
    jobs["bloom-filter include? (hits)"] = -> { present.each { |key| peer.include?(key) } }
    jobs["bloom-filter include? (misses)"] = -> { absent.each { |key| peer.include?(key) } }
  end
  times = best_times(jobs, rounds: ROUNDS).transform_values { |t| ns(t, n) }
  times["bloomc include? (misses)"] *= n.fdiv(absent.size)
  times["bloom-filter include? (misses)"] *= n.fdiv(absent.size) if HAVE_BLOOM_FILTER
  times["Set#include? (misses)"] *= n.fdiv(absent.size) if set_floor

  if HAVE_BLOOMBROOM
    sample = present.first(BLOOMBROOM_SAMPLE)
    bb = Bloombroom::BloomFilter.new(m, k)
    sample.each { |key| bb.add(key) }
    bb_absent = absent.first(BLOOMBROOM_SAMPLE)
    bb_times = best_times({
      "bloombroom add" => -> { f = Bloombroom::BloomFilter.new(m, k); sample.each { |key| f.add(key) } },
      "bloombroom include? (hits)" => -> { sample.each { |key| bb.include?(key) } },
      "bloombroom include? (misses)" => -> { bb_absent.each { |key| bb.include?(key) } },
    }, rounds: [ROUNDS / 2, 1].max)
    times.merge!(bb_times.transform_values { |t| ns(t, sample.size) })
  end

  floor = times["String#hash loop"]
  rows = times.map do |name, t|
    [name, format("%.1f", t), format("%.2fx", t / floor)]
  end
  print_table("ns per key (fastest of #{ROUNDS} rounds); ratio to the String#hash loop",
              ["", "ns/key", "vs hash"], rows)

  ratios = []
  %w[add include?\ (hits) include?\ (misses)].each do |op|
    ours = times["bloomc #{op}"]
    ratios << ["#{op}: bloom-filter / bloomc", format("%.2fx", times["bloom-filter #{op}"] / ours)] if HAVE_BLOOM_FILTER
    ratios << ["#{op}: bloombroom / bloomc", format("%.1fx", times["bloombroom #{op}"] / ours)] if HAVE_BLOOMBROOM
    ratios << ["#{op}: bloomc / String#hash loop", format("%.2fx", ours / floor)]
  end
  print_table("speed-ups (how many times faster bloomc is)", ["", "ratio"], ratios)

  fp = absent.count { |key| bloomc.include?(key) }
  mem = [["bloomc", ObjectSpace.memsize_of(bloomc)]]
  mem << ["bloom-filter (its own report)", ObjectSpace.memsize_of(peer)] if HAVE_BLOOM_FILTER
  if HAVE_BLOOMBROOM
    mem << ["bloombroom (filter + its Arrays)", deep_memsize(Bloombroom::BloomFilter.new(m, k))]
  end
  mem << ["Set of the keys (+ the keys)", deep_memsize(Set.new(present))] if set_floor
  print_table("memory (ObjectSpace.memsize_of, bytes)", ["", "bytes"], mem.map { |n_, b| [n_, b] })
  puts format("bloomc false-positive rate on the absent keys: %.4f%% (target %.4f%% at capacity)",
              100.0 * fp / absent.size, 100.0 * error)
end

puts "bloomc #{Bloomc::VERSION} on ruby #{RUBY_VERSION} (#{RUBY_PLATFORM}), #{`nproc`.strip} cores"
keys = hex_keys(200_000, 1)
absent = hex_keys(200_000, 2)
scenario("cache-resident filter (200k keys at 1%)", capacity: 200_000, error: 0.01,
                                                    present: keys, absent: absent, set_floor: true)
unless ENV["BENCH_LARGE"] == "0"
  keys = hex_keys(2_000_000, 3)
  absent = hex_keys(2_000_000, 4)
  scenario("large filter (sized for 10M keys at 1%, holding 2M)", capacity: 10_000_000, error: 0.01,
                                                                   present: keys, absent: absent, set_floor: false)
end
