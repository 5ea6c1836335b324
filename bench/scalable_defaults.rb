# frozen_string_literal: true

# `bundle exec rake bench:scalable`: the measurements behind
# ScalableBloomFilter's defaults (docs/FILTERS.md, "The scalable filter").
#
#   schedules         how the error budget is shared between layers: the
#                     paper's (even_layers: 0, tightening: 0.85) and bloomc's
#                     candidates, each grown with Integer keys to 2047 times
#                     its initial capacity; bytes over a BloomFilter sized for
#                     the count whenever the newest layer is full, and the
#                     false-positive rate at the end
#   initial capacity  bytes of a filter holding 100 keys, and ns per lookup
#                     (hits and misses) at 1M keys, for several first layers
#
# A filter's layers are what the class builds; nothing is computed on the
# side. Runs in about a minute.

require "bloomc"
require "objspace"
require_relative "support"

include BenchSupport

ERROR = 0.01
INITIAL = 8192

def presized(count) = ObjectSpace.memsize_of(Bloomc::BloomFilter.new(capacity: count, error_rate: ERROR))

schedules = {
  "paper: even_layers 0, tightening 0.85" => { even_layers: 0, tightening: 0.85 },
  "even_layers 8, tightening 0.8" => { even_layers: 8, tightening: 0.8 },
  "even_layers 10, tightening 0.5" => { even_layers: 10, tightening: 0.5 },
  "even_layers 10, tightening 0.8 (default)" => { even_layers: 10, tightening: 0.8 },
  "even_layers 12, tightening 0.8" => { even_layers: 12, tightening: 0.8 }
}
layers_shown = [1, 4, 7, 10, 11]
absent = (-200_000...0).to_a
rows = schedules.map do |name, options|
  filter = Bloomc::ScalableBloomFilter.new(error_rate: ERROR, initial_capacity: INITIAL, **options)
  added = 0
  ratios = (1..layers_shown.max).to_h do |layers|
    added = add_integers(filter, added, INITIAL * (2**layers - 1))
    [layers, ObjectSpace.memsize_of(filter).fdiv(presized(added))]
  end
  at_million = Bloomc::ScalableBloomFilter.new(error_rate: ERROR, initial_capacity: INITIAL, **options)
  add_integers(at_million, 0, 1_000_000)
  rate = filter.count_included(absent).fdiv(absent.size)
  [name, *layers_shown.map { |l| format("%.2fx", ratios[l]) }, format("%.2f", ObjectSpace.memsize_of(at_million) * 8e-6),
   format("%.3f%%", rate * 100)]
end
print_table("error schedules, from #{INITIAL} at #{format('%g', ERROR * 100)}%: bytes over a BloomFilter sized for the count " \
            "when the newest layer is full, bits a key at 1M keys, and the false-positive rate at #{INITIAL * 2047} keys",
            ["schedule", *layers_shown.map { |l| "#{l} layers" }, "bits/key @1M", "FP rate"], rows)

keys = hex_keys(1_000_000, 11).each(&:freeze)
misses = hex_keys(200_000, 12).each(&:freeze)
rows = [1024, 4096, 8192, 16_384, 65_536, 262_144].map do |initial|
  small = Bloomc::ScalableBloomFilter.new(error_rate: ERROR, initial_capacity: initial).add_all(keys.first(100))
  big = Bloomc::ScalableBloomFilter.new(error_rate: ERROR, initial_capacity: initial).add_all(keys)
  hits = keys.first(200_000)
  times = best_times({ hit: -> { hits.each { |key| big.include?(key) } },
                       miss: -> { misses.each { |key| big.include?(key) } } }, rounds: 5)
  [initial, ObjectSpace.memsize_of(small), big.layers.size, format("%.2f", ObjectSpace.memsize_of(big) * 8e-6),
   format("%.1f", times[:hit] * 1e9 / hits.size), format("%.1f", times[:miss] * 1e9 / misses.size)]
end
print_table("initial capacity at #{format('%g', ERROR * 100)}%: bytes holding 100 keys; at 1M keys its layers, bits a key, " \
            "and ns per include? (fastest of 5 rounds)",
            ["initial_capacity", "bytes @100", "layers @1M", "bits/key @1M", "hit ns", "miss ns"], rows)
