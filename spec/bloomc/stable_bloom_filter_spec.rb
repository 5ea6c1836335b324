# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::StableBloomFilter do
  describe ".new" do
    it "takes m, k and d, with 3-bit cells by default" do
      filter = described_class.new(1000, 3, 10, random_seed: 1)
      expect([filter.m, filter.k, filter.d, filter.width, filter.size, filter.zero_fraction]).to eq([1000, 3, 10, 3, 0, 1.0])
    end

    it "from capacity: and error_rate: takes a plain filter's m and k and the d that settles at the rate" do
      filter = described_class.new(capacity: 10_000, error_rate: 0.01, random_seed: 1)
      expect([filter.m, filter.k]).to eq(Bloomc::BloomFilter.find_m_k(10_000, 0.01))
      expect(filter.stable_false_positive_rate).to be <= 0.01
      fewer = described_class.new(filter.m, filter.k, filter.d - 1, random_seed: 1)
      expect(fewer.stable_false_positive_rate).to be > 0.01 # d is the smallest that reaches it
    end

    it "from a capacity too small for a stable point in the plain filter's cells, takes the fewest cells that have one" do
      m, k = Bloomc::BloomFilter.find_m_k(1, 0.01) # 11 cells: no d settles at 0.01
      expect(described_class.send(:d_for, m, k, 3, 0.01)).to eq(0)
      filter = described_class.new(capacity: 1, error_rate: 0.01, random_seed: 1)
      expect([filter.m, filter.k]).to eq([71, k])
      expect(filter.stable_false_positive_rate).to be <= 0.01
      expect(described_class.send(:d_for, filter.m - 1, k, 3, 0.01)).to eq(0)
      expect(described_class.new(capacity: 3, error_rate: 0.001, random_seed: 1).stable_false_positive_rate).to be <= 0.001
    end

    {
      [[100, 3, 0], {}] => ArgumentError, [[100, 3, 101], {}] => ArgumentError, [[100, 3], {}] => ArgumentError,
      [[100, 3, 5], { random_seed: -1 }] => RangeError, [[100, 3, 5], { random_seed: 2**64 }] => RangeError,
      [[100, 3, 5], { random_seed: "1" }] => TypeError, [[100, 3, 5], { width: 0 }] => ArgumentError,
      [[], { capacity: 100, error_rate: 0.01, width: 33 }] => ArgumentError,
      [[100, 3, 5], { capacity: 100, error_rate: 0.01 }] => ArgumentError
    }.each do |(args, kw), error|
      it "raises #{error} for new(#{args.join(', ')}#{", #{kw}" unless kw.empty?})" do
        expect { described_class.new(*args, **kw) }.to raise_error(error)
      end
    end
  end

  # Deng and Rafiei: the fraction of zero cells converges to a stable point
  # set by m, k, d and the width, and the false-positive rate there is
  # (1 - zeros)**k. Fed far more distinct keys than it has cells, the filter
  # must sit at that point, and answer falsely at that rate within 20%.
  [[3000, 0.05, 3], [5000, 0.01, 2], [3000, 0.02, 4]].each do |capacity, rate, width|
    it "settles at the stable point (capacity #{capacity}, rate #{rate}, width #{width})" do
      filter = described_class.new(capacity: capacity, error_rate: rate, width: width, random_seed: 42)
      filter.add_all(hex_keys(filter.m * 3, seed: 12))
      # settled: it stays there as more keys stream in
      samples = hex_keys(filter.m, seed: 13).each_slice(filter.m / 4).map { |slice| filter.add_all(slice).zero_fraction }
      expect(samples).to all(be_within(0.03).of(filter.stable_zero_fraction))
      measured = filter.count_included(hex_keys(40_000, seed: 14)).fdiv(40_000)
      expect(measured).to be_within(0.2 * filter.stable_false_positive_rate).of(filter.stable_false_positive_rate)
      expect(filter.stable_false_positive_rate).to be <= rate
    end
  end

  it "starts with no zero cells lost and loses them as keys stream in" do
    filter = described_class.new(capacity: 1000, error_rate: 0.01, random_seed: 3)
    trail = [filter.zero_fraction]
    4.times { filter.add_all(hex_keys(1000, seed: trail.size + 40)); trail << filter.zero_fraction }
    expect(trail.first).to eq(1.0)
    expect(trail.each_cons(2).first(2).all? { |a, b| b < a }).to be(true)
  end

  it "always finds the key just added, and recent keys" do
    filter = described_class.new(capacity: 2000, error_rate: 0.01, random_seed: 5)
    keys = hex_keys(20_000, seed: 15)
    missed_last = keys.count { |key| filter << key; !filter.include?(key) }
    expect(missed_last).to eq(0)
    expect(filter.count_included(keys.last(100))).to be >= 99
  end

  it "forgets old keys" do
    filter = described_class.new(capacity: 2000, error_rate: 0.01, random_seed: 6)
    old = hex_keys(2000, seed: 16)
    filter.add_all(old)
    filter.add_all(hex_keys(50_000, seed: 17))
    expect(filter.count_included(old)).to be < 2000 * 0.05
  end

  it "is reproducible with a random_seed, and its copies decay alike" do
    keys = hex_keys(5000, seed: 18)
    a = described_class.new(2000, 3, 4, random_seed: 99).add_all(keys)
    b = described_class.new(2000, 3, 4, random_seed: 99).add_all(keys)
    c = described_class.new(2000, 3, 4, random_seed: 100).add_all(keys)
    expect(a).to eq(b)
    expect(a).not_to eq(c)
    copy = a.dup
    more = hex_keys(100, seed: 19)
    expect(copy.add_all(more)).to eq(a.add_all(more))
  end

  it "refuses writes when frozen and reports its cells to ObjectSpace.memsize_of" do
    filter = described_class.new(1_000_000, 3, 10).freeze
    expect { filter << "a" }.to raise_error(FrozenError)
    expect(ObjectSpace.memsize_of(filter)).to be_between(375_000, 375_320) # and the object every filter wraps (filter.h)
  end
end
