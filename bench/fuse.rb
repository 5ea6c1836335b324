# frozen_string_literal: true

# The BinaryFuseFilter part of `rake bench` (issue 21), in the same process
# as the rest: bits a key at 1M keys (8- and 16-bit fingerprints) and the
# rate measured; single-key include? against a BloomFilter of the same keys
# and about the same rate (1/256); and the build from 10M keys against
# add_all of the same keys into that BloomFilter. Integer keys where there
# are millions (they need no memory of their own).
module FuseBench
  module_function

  N = 200_000
  BIG = 10_000_000
  RATE = 1 / 256.0

  def run(rounds:)
    started = now
    puts "\n== BinaryFuseFilter: built once; BloomFilter at #{format('%.2f%%', RATE * 100)} for comparison"
    million = (0...1_000_000).to_a
    absent = (1_000_000...2_000_000).to_a
    bits = [8, 16].to_h do |b|
      f = Bloomc::BinaryFuseFilter.build(million, fingerprint_bits: b)
      [b, [f.bits_per_key, f.count_included(absent).fdiv(absent.size)]]
    end
    print_table("1,000,000 keys: bits a key and the rate on 1,000,000 absent keys", ["fingerprint bits", "bits/key", "FP rate"],
                bits.map { |b, (per, rate)| [b, format("%.3f", per), format("%.4f%%", rate * 100)] })
    times = speed(rounds)
    build = build_time
    puts format("   the fuse part took %.0f s", now - started)
    { bits: bits, times: times, build: build }
  end

  def speed(rounds)
    present = hex_keys(N, 9).each(&:freeze)
    absent = hex_keys(N, 10).each(&:freeze)
    filters = { "bloomc BinaryFuseFilter" => Bloomc::BinaryFuseFilter.build(present),
                "bloomc BloomFilter" => Bloomc::BloomFilter.new(capacity: N, error_rate: RATE).add_all(present) }
    jobs = {}
    filters.each do |name, f|
      jobs[[name, "hit"]] = -> { present.each { |key| f.include?(key) } }
      jobs[[name, "miss"]] = -> { absent.each { |key| f.include?(key) } }
      jobs[[name, "count_included(misses)"]] = -> { f.count_included(absent) }
    end
    times = best_times(jobs, rounds: rounds).transform_values { _1 * 1e9 / N }
    print_table("ns per key over #{N} keys, fastest of #{rounds} interleaved rounds", ["", "hit", "miss", "count_included(misses)"],
                filters.keys.map { |name| [name, *%w[hit miss count_included(misses)].map { |op| format("%.1f", times[[name, op]]) }] })
    times
  end

  # Seconds to build from BIG Integer keys, and to add_all them into a
  # BloomFilter sized for them (each the faster of two).
  def build_time
    keys = (0...BIG).to_a
    fuse = Array.new(2) { GC.start; t = now; Bloomc::BinaryFuseFilter.build(keys); now - t }.min
    bloom = Array.new(2) do
      f = Bloomc::BloomFilter.new(capacity: BIG, error_rate: RATE)
      GC.start
      t = now
      f.add_all(keys)
      now - t
    end.min
    puts format("   #{BIG} keys: BinaryFuseFilter.build %.2f s (%.0f ns/key), BloomFilter#add_all %.2f s (%.0f ns/key)",
                fuse, fuse * 1e9 / BIG, bloom, bloom * 1e9 / BIG)
    { fuse: fuse, bloom: bloom }
  end

  # Rows for the target table (see compare.rb's target_row and ratio_checks).
  def targets(res, div:, row:, checks:)
    bits = res[:bits]
    rows = [row.("1M keys: BinaryFuseFilter bits a key, 8-bit / 16-bit", "<= 9.2 / 18.4",
                 { "8-bit" => [format("%.2f", bits[8][0]), bits[8][0] <= 9.2],
                   "16-bit" => [format("%.2f", bits[16][0]), bits[16][0] <= 18.4] })]
    single = %w[hit miss].to_h { |op| [op, div.(res[:times][["bloomc BinaryFuseFilter", op]], res[:times][["bloomc BloomFilter", op]])] }
    rows << row.("BinaryFuseFilter include? / BloomFilter's (same keys, 1/256)", "<= 1.1x", checks.(single) { _1 <= 1.1 })
    build = div.(res[:build][:fuse], res[:build][:bloom])
    rows << row.("10M keys: BinaryFuseFilter.build / BloomFilter#add_all", "<= 2x", checks.({ "build" => build }) { _1 <= 2 })
    rows
  end
end
