# frozen_string_literal: true

require "spec_helper"

# Live statistics against known inserts: at half capacity the estimated count
# is within 5% of the distinct keys added, and the false-positive rate read
# from the fill is within 25% of the rate measured on 200,000 never-added
# keys (the keys are fixed, so the run is deterministic).
RSpec.describe "live statistics" do
  capacity = 20_000
  builders = Kinds.sized_builders(capacity, 0.01, {
    "BloomFilter" => {}, "BloomFilter (fnv1a)" => {}, "BlockedBloomFilter" => {}, "ContinuousBloomFilter" => {},
    "CountingBloomFilter" => {}, "SpectralBloomFilter (RM)" => {}, "BitwiseBloomFilter" => { width: 1 },
    "A2BloomFilter" => {}
  })
  distinct = capacity / 2
  keys = Array.new(distinct) { |i| "stat-#{i}" }.freeze
  misses = Array.new(200_000) { |i| "never-#{i}" }.freeze

  builders.each do |name, build|
    describe name do
      it "starts empty: no fill, no keys, no false positives" do
        filter = build.call
        expect([filter.fill_ratio, filter.estimated_count, filter.false_positive_rate]).to eq([0.0, 0.0, 0.0])
        expect(filter.inspect).to end_with(" fill=0.0% fpr~0>")
      end

      it "estimates the distinct keys within 5% at half capacity, repeats counted once" do
        filter = build.call
        filter.add_all(keys)
        filter.add_all(keys.first(distinct / 2)) # repeats: size grows, the estimate must not
        estimate = filter.estimated_count
        expect(estimate).to be_a(Float)
        expect(estimate).to be_within(0.05 * distinct).of(distinct)
        expect(filter.size).to eq(distinct * 3 / 2) unless filter.is_a?(Bloomc::ContinuousBloomFilter)
      end

      it "reads a false-positive rate from the fill within 25% of the measured one" do
        filter = build.call
        filter.add_all(keys)
        filter.add_all(Array.new(distinct / 2) { |i| "more-#{i}" }) # 75% of capacity: rates high enough to measure
        measured = filter.count_included(misses).fdiv(misses.size)
        expect(measured).to be > 0.0005
        expect(filter.false_positive_rate).to be_within(0.25 * measured).of(measured)
        expect(filter.fill_ratio).to be_between(0.2, 0.6)
      end

      it "shows m, k, size-like fields, fill and rate in a short inspect" do
        filter = build.call
        filter.add_all(keys)
        text = filter.inspect
        expect(text).to match(/\A#<Bloomc::\w+ m=#{filter.m} k=#{filter.k} .*fill=\d+\.\d% fpr~[\d.e-]+>\z/)
        expect(text.size).to be < 160
        expect(text).to include(format("fill=%.1f%%", filter.fill_ratio * 100))
      end
    end
  end

  # A cuckoo filter counts its fingerprints exactly; its rate is read from its
  # load (each of a key's 2 x 4 slots matches with chance 1 / (2**f - 1)).
  describe "CuckooFilter" do
    build = -> { Bloomc::CuckooFilter.new(capacity: capacity, error_rate: 0.01) }

    it "starts empty, and counts its keys exactly, a repeat as a copy" do
      filter = build.call
      expect([filter.fill_ratio, filter.estimated_count, filter.false_positive_rate]).to eq([0.0, 0, 0.0])
      filter.add_all(keys)
      filter.add_all(keys.first(100))
      expect([filter.estimated_count, filter.size]).to eq([distinct + 100, distinct + 100])
      expect(filter.fill_ratio).to eq(filter.load_factor)
      expect(filter.load_factor).to be_within(1e-12).of((distinct + 100).fdiv(filter.m))
    end

    it "reads a false-positive rate within 25% of the measured one at 75% of capacity" do
      filter = build.call
      filter.add_all(keys)
      filter.add_all(Array.new(distinct / 2) { |i| "more-#{i}" })
      measured = filter.count_included(misses).fdiv(misses.size)
      expect(measured).to be > 0.0005
      expect(filter.false_positive_rate).to be_within(0.25 * measured).of(measured)
    end
  end

  # A scalable filter's statistics are over its layers; at half its last
  # layer's capacity, several layers deep.
  describe "ScalableBloomFilter" do
    build = -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1000) }
    scalable_keys = Array.new(11_000) { |i| "stat-#{i}" }.freeze # layers of 1000, 2000, 4000 and 4000 of 8000

    it "starts empty: no fill, no keys, no false positives" do
      filter = build.call
      expect([filter.fill_ratio, filter.estimated_count, filter.false_positive_rate]).to eq([0.0, 0.0, 0.0])
      expect(filter.inspect).to end_with(" fpr~0>")
    end

    it "estimates the distinct keys within 5% over all layers, repeats counted once" do
      filter = build.call
      filter.add_all(scalable_keys)
      filter.add_all(scalable_keys.first(5000))
      expect(filter.layers.size).to eq(4)
      expect(filter.estimated_count).to be_a(Float)
      expect(filter.estimated_count).to be_within(0.05 * 11_000).of(11_000)
      expect(filter.size).to eq(16_000)
    end

    it "reads a false-positive rate from the layers' fill within 25% of the measured one" do
      filter = build.call
      filter.add_all(scalable_keys)
      measured = filter.count_included(misses).fdiv(misses.size)
      expect(measured).to be > 0.001
      expect(filter.false_positive_rate).to be_within(0.25 * measured).of(measured)
      expect(filter.fill_ratio).to be_between(0.2, 0.6)
    end
  end

  it "counts the bits set exactly" do
    filter = Bloomc::BloomFilter.new(1000, 3)
    100.times { |i| filter << i }
    expect(filter.fill_ratio).to eq(filter.bits.total_set / 1000.0)
    expect(filter.false_positive_rate).to eq((filter.bits.total_set / 1000.0)**3)
    expect(filter.estimated_count).to eq(-(1000.0 / 3) * Math.log(1 - filter.bits.total_set / 1000.0))
  end

  it "estimates Infinity once every bit is set" do
    filter = Bloomc::BloomFilter.new(8, 2)
    200.times { |i| filter << i }
    expect(filter.fill_ratio).to eq(1.0)
    expect(filter.estimated_count).to eq(Float::INFINITY)
    expect(filter.false_positive_rate).to eq(1.0)
  end

  it "counts only live buckets of a continuous filter: expired keys leave the estimate" do
    filter = Bloomc::ContinuousBloomFilter.new(capacity: capacity, error_rate: 0.01, ttl: 0)
    filter.add_all(keys)
    filter.inc_time_slot
    filter.add_all(Array.new(1000) { |i| "late-#{i}" })
    expect(filter.estimated_count).to be_within(0.05 * (distinct + 1000)).of(distinct + 1000)
    2.times { filter.inc_time_slot } # the first batch has expired, the late keys are live
    expect(filter.estimated_count).to be_within(50).of(1000)
  end

  it "counts both halves of an A2 filter, and only them after a swap" do
    filter = Bloomc::A2BloomFilter.new(capacity: 1000, error_rate: 0.01)
    filter.add_all(Array.new(2500) { |i| "a2-#{i}" }) # two swaps: the halves hold 1000 and 500 keys
    expect(filter.swaps).to eq(2)
    expect(filter.estimated_count).to be_within(75).of(1500)
  end

  it "estimates a stable filter's keys below the stream it has seen, at its settled fill" do
    filter = Bloomc::StableBloomFilter.new(capacity: 5000, error_rate: 0.01, random_seed: 7)
    filter.add_all(Array.new(100_000) { |i| "s-#{i}" })
    expect(filter.fill_ratio).to be_within(0.01).of(1 - filter.stable_zero_fraction)
    expect(filter.estimated_count).to be < 100_000
    expect(filter.false_positive_rate).to be_within(0.2 * filter.stable_false_positive_rate).of(filter.stable_false_positive_rate)
  end

  it "leaves the rate out of inspect for a filter too large to scan each time" do
    allow_any_instance_of(Bloomc::BloomFilter).to receive(:m).and_return(2**28 + 1)
    expect(Bloomc::BloomFilter.new(64, 2).inspect).not_to include("fill=")
  end
end
