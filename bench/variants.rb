# frozen_string_literal: true

# The libBf family beside BloomFilter, for `rake bench` (bench/compare.rb):
# every variant sized for the same capacity and error rate, timed one key at a
# time on the same keys, in ns/key and ops/s, with its memory and measured
# false-positive rate. Run in the same process as the main table.

VARIANTS = {
  "BloomFilter (reference)" => ->(c, e) { Bloomc::BloomFilter.new(capacity: c, error_rate: e) },
  "CountingBloomFilter w=4" => ->(c, e) { Bloomc::CountingBloomFilter.new(capacity: c, error_rate: e) },
  "SpectralBloomFilter :mi" => ->(c, e) { Bloomc::SpectralBloomFilter.new(capacity: c, error_rate: e, algorithm: :mi) },
  "SpectralBloomFilter :rm" => ->(c, e) { Bloomc::SpectralBloomFilter.new(capacity: c, error_rate: e, algorithm: :rm) },
  "BitwiseBloomFilter w=4" => ->(c, e) { Bloomc::BitwiseBloomFilter.new(capacity: c, error_rate: e) },
  "StableBloomFilter w=3" => ->(c, e) { Bloomc::StableBloomFilter.new(capacity: c, error_rate: e, random_seed: 1) },
  "A2BloomFilter" => ->(c, e) { Bloomc::A2BloomFilter.new(capacity: c, error_rate: e) }
}.freeze

def run_variants(capacity:, present:, absent:, rounds:, error: ERROR)
  puts "\n== the libBf family: each sized for #{capacity} keys at #{format('%g', error * 100)}%, " \
       "holding #{present.size}; #{absent.size} absent keys probed"
  filters = VARIANTS.transform_values do |make|
    make.(capacity, error).tap { |f| present.each { |key| f.add(key) } }
  end
  jobs = { "String#hash loop" => -> { present.each { |key| key.hash } } } # rubocop:disable Style/SymbolProc -- a block, as every job has
  filters.each do |name, f|
    make = VARIANTS[name]
    jobs[[name, "add"]] = [-> { make.(capacity, error) }, ->(fresh) { present.each { |key| fresh.add(key) } }]
    jobs[[name, "hit"]] = -> { present.each { |key| f.include?(key) } }
    jobs[[name, "miss"]] = -> { absent.each { |key| f.include?(key) } }
    jobs[[name, "count"]] = -> { present.each { |key| f.count(key) } } if f.respond_to?(:count)
  end
  times = best_times(jobs, rounds: rounds).transform_values { |s| s * 1e9 / present.size }
  floor = times["String#hash loop"]
  rows = filters.map do |name, f|
    ops = %w[add hit miss count].map { |op| times[[name, op]] }
    fp = absent.count { |key| f.include?(key) }
    bytes = ObjectSpace.memsize_of(f)
    [name, *ops.map { |t| t ? format("%.1f", t) : "-" },
     *ops.values_at(0, 1, 3).map { |t| t ? format("%.1fM", 1e3 / t) : "-" },
     format("%.2fx", ops[0] / floor), bytes, format("%.2f", bytes.fdiv(present.size)),
     format("%.3f%%", 100.0 * fp / absent.size)]
  end
  print_table("ns per key (fastest of #{rounds} rounds) and ops/s; add vs the String#hash loop " \
              "(#{format('%.1f', floor)} ns); memory by ObjectSpace.memsize_of; false positives on #{absent.size} absent keys",
              ["variant", "add ns", "include? hit", "include? miss", "count ns", "add ops/s", "hit ops/s", "count ops/s",
               "add vs hash", "bytes", "B/key", "FP rate"], rows)
  puts "  StableBloomFilter is still on its way to its stable point (#{format('%.2f%%', 100 * filters.values[5].stable_false_positive_rate)}) " \
       "after #{present.size} keys; A2BloomFilter's rate rises to its target as its second half fills"
end
