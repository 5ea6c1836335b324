# frozen_string_literal: true

# The JavaScript reader (js/) against Ruby: BloomFilters (hash 0, and hash
# 2: :murmur3_mixed) and a BlockedBloomFilter of 1,000,000 keys at 1%, saved
# to a temporary directory; node times has() over 1,000,000 40-byte String
# keys (the keys added, then as many absent ones) in js/bench/lookups.js,
# and this process times include? over the same keys, one call a key. Prints lookups a second
# for both and their ratio. node runs pinned to one core (`taskset -c 1`)
# when taskset is there.
#
#   ruby -Ilib bench/js_reader.rb
#   JS_BENCH_KEYS=1000000  JS_BENCH_ROUNDS=5  NODE=node
#
# Issue 22's target: has() at 3,000,000 lookups a second or more.

require "json"
require "open3"
require "tmpdir"
require "bloomc"
require_relative "support"

# Run with JsReaderBench.run(rounds:); returns {kind => {hits: [js, ruby], misses: [js, ruby]}}.
module JsReaderBench
  module_function

  extend BenchSupport

  KEYS = Integer(ENV.fetch("JS_BENCH_KEYS", "1000000"))
  NODE = ENV.fetch("NODE", "node")
  SCRIPT = File.expand_path("../js/bench/lookups.js", __dir__)
  TARGET = 3_000_000

  # As js/bench/lookups.js makes them: the prefix, then the index zero-padded to 40 bytes.
  def keys(prefix) = Array.new(KEYS) { |i| prefix + i.to_s.rjust(40 - prefix.size, "0") }

  def filters
    {
      "BloomFilter" => Bloomc::BloomFilter.new(capacity: KEYS, error_rate: 0.01),
      "BloomFilter mixed" => Bloomc::BloomFilter.new(capacity: KEYS, error_rate: 0.01, hash: :murmur3_mixed),
      "BlockedBloomFilter" => Bloomc::BlockedBloomFilter.new(capacity: KEYS, error_rate: 0.01)
    }
  end

  # {file => lookups a second} from node, for the keys of prefix.
  def node_rates(files, prefix, rounds)
    pin = system("taskset -c 1 true", err: File::NULL) ? %w[taskset -c 1] : []
    command = [*pin, NODE, SCRIPT, "--keys", KEYS.to_s, "--prefix", prefix, "--rounds", rounds.to_s, *files]
    out, status = Open3.capture2e(*command)
    raise "#{command.join(' ')} failed:\n#{out}" unless status.success?

    out.lines.to_h do |line|
      result = JSON.parse(line)
      [result["file"], result]
    end
  end

  # Lookups a second of include? over keys, the best of rounds.
  def ruby_rate(filter, keys, rounds)
    best = best_times({ include: -> { keys.each { |key| filter.include?(key) } } }, rounds: rounds)[:include]
    keys.size / best
  end

  def run(rounds:)
    abort "#{NODE} is not installed: the JavaScript reader needs Node 18 or later" unless system("#{NODE} --version", out: File::NULL)

    puts "\n== The JavaScript reader: has() in Node (#{`#{NODE} --version`.strip}, one core) against include? in Ruby"
    added = keys("in-")
    absent = keys("out-")
    results = {}
    Dir.mktmpdir do |dir|
      made = filters.to_h do |name, filter|
        filter.add_all(added)
        path = File.join(dir, "#{name}.bloom")
        filter.save(path)
        [name, [filter, path]]
      end
      files = made.values.map(&:last)
      { hits: [added, "in-"], misses: [absent, "out-"] }.each do |which, (keys, prefix)|
        js = node_rates(files, prefix, rounds)
        made.each do |name, (filter, path)|
          found = filter.count_included(keys)
          raise "node found #{js[path]['found']} of the #{which}, Ruby #{found}" unless js[path]["found"] == found

          (results[name] ||= {})[which] = [js[path]["lookups_per_second"], ruby_rate(filter, keys, rounds)]
        end
      end
    end
    print_results(results)
    results
  end

  def print_results(results)
    rows = results.flat_map do |name, by|
      by.map do |which, (js, ruby)|
        [name, which, format("%.2fM", js / 1e6), format("%.2fM", ruby / 1e6), format("%.2f", js / ruby),
         js >= TARGET ? "yes" : "NO"]
      end
    end
    print_table("#{KEYS} lookups of 40-byte String keys, a filter of #{KEYS} keys at 1%",
                ["filter", "keys", "JS has()/s", "Ruby include?/s", "JS / Ruby", ">= 3M/s"], rows, left: 2)
  end
end

JsReaderBench.run(rounds: Integer(ENV.fetch("JS_BENCH_ROUNDS", "5"))) if $PROGRAM_NAME == __FILE__
