# frozen_string_literal: true

# bloomc's ContinuousBloomFilter against bloombroom's and against floors
# measured in the same process (an empty loop over the keys and a loop calling
# String#hash on them), its memory, and the cost of one clock tick (the sweep
# that clears expired buckets) on large filters. Run by `bundle exec rake bench`
# (after bench/bloom_filter.rb) or alone with `bundle exec rake bench:continuous`.
#
#   BENCH_ROUNDS=5   rounds per measurement (the fastest round is kept)
#   BENCH_LARGE=0    skip the 100M-bucket sweep

require "objspace"
require "bloomc"
require_relative "support"

include BenchSupport

ROUNDS = Integer(ENV.fetch("BENCH_ROUNDS", "5"))
# Not "bloomc/bloombroom": it would clash with the real Bloombroom namespace.
HAVE_BLOOMBROOM = load_peer("bloombroom")           # Bloombroom::ContinuousBloomFilter (pure Ruby + FFI FNV)
BLOOMBROOM_SAMPLE = 20_000 # bloombroom takes microseconds a key; time it on a sample
SPEEDUP_TARGET = 15.0      # bloomc should do at least 15x bloombroom's ops/s

CAPACITY = 150_000
ERROR = 0.01

def ns(seconds, count) = seconds * 1e9 / count

puts "bloomc #{Bloomc::VERSION} on ruby #{RUBY_VERSION} (#{RUBY_PLATFORM}), #{`nproc`.strip} cores"

# ---------------------------------------------------------------- add, include?
present = hex_keys(CAPACITY, 21)
absent = hex_keys(CAPACITY, 22)
n = present.size
m, k = Bloomc::BloomHelper.find_m_k(CAPACITY, ERROR)
puts "\n== ContinuousBloomFilter for #{CAPACITY} keys at #{ERROR * 100}%: m=#{m} 4-bit buckets " \
     "(#{(m / 2.0 / 1024).round} KiB), k=#{k}, ttl=0 (no timer), #{n} keys added, #{absent.size} absent keys probed"

bloomc = Bloomc::ContinuousBloomFilter.new(m, k, 0)
present.each { |key| bloomc << key }
jobs = {
  "empty loop" => -> { present.each { |key| key } },
  # A block, like every other job (each(&:hash) would skip the block call).
  "String#hash loop" => -> { present.each { |key| key.hash } },
  "bloomc add" => -> { f = Bloomc::ContinuousBloomFilter.new(m, k, 0); present.each { |key| f.add(key) } },
  "bloomc include? (hits)" => -> { present.each { |key| bloomc.include?(key) } },
  "bloomc include? (misses)" => -> { absent.each { |key| bloomc.include?(key) } },
}
times = best_times(jobs, rounds: ROUNDS).transform_values { |t| ns(t, n) }
times["bloomc include? (misses)"] *= n.fdiv(absent.size)

if HAVE_BLOOMBROOM
  sample = present.first(BLOOMBROOM_SAMPLE)
  bb_absent = absent.first(BLOOMBROOM_SAMPLE)
  bb = Bloombroom::ContinuousBloomFilter.new(m, k, 0)
  sample.each { |key| bb.add(key) }
  bb_rounds = [ROUNDS / 2, 1].max
  bb_times = best_times({
    "bloombroom add" => -> { f = Bloombroom::ContinuousBloomFilter.new(m, k, 0); sample.each { |key| f.add(key) } },
    "bloombroom include? (hits)" => -> { sample.each { |key| bb.include?(key) } },
    "bloombroom include? (misses)" => -> { bb_absent.each { |key| bb.include?(key) } },
  }, rounds: bb_rounds)
  times.merge!(bb_times.transform_values { |t| ns(t, sample.size) })
end

floor = times["String#hash loop"]
rows = times.map { |name, t| [name, format("%.1f", t), format("%.2fx", t / floor)] }
bb_note = HAVE_BLOOMBROOM ? "; bloombroom on a #{BLOOMBROOM_SAMPLE}-key sample, fastest of #{bb_rounds}" : ""
print_table("ns per key (fastest of #{ROUNDS} rounds#{bb_note}); ratio to the String#hash loop",
            ["", "ns/key", "vs hash"], rows)

