# frozen_string_literal: true

# The measurements behind the batch prefault's rule and Bloomc.use_huge_pages!
# (docs/PERFORMANCE.md). Run with a release build:
#
#   ruby -Ilib bench/prefault.rb          # commit vs demand faults, then both page sizes
#   ruby -Ilib bench/prefault.rb rule     # only the first
#   ruby -Ilib bench/prefault.rb sizes [huge]  # one process's table (huge: use_huge_pages! first)
#   ruby -Ilib bench/prefault.rb fill [huge]   # only the first-fill ratio
#
# Each time is the best of 3.
require "bloomc"
require_relative "support"

PAGE = 4096
ROUNDS = 3

def best(rounds = ROUNDS)
  Array.new(rounds) do
    GC.start
    yield
  end.min
end

def timed
  started = BenchSupport.now
  yield
  BenchSupport.now - started
end

# 25-byte keys, distinct for distinct i.
def keys(from, count)
  Array.new(count) { |i| format("key-%021d", from + i) }
end

# What a bulk commit costs per page against a demand fault, and the fraction
# of a fresh filter's pages a batch must touch before committing them all
# first is cheaper: one add at a time (no batch, so no automatic prefault),
# the same keys into a fresh filter left lazy and into one prefaulted first.
def rule
  rows = []
  [256 << 20, 1 << 30].each do |bytes|
    pages = bytes / PAGE
    commit = best { timed { Bloomc::BlockedBloomFilter.new(bytes * 8, 7).prefault! } }
    [0.1, 0.3, 0.5, 0.7].each do |fraction|
      n = (-Math.log(1 - fraction) * pages).round # a blocked filter's key touches one page
      ks = keys(0, n)
      lazy = best { f = Bloomc::BlockedBloomFilter.new(bytes * 8, 7); timed { ks.each { |k| f.add(k) } } }
      eager = best { timed { f = Bloomc::BlockedBloomFilter.new(bytes * 8, 7).prefault!; ks.each { |k| f.add(k) } } }
      warm = best { f = Bloomc::BlockedBloomFilter.new(bytes * 8, 7).prefault!; timed { ks.each { |k| f.add(k) } } }
      fault_us = (lazy - warm) / (fraction * pages) * 1e6
      rows << ["#{bytes >> 20} MiB", fraction, n, format("%.3f", commit), format("%.2f", commit / pages * 1e6),
               format("%.2f", fault_us), format("%.3f", lazy), format("%.3f", eager), eager < lazy ? "commit" : "lazy"]
    end
  end
  BenchSupport.print_table("Bulk commit vs demand faults (fresh BlockedBloomFilter, one add at a time)",
                           ["cells", "pages touched", "keys", "commit s", "commit us/page", "fault us/page",
                            "lazy s", "commit+adds s", "faster"], rows)
end

def rss_huge_kb
  File.read("/proc/self/smaps_rollup")[/AnonHugePages:\s+(\d+)/, 1].to_i
end

# Per-key costs at 256 MiB and 1 GiB, and the first-fill ratio of issue 24.
def sizes(huge)
  Bloomc.use_huge_pages! if huge
  batch = keys(0, 2_000_000)
  misses = keys(50_000_000, 2_000_000)
  singles = misses.first(500_000)
  rows = []
  [[Bloomc::BloomFilter, 256 << 20], [Bloomc::BlockedBloomFilter, 256 << 20],
   [Bloomc::BloomFilter, 1 << 30], [Bloomc::BlockedBloomFilter, 1 << 30]].each do |klass, bytes|
    filter = klass.new(bytes * 8, 7, prefault: true)
    filter.add_all(batch)
    add_all = best { timed { filter.add_all(batch) } } / batch.size * 1e9
    count = best { timed { filter.count_included(misses) } } / misses.size * 1e9
    include = best { timed { singles.each { |k| filter.include?(k) } } } / singles.size * 1e9
    add = best { timed { singles.each { |k| filter.add(k) } } } / singles.size * 1e9
    rows << [klass.name.split("::").last, "#{bytes >> 20} MiB", add_all.round(1), count.round(1), include.round(1),
             add.round(1), rss_huge_kb >> 10]
    filter = nil
    GC.start # the cells go before the next size's
  end
  BenchSupport.print_table("ns/key, #{huge ? 'huge pages (use_huge_pages!)' : '4 KiB pages'} (THP_enabled: " \
                           "#{File.read('/proc/self/status')[/THP_enabled:\s+(\d)/, 1]})",
                           ["filter", "cells", "add_all", "count_included miss", "include? miss", "add", "AnonHuge MiB"], rows)
  first_fill(huge)
end

# A fresh 1 GiB blocked filter: add_all of 4M keys, then of the next 4M.
def first_fill(huge)
  first = keys(0, 4_000_000)
  second = keys(4_000_000, 4_000_000)
  runs = Array.new(ROUNDS) do
    GC.start
    filter = Bloomc::BlockedBloomFilter.new(1 << 33, 7)
    a = timed { filter.add_all(first) }
    b = timed { filter.add_all(second) }
    [a, b]
  end
  shown = runs.map { |a, b| format("%.3f s / %.3f s = %.2fx", a, b, a / b) }
  puts "First fill of a fresh 1 GiB BlockedBloomFilter (#{huge ? 'huge pages' : '4 KiB pages'}), " \
       "add_all of 4M keys vs the next 4M: #{shown.join('; ')}"
end

case ARGV[0]
when "rule" then rule
when "sizes" then sizes(ARGV[1] == "huge")
when "fill"
  Bloomc.use_huge_pages! if ARGV[1] == "huge"
  first_fill(ARGV[1] == "huge")
else
  rule
  [nil, "huge"].each { |mode| system(RbConfig.ruby, "-I#{File.expand_path('../lib', __dir__)}", __FILE__, "sizes", *mode) }
end
