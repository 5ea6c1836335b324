# frozen_string_literal: true

require "spec_helper"

# A mixed workload over every class under GC.stress and across compaction:
# every answer must stay right while the GC runs at each allocation and moves
# objects (a missing mark or a stale reference shows up here as a crash or a
# wrong answer).
RSpec.describe "Bloomc under GC pressure" do
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

  it "answers correctly under GC.stress" do
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

  it "views keep their filter alive across collections and compaction" do
    views = Array.new(20) { |i| Bloomc::BloomFilter.new(512, 2).tap { |f| f << i }.bits }
    GC.start
    compact_gc
    GC.start
    expect(views.map(&:total_set)).to all(be_between(1, 2))
  end
end
