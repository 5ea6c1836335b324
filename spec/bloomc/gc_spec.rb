# frozen_string_literal: true

require "spec_helper"
require "open3"

# A mixed workload over every class under GC.stress and across compaction:
# every answer must stay right while the GC runs at each allocation and moves
# objects (a missing mark or a stale reference shows up here as a crash or a
# wrong answer).
RSpec.describe "Bloomc under GC pressure" do
  # GC.stress marks the whole heap at each allocation, and the suite's process
  # holds every spec file: there the three GC.stress examples took 7 of the
  # suite's 16 minutes, in a process that loads this file alone well under one.
  # So the suite runs this file in such a process (BLOOMC_GC_STRESS_HERE set),
  # which defines and runs them.
  def self.stress_example(description, &body)
    it(description, :slow, :stress, &body) if ENV["BLOOMC_GC_STRESS_HERE"] == "1"
  end

  unless ENV["BLOOMC_GC_STRESS_HERE"] == "1"
    it "passes its GC.stress examples in a process that loads this file alone", :slow do
      out, status = Open3.capture2e({ "BLOOMC_GC_STRESS_HERE" => "1" }, RbConfig.ruby,
                                    Gem.bin_path("rspec-core", "rspec"), __FILE__, "--tag", "stress")
      expect([status.success?, out[/\d+ examples?, \d+ failures?.*/]]).to eq([true, "3 examples, 0 failures"]), out
    end
  end

  def workload(count)
    keys = Array.new(count) { |i| "key-#{i}-#{'x' * (i % 50)}" }
    filter = Bloomc::BloomFilter.new(capacity: 500, error_rate: 0.01)
    copies = []
    views = []
    keys.each_with_index do |key, i|
      filter << key
      filter << i
      filter << key.to_sym if i.even?
      copies << filter.dup if (i % 10).zero?
      views << filter.bits if (i % 8).zero?
    end
    fields = Array.new(4) { |w| Bloomc::BitBucketField.new(w * 8 + 3, count) }
    fields.each { |f| count.times { |i| f[i] = i % 8 } }
    bits = Bloomc::BitField.new(999)
    (0...999).step(3) { |i| bits.set(i) }
    continuous = Bloomc::ContinuousBloomFilter.new(capacity: count, error_rate: 0.01, ttl: 0)
    keys.each_with_index { |key, i| continuous << key; continuous.inc_time_slot if (i % 7).zero? }
    buckets = continuous.buckets
    # The batch forms read keys out of an Array the GC may move; the blocked
    # filter's bits live in an aligned allocation of their own.
    blocked = Bloomc::BlockedBloomFilter.new(capacity: count, error_rate: 0.01).add_all(keys.map(&:to_sym) + keys)
    batch = Bloomc::BloomFilter.new(capacity: count, error_rate: 0.01).add_all(keys.each_slice(3).map(&:first) + (0...count).to_a)
    { keys: keys, filter: filter, copies: copies, views: views, fields: fields, bits: bits,
      continuous: continuous, continuous_copy: continuous.dup, buckets: buckets,
      blocked: blocked, blocked_copy: blocked.dup, blocked_bits: blocked.bits, batch: batch }
  end

  def check(state)
    expect(state[:keys].all? { |key| state[:filter].include?(key) }).to be(true)
    count = state[:keys].size
    expect((0...count).all? { |i| state[:filter].include?(i) }).to be(true)
    expect(state[:filter].size).to eq(count * 5 / 2)
    state[:copies].each_with_index do |copy, n|
      expect(copy.include?(state[:keys][n * 10])).to be(true)
      expect(copy.size).to eq(n * 10 * 5 / 2 + 3) # 2 adds per key, 1 more for even ones
    end
    state[:views].each { |view| expect(view).to eq(state[:filter].bits) }
    state[:fields].each { |f| expect(f.to_a).to eq(Array.new(count) { |i| i % 8 }) }
    expect(state[:bits].total_set).to eq(333)
    recent = state[:keys].last(7)
    expect(recent.all? { |key| state[:continuous].include?(key) }).to be(true)
    expect(state[:continuous_copy]).to eq(state[:continuous])
    expect(state[:buckets]).to eq(state[:continuous].buckets)
    expect(state[:blocked].count_included(state[:keys])).to eq(count)
    expect(state[:blocked].include_all(state[:keys].map(&:to_sym))).to all(be(true))
    expect(state[:blocked_copy]).to eq(state[:blocked])
    expect(state[:blocked_bits]).to eq(state[:blocked].bits)
    expect(state[:batch].all_include?(state[:keys].each_slice(3).map(&:first) + (0...count).to_a)).to be(true)
    expect(state[:batch].size).to eq((count + 2) / 3 + count)
  end

  stress_example "answers correctly under GC.stress" do
    GC.stress = true
    state = workload(40)
    # Look up under stress too; RSpec's matchers would only slow the run.
    found = state[:keys].map { |key| state[:filter].include?(key) } + state[:copies].map { |c| c.include?("key-0-") }
    found += state[:blocked].include_all(state[:keys]) + [state[:continuous].any_include?(state[:keys].last(3))]
    GC.stress = false
    expect(found).to all(be(true))
    check(state)
  ensure
    GC.stress = false
  end

  it "answers correctly after GC.compact moves the objects" do
    state = workload(400)
    compact_gc
    check(state)
    state[:filter] << "after compaction"
    expect(state[:filter].include?("after compaction")).to be(true)
  end

  # The libBf family: counting cells, RM's second table, the bitwise filter's
  # levels (allocated as counts grow), the stable filter's generator state and
  # A2's two halves, built and read under stress and across compaction.
  def family_workload(count)
    keys = Array.new(count) { |i| "fam-#{i}-#{'y' * (i % 40)}" }
    counting = Bloomc::CountingBloomFilter.new(capacity: count, error_rate: 0.01, width: 3)
    rm = Bloomc::SpectralBloomFilter.new(capacity: count, error_rate: 0.01, algorithm: :rm, width: 2)
    mi = Bloomc::SpectralBloomFilter.new(capacity: count, error_rate: 0.01)
    bitwise = Bloomc::BitwiseBloomFilter.new(capacity: count, error_rate: 0.01, width: 1)
    stable = Bloomc::StableBloomFilter.new(capacity: count, error_rate: 0.01, random_seed: 3)
    a2 = Bloomc::A2BloomFilter.new(capacity: count / 4, error_rate: 0.01)
    keys.each_with_index do |key, i|
      (i % 3 + 1).times { counting << key; rm << key; mi << key; bitwise << key }
      stable << key
      a2 << key
    end
    keys.each_slice(5) { |slice| counting.delete(slice.first); rm.delete(slice.first) }
    { keys: keys, counting: counting, rm: rm, mi: mi, bitwise: bitwise, stable: stable, a2: a2,
      copies: [counting, rm, mi, bitwise, stable, a2].map(&:dup) }
  end

  def check_family(state)
    keys = state[:keys]
    keys.each_with_index do |key, i|
      adds = i % 3 + 1
      deleted = (i % 5).zero? ? 1 : 0
      expect(state[:counting].count(key)).to be >= [adds - deleted, 7].min
      expect(state[:mi].count(key)).to be >= adds
      expect(state[:bitwise].count(key)).to be >= adds
      expect(state[:rm].include?(key)).to be(true) if adds > deleted
    end
    expect(state[:bitwise].levels).to be >= 2
    expect(state[:stable].include_all(keys.last(5))).to all(be(true))
    expect(state[:a2].count_included(keys.last(state[:a2].capacity))).to eq(state[:a2].capacity)
    expect(state[:a2].swaps).to be >= 3
    state[:copies].each_with_index do |copy, n|
      original = state.values_at(:counting, :rm, :mi, :bitwise, :stable, :a2)[n]
      expect(copy).to eq(original)
    end
  end

  stress_example "keeps the libBf family right under GC.stress and across compaction" do
    GC.stress = true
    state = family_workload(30)
    counts = state[:keys].map { |key| state[:bitwise].count(key) }
    GC.stress = false
    expect(counts).to eq(state[:keys].each_index.map { |i| state[:bitwise].count(state[:keys][i]) })
    check_family(state)
    compact_gc
    check_family(state)
    bigger = family_workload(300)
    compact_gc
    check_family(bigger)
  ensure
    GC.stress = false
  end

  # Scalable filters grow their layer table as keys come (reallocated a
  # layer at a time), copy layers into a union, and put a refused batch back.
  def scalable_workload(keys)
    count = keys.size
    build = -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1) }
    grown = build.call
    copies = []
    keys.each_with_index do |key, i|
      grown.add?(key)
      grown << i
      copies << grown.dup if (i % 9).zero?
    end
    batch = build.call.add_all(keys)
    capped = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1, max_capacity: count)
    capped.add_all(keys)
    refused = begin
      capped.add_all((0...count).to_a)
    rescue Bloomc::CapacityError
      :refused
    end
    union = build.call.add_all(keys.first(3)) | grown
    { keys: keys, grown: grown, copies: copies, batch: batch, capped: capped, refused: refused, union: union }
  end

  def check_scalable(state)
    keys = state[:keys]
    count = keys.size
    expect(state[:grown].all_include?(keys + (0...count).to_a)).to be(true)
    expect(state[:grown].size).to eq(2 * count)
    expect(state[:grown].layers.size).to be > 4
    state[:copies].each_with_index do |copy, n|
      expect(copy.size).to eq(n * 9 * 2 + 2)
      expect(copy.all_include?(keys.first(n * 9 + 1))).to be(true)
    end
    expect(state[:batch].count_included(keys)).to eq(count)
    expect([state[:refused], state[:capped].size, state[:capped].count_included(keys)]).to eq([:refused, count, count])
    expect(state[:union].all_include?(keys + (0...count).to_a)).to be(true)
    expect(Bloomc.load(state[:grown].dump(compress: true))).to eq(state[:grown])
  end

  stress_example "keeps scalable filters right under GC.stress and across compaction" do
    keys = Array.new(20) { |i| "sc-#{i}-#{'z' * (i % 30)}" }
    GC.stress = true
    state = scalable_workload(keys)
    found = keys.map { |key| state[:grown].include?(key) } + state[:union].include_all(keys)
    GC.stress = false
    expect(found).to all(be(true))
    check_scalable(state)
    compact_gc
    check_scalable(state)
    bigger = scalable_workload(Array.new(500) { |i| "sc-#{i}-#{'z' * (i % 30)}" })
    compact_gc
    check_scalable(bigger)
  ensure
    GC.stress = false
  end

  it "views keep their filter alive across collections and compaction" do
    views = Array.new(20) { |i| Bloomc::BloomFilter.new(512, 2).tap { |f| f << i }.bits }
    GC.start
    compact_gc
    GC.start
    expect(views.map(&:total_set)).to all(be_between(1, 2))
  end
end
