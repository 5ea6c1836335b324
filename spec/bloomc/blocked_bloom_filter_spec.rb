# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::BlockedBloomFilter do
  describe ".new" do
    it "takes m and k, rounding m up to whole 512-bit blocks" do
      filter = described_class.new(1000, 3)
      expect([filter.m, filter.k, filter.size, filter.seed]).to eq([1024, 3, 0, 0])
      expect(described_class.new(512, 1).m).to eq(512)
      expect(described_class.new(1, 1).m).to eq(512)
    end

    it "sizes itself from capacity: and error_rate: with .find_m_k" do
      filter = described_class.new(capacity: 10_000, error_rate: 0.001, seed: 9)
      expect([filter.m, filter.k]).to eq(described_class.find_m_k(10_000, 0.001))
      expect(filter.seed).to eq(9)
    end

    it "accepts m larger than 2**32 bits" do
      filter = described_class.new(2**32 + 1000, 3)
      filter << "big"
      expect([filter.include?("big"), filter.include?("small")]).to eq([true, false])
      expect(filter.m).to eq(2**32 + 1024)
    end

    {
      [0, 3] => ArgumentError, [-1, 3] => ArgumentError, [1000, 0] => ArgumentError,
      [1000, Bloomc::MAX_K + 1] => ArgumentError, [2**61, 3] => ArgumentError,
      [nil, 3] => ArgumentError, [1000, nil] => ArgumentError,
      ["1000", 3] => TypeError, [1000.0, 3] => TypeError, [1000, 3.5] => TypeError
    }.each do |(m, k), error|
      it "raises #{error} for m=#{m.inspect}, k=#{k.inspect}" do
        expect { described_class.new(m, k) }.to raise_error(error)
      end
    end

    {
      { capacity: 0, error_rate: 0.01 } => ArgumentError,
      { capacity: 100, error_rate: 0 } => ArgumentError,
      { capacity: 100, error_rate: 1 } => ArgumentError,
      { capacity: 100, error_rate: Float::NAN } => ArgumentError,
      { capacity: Float::INFINITY, error_rate: 0.01 } => ArgumentError,
      { capacity: 1e300, error_rate: 0.01 } => ArgumentError,
      { capacity: 100 } => ArgumentError,
      { capacity: "100", error_rate: 0.01 } => TypeError,
      { capacity: 100, error_rate: 0.01, seed: 2**32 } => RangeError
    }.each do |kwargs, error|
      it "raises #{error} for #{kwargs.inspect}" do
        expect { described_class.new(**kwargs) }.to raise_error(error)
      end
    end

    it "takes hash: :murmur3 and refuses any other hash" do
      expect { described_class.new(1000, 3, hash: :fnv1a) }.to raise_error(ArgumentError, /murmur3 only/)
      expect(described_class.new(1000, 3, hash: :murmur3).hash_function).to eq(:murmur3)
    end

    it "raises NoMemoryError, never crashes, for a size that cannot be allocated" do
      expect { described_class.new(2**60, 3) }
        .to raise_error(NoMemoryError, /\Afailed to allocate \d+ bytes .* for a Bloomc::BlockedBloomFilter of m = \d+\z/)
    end
  end

  describe ".find_m_k" do
    it "gives whole blocks, more bits than a plain filter, and a modelled rate at or under the target" do
      [[1000, 0.1], [200_000, 0.01], [200_000, 0.001], [10**9, 1e-6]].each do |capacity, error|
        m, k = described_class.find_m_k(capacity, error)
        plain_m, = Bloomc::BloomHelper.find_m_k(capacity, error)
        expect(m % described_class::BLOCK_BITS).to eq(0)
        expect(m).to be > plain_m
        # the blocked penalty: a few percent down to 0.1%, more at tiny rates
        expect(m).to be < plain_m * (error >= 0.001 ? 1.1 : 1.5)
        expect(described_class.send(:model_fpr, m, k, capacity)).to be <= error
        # one block fewer would miss the target
        expect(described_class.send(:model_fpr, m - 512, k, capacity)).to be > error if capacity < 10**9
      end
    end
  end

  describe "#add and #include?" do
    subject(:filter) { described_class.new(capacity: 1000, error_rate: 0.01) }

    it "finds every key added (Strings by bytes, Symbols by name, Integers by value)" do
      keys = ["a", "b".encode("UTF-16LE"), "nul\0byte", "", :sym, 0, -1, 2**64, -(2**70)]
      keys.each { |key| filter << key }
      expect(keys.all? { |key| filter.include?(key) }).to be(true)
      expect(filter.include?("sym")).to be(true) # a Symbol is its name
      expect(filter.size).to eq(keys.size)
    end

    it "returns self from add and <<, so that adds chain" do
      expect(filter.add("x")).to equal(filter)
      expect(filter << "y" << "z").to equal(filter)
      expect(filter.size).to eq(3)
    end

    it "raises TypeError for other keys and leaves the filter as it was" do
      filter << "a"
      before = filter.dup
      [nil, 1.5, [], Object.new].each { |key| expect { filter << key }.to raise_error(TypeError) }
      expect(filter).to eq(before)
    end

    it "refuses writes when frozen, and still answers" do
      filter << "a"
      filter.freeze
      expect { filter << "b" }.to raise_error(FrozenError)
      expect { filter.add_all(["b"]) }.to raise_error(FrozenError)
      expect(filter.include?("a")).to be(true)
    end

    it "puts all k bits of a key in one 64-byte block, one bit in each of k lanes" do
      rng = Random.new(3)
      50.times do
        f = described_class.new(64 * 512, rng.rand(1..8), seed: rng.rand(2**32))
        f << rng.bytes(12)
        set = f.bits.each_with_index.select { |bit, _| bit == 1 }.map(&:last)
        expect(set.map { |i| i / 512 }.uniq.size).to eq(1)
        expect(set.map { |i| i % 512 / 64 }.uniq.size).to eq(f.k)
      end
    end

    it "spreads keys over all blocks and all lanes" do
      f = described_class.new(16 * 512, 3)
      hex_keys(4000, seed: 5).each { |key| f << key }
      per_lane = Array.new(16 * 8, 0)
      f.bits.each_with_index { |bit, i| per_lane[i / 64] += bit }
      expect(per_lane.min).to be > 0.5 * per_lane.sum / per_lane.size
    end
  end

  describe "false-positive rate" do
    [0.01, 0.001].each do |target|
      it "stays within 1.25x of #{target} at capacity over 200,000 absent keys, with no false negative" do
        keys = hex_keys(20_000, seed: 11)
        absent = hex_keys(220_000, seed: 12) - keys
        filter = described_class.new(capacity: keys.size, error_rate: target)
        filter.add_all(keys)
        expect(filter.count_included(keys)).to eq(keys.size)
        rate = filter.count_included(absent).fdiv(absent.size)
        expect(rate).to be <= 1.25 * target
        # and the model that sized it predicts what happens
        expect(rate).to be_within(0.25 * target).of(filter.expected_false_positive_rate)
      end
    end

    it "stays within 1.25x of 1e-4, where k is above 8 and a lane takes several probes" do
      keys = hex_keys(20_000, seed: 15)
      filter = described_class.new(capacity: keys.size, error_rate: 1e-4)
      filter.add_all(keys)
      expect(filter.k).to be > 8
      # Integer keys, never equal to the String keys; in slices, so the
      # suite's memory stays small
      found = (1..3_000_000).each_slice(100_000).sum { |slice| filter.count_included(slice) }
      rate = found.fdiv(3_000_000)
      expect(rate).to be <= 1.25e-4
      expect(rate).to be >= 5e-5
    end

    it "predicts the rate of shapes that are not optimal too, k from 3 to 40" do
      keys = hex_keys(5000, seed: 13)
      absent = hex_keys(105_000, seed: 14) - keys
      [3, 7, 13, 16, 24, 40].each do |k|
        filter = described_class.new(48 * 1024, k)
        filter.add_all(keys)
        rate = filter.count_included(absent).fdiv(absent.size)
        expect(rate).to be_within(0.15 * rate).of(filter.expected_false_positive_rate)
      end
    end
  end

  describe "memory" do
    it "reports m/8 bytes plus a fixed header" do
      filter = described_class.new(capacity: 1_000_000, error_rate: 0.01)
      expect(ObjectSpace.memsize_of(filter)).to be_between(filter.m / 8, filter.m / 8 * 1.01 + 256)
    end
  end

  describe "#==, #dup, #hash and #inspect" do
    it "copies deeply and compares by shape, seed, count and bits" do
      a = described_class.new(4096, 4, seed: 1)
      a << "x"
      b = a.dup
      expect(b).to eq(a)
      expect(b.hash).to eq(a.hash)
      b << "y"
      expect(b).not_to eq(a)
      expect(described_class.new(4096, 4, seed: 2)).not_to eq(described_class.new(4096, 4, seed: 1))
      expect(a).not_to eq(Bloomc::BloomFilter.new(4096, 4, seed: 1))
    end

    it "inspects briefly" do
      expect(described_class.new(1000, 3).inspect).to eq("#<Bloomc::BlockedBloomFilter m=1024 k=3 size=0 fill=0.0% fpr~0>")
      expect(described_class.allocate.inspect).to eq("#<Bloomc::BlockedBloomFilter (uninitialized)>")
    end

    it "raises TypeError, never crashes, on an uninitialized filter" do
      expect { described_class.allocate.include?("a") }.to raise_error(TypeError)
    end
  end
end
