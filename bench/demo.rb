# frozen_string_literal: true

# The main job, end to end: a filter sized for a million URLs at a 1% error
# rate, filled from a crawl-like stream, then asked about every URL it holds and
# a million it never saw, one key at a time and then in batches. Prints the
# measured false-positive rate against the target, the speed, and the memory
# against a Set of the same keys.
# Run with `bundle exec rake demo:library` (DEMO_KEYS=n for another size).

require "set"
require "objspace"
require "bloomc"

count = Integer(ENV.fetch("DEMO_KEYS", "1000000"))
target = 0.01
rng = Random.new(2026)
hosts = Array.new(2_000) { |i| "https://#{%w[shop news blog docs api][i % 5]}-#{i}.example.org" }
url = ->(n) { "#{hosts[n % hosts.size]}/items/#{n}?ref=#{rng.rand(1 << 30).to_s(36)}" }

puts "generating #{count} crawled URLs and #{count} never-seen ones..."
seen = Array.new(count) { |n| url.(n) }
unseen = Array.new(count) { |n| url.(count + n) }

def timed
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  yield
  Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
end

filter = Bloomc::BloomFilter.new(capacity: count, error_rate: target)
add_time = timed { seen.each { |u| filter << u } }
hits = 0
hit_time = timed { seen.each { |u| hits += 1 if filter.include?(u) } }
false_positives = 0
miss_time = timed { unseen.each { |u| false_positives += 1 if filter.include?(u) } }
# The same work in batches: one call for all the keys.
batched = Bloomc::BloomFilter.new(capacity: count, error_rate: target)
add_all_time = timed { batched.add_all(seen) }
batch_hits = batch_fps = nil
count_time = timed do
  batch_hits = batched.count_included(seen)
  batch_fps = batched.count_included(unseen)
end
set_bytes = ObjectSpace.memsize_of(Set.new(seen).instance_variable_get(:@hash))
key_bytes = seen.sum { |u| ObjectSpace.memsize_of(u) }

rate = false_positives.fdiv(count)
puts format("filter: m=%d bits, k=%d, %d keys added", filter.m, filter.k, filter.size)
puts format("false negatives: %d of %d added keys (must be 0)", count - hits, count)
puts format("false-positive rate: %.4f%% measured over %d unseen keys, target %.4f%% (%.2fx)",
            100 * rate, count, 100 * target, rate / target)
puts format("add:      %9.0f keys/s (%.0f ns/key)", count / add_time, add_time * 1e9 / count)
puts format("include?: %9.0f keys/s on hits, %.0f keys/s on misses", count / hit_time, count / miss_time)
puts format("batches:  add_all %.0f keys/s, count_included %.0f keys/s (same answers: %s)",
            count / add_all_time, 2 * count / count_time, batched == filter && batch_hits == count && batch_fps == false_positives)
puts format("memory:   %.2f MiB for the filter (%.1f bits/key); a Set needs %.2f MiB for its table " \
            "plus %.2f MiB for the keys", ObjectSpace.memsize_of(filter) / 1_048_576.0,
            ObjectSpace.memsize_of(filter) * 8.0 / count, set_bytes / 1_048_576.0, key_bytes / 1_048_576.0)
exit(1) unless hits == count && batch_hits == count && batch_fps == false_positives
