# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::A2BloomFilter do
  describe ".new" do
    it "takes m and k, with the manual's capacity floor(m / 2k * ln 2)" do
      filter = described_class.new(100_000, 8)
      expect([filter.m, filter.k, filter.capacity, filter.size, filter.swaps]).to eq([100_000, 8, 4332, 0, 0])
      expect(described_class.new(1001, 3).m).to eq(1002) # two equal halves
      expect(described_class.new(1000, 3, capacity: 10).capacity).to eq(10)
    end

    it "takes m and error_rate:, with the manual's k and capacity" do
      # p1 = 1 - sqrt(1 - 0.01) = 0.005013; -log2 p1 = 7.64, rounded up to 8
      filter = described_class.new(100_000, error_rate: 0.01)
      expect([filter.k, filter.capacity]).to eq([8, 4332])
    end

    it "from capacity: and error_rate: takes the fewest bits whose halves hold capacity keys at that k" do
      filter = described_class.new(capacity: 1000, error_rate: 0.01)
      expect([filter.k, filter.capacity]).to eq([8, 1000])
      expect(filter.m).to eq(2 * (1000 * 8 / Math.log(2)).ceil)
      expect(filter.expected_false_positive_rate).to be <= 0.01
    end

    it "gives small halves the bits their expected rate needs, more than the manual's (capacity 1 at 0.01: 26, not 24)" do
      filter = described_class.new(capacity: 1, error_rate: 0.01)
      expect([filter.m, filter.k]).to eq([26, 8])
      expect(filter.expected_false_positive_rate).to be <= 0.01
      # the manual's 24 bits err above the rate: 1 - (1 - E[(X/12)^8])^2, X the bits one key sets
      expect(described_class.send(:model_fpr, 24, 8, 1)).to be > 0.01
    end

    {
      [[1000, 3], { error_rate: 0.01 }] => ArgumentError, [[1000], {}] => ArgumentError, [[], { capacity: 10 }] => ArgumentError,
      [[1000, 3], { capacity: 0 }] => ArgumentError, [[1000, 0], {}] => ArgumentError, [[0, 3], {}] => ArgumentError,
      [[], { capacity: 10, error_rate: 1.5 }] => ArgumentError, [[1000, 3.5], {}] => TypeError
    }.each do |(args, kw), error|
      it "raises #{error} for new(#{args.join(', ')}#{", #{kw}" unless kw.empty?})" do
        expect { described_class.new(*args, **kw) }.to raise_error(error)
      end
    end
  end

  it "always finds the last capacity distinct keys, and forgets old ones a half at a time" do
    filter = described_class.new(capacity: 500, error_rate: 0.01)
    keys = hex_keys(5000, seed: 20)
    misses = keys.each_with_index.count do |key, i|
      filter << key
      !filter.all_include?(keys[[0, i - 499].max..i])
    end
    expect(misses).to eq(0)
    # a key the active half already (falsely) holds is not inserted again
    expect(filter.swaps).to eq(9)
    expect(filter.active_size).to be_between(490, 500)
    expect(filter.count_included(keys.first(1000))).to be < 20
  end

  it "does not count a key already in the active half again" do
    filter = described_class.new(capacity: 10, error_rate: 0.01)
    100.times { filter << "same" }
    expect([filter.size, filter.active_size, filter.swaps]).to eq([100, 1, 0])
  end

  # The manual: with a half's rate p1, the filter errs at 1 - (1 - p1)**2
  # when both halves are full. Just before a swap, measured rates must match
  # that within 20% and stay under the target.
  [[1000, 0.01], [5000, 0.001]].each do |capacity, rate|
    it "errs at the manual's rate with both halves full (capacity #{capacity}, rate #{rate})" do
      filter = described_class.new(capacity: capacity, error_rate: rate)
      filter.add_all(hex_keys(capacity * 2, seed: 21)) # one swap, both halves full
      expect([filter.swaps, filter.active_size]).to eq([1, capacity])
      model = filter.expected_false_positive_rate
      measured = filter.count_included(hex_keys(200_000, seed: 22)).fdiv(200_000)
      expect(measured).to be_within(0.2 * model).of(model)
      expect(model).to be <= rate
    end
  end

  it "copies deeply, compares by content, refuses writes when frozen and reports m/8 bytes" do
    filter = described_class.new(1_000_000, 3).add("a")
    copy = filter.dup
    expect([copy == filter, copy.hash == filter.hash]).to eq([true, true])
    copy << "b"
    expect(copy).not_to eq(filter)
    filter.freeze
    expect { filter << "c" }.to raise_error(FrozenError)
    expect(ObjectSpace.memsize_of(filter)).to be_between(125_000, 125_320) # and the object every filter wraps (filter.h)
  end
end