failed = []
ratios = []
["add", "include? (hits)", "include? (misses)"].each do |op|
  ours = times["bloomc #{op}"]
  if HAVE_BLOOMBROOM
    speedup = times["bloombroom #{op}"] / ours
    ok = speedup >= SPEEDUP_TARGET
    failed << op unless ok
    ratios << ["#{op}: bloombroom / bloomc", format("%.1fx", speedup),
               "#{ok ? 'holds' : 'DOES NOT HOLD'} (target >= #{SPEEDUP_TARGET.round}x)"]
  end
  ratios << ["#{op}: bloomc / String#hash loop", format("%.2fx", ours / floor), ""]
end
print_table("speed-ups (how many times bloombroom's ops/s bloomc does)", ["", "ratio", "target"], ratios)
if HAVE_BLOOMBROOM
  puts(failed.empty? ? "speed-up target (>= #{SPEEDUP_TARGET.round}x bloombroom) holds for add and include?" :
                       "speed-up target (>= #{SPEEDUP_TARGET.round}x bloombroom) DOES NOT HOLD for: #{failed.join(', ')}")
end

fp = absent.count { |key| bloomc.include?(key) }
mem = [["bloomc (ObjectSpace.memsize_of)", ObjectSpace.memsize_of(bloomc)],
       ["  m / 2 (4 bits a bucket)", m / 2]]
if HAVE_BLOOMBROOM
  mem << ["bloombroom (filter + its Arrays, deep_memsize)", deep_memsize(Bloombroom::ContinuousBloomFilter.new(m, k, 0))]
end
print_table("memory (bytes)", ["", "bytes"], mem)
if HAVE_BLOOMBROOM
  puts format("bloombroom holds %.2fx bloomc's bytes", mem.last[1].fdiv(mem.first[1]))
end
puts format("bloomc false-positive rate on the absent keys: %.4f%% (target %.4f%% at capacity)",
            100.0 * fp / absent.size, 100.0 * ERROR)

# ---------------------------------------------------------------- the sweep
# One inc_time_slot advances the ring clock and rewrites every 8-byte word of
# buckets that holds a slot the tick expires. The filter is filled over 3 ticks
# with Integer keys until about half its buckets are set (n * k = m ln 2), so
# the tick sees: half the buckets empty, a third of the others (the oldest
# slot) expiring and being cleared, the rest kept. Each round ticks a fresh dup
# of that filter (dup copies the bytes, so the pages are resident), so every
# round sweeps the same state.
SWEEP_K = 7
SWEEP_FILL_TICKS = 3
sizes = [1_000_000, 10_000_000]
sizes << 100_000_000 unless ENV["BENCH_LARGE"] == "0"
puts "\n== one tick (inc_time_slot: advance the clock and sweep every bucket), k=#{SWEEP_K}, " \
     "filled over #{SWEEP_FILL_TICKS} ticks to about half full"
sweep_rows = sizes.map do |buckets|
  filter = Bloomc::ContinuousBloomFilter.new(buckets, SWEEP_K, 0)
  keys_per_tick = (buckets * Math.log(2) / SWEEP_K / SWEEP_FILL_TICKS).round
  next_key = 0
  SWEEP_FILL_TICKS.times do |i|
    filter.inc_time_slot unless i.zero?
    stop = next_key + keys_per_tick
    while next_key < stop
      filter << next_key
      next_key += 1
    end
  end
  set_before = filter.buckets.total_set
  rounds = buckets >= 100_000_000 ? 5 : 11
  best = Float::INFINITY
  set_after = nil
  rounds.times do
    copy = nil
    GC.start
    copy = filter.dup
    started = now
    copy.inc_time_slot
    best = [best, now - started].min
    set_after ||= copy.buckets.total_set
  end
  [buckets.to_s.reverse.scan(/\d{1,3}/).join(",").reverse,
   format("%.1f", buckets / 2.0 / 1024 / 1024),
   format("%.1f%%", 100.0 * set_before / buckets),
   format("%.1f%%", 100.0 * (set_before - set_after) / buckets),
   rounds,
   format("%.3f", best * 1e3),
   format("%.3f", best * 1e9 / buckets),
   format("%.1f", buckets / 2.0 / best / 1e9)]
end
print_table("ms per tick (fastest of the rounds)",
            ["buckets", "MiB", "set", "expired", "rounds", "ms/tick", "ns/bucket", "GB/s"], sweep_rows)
puts "(bloombroom's inc_time_slot only moves the clock: it expires buckets lazily when include? reads them, " \
     "so its stale slots can look live again when the 15-slot ring wraps)"
