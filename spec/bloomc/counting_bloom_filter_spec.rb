# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::CountingBloomFilter do
  describe ".new" do
    it "takes m and k, with 4-bit cells by default" do
      filter = described_class.new(1000, 3)
      expect([filter.m, filter.k, filter.width, filter.seed, filter.size, filter.saturated]).to eq([1000, 3, 4, 0, 0, 0])
      expect(described_class.new(10, 2, width: 32, seed: 7).then { |f| [f.width, f.seed] }).to eq([32, 7])
    end

    it "sizes itself like a plain filter from capacity: and error_rate:" do
      filter = described_class.new(capacity: 10_000, error_rate: 0.001, width: 8)
      expect([filter.m, filter.k, filter.width]).to eq(Bloomc::BloomFilter.find_m_k(10_000, 0.001) + [8])
    end

    {
      [[0, 3], {}] => ArgumentError, [[100, 0], {}] => ArgumentError, [[100, 3], { width: 0 }] => ArgumentError,
      [[100, 3], { width: 33 }] => ArgumentError, [[100, 3], { width: 4.0 }] => TypeError,
      [[100, "3"], {}] => TypeError, [[], { capacity: 0, error_rate: 0.1 }] => ArgumentError,
      [[], { capacity: 10, error_rate: 1.0 }] => ArgumentError, [[100, 3], { capacity: 10, error_rate: 0.1 }] => ArgumentError,
      [[2**57, 3], {}] => ArgumentError
    }.each do |(args, kw), error|
      it "raises #{error} for new(#{args.map(&:inspect).join(', ')}#{", #{kw}" unless kw.empty?})" do
        expect { described_class.new(*args, **kw) }.to raise_error(error)
      end
    end
  end

  describe "counting and deleting" do
    subject(:filter) { described_class.new(capacity: 1000, error_rate: 0.001) }

    it "counts adds, takes deletes away and finds a key while its count is above 0" do
      3.times { filter << "a" }
      filter.add("b")
      expect([filter.count("a"), filter.count("b"), filter.count("c"), filter.size]).to eq([3, 1, 0, 4])
      expect(filter.delete("a")).to be(true)
      expect(filter.remove("b")).to be(true)
      expect([filter.count("a"), filter.include?("a"), filter["b"], filter.size]).to eq([2, true, false, 2])
    end

    it "returns false and changes nothing when deleting a key whose count is 0" do
      filter << "a"
      before = filter.dup
      expect(filter.delete("never added")).to be(false)
      expect(filter).to eq(before)
    end

    it "treats Strings, Symbols and Integers as keys, a Symbol as its name" do
      filter << :sym << 42 << "str"
      expect([filter.count("sym"), filter.count(42), filter.count(:str), filter.count("42")]).to eq([1, 1, 1, 0])
    end

    it "saturates at 2**width - 1, never wraps, and never decrements a saturated cell" do
      filter = described_class.new(1000, 3, width: 2)
      10.times { filter << "hot" }
      expect(filter.count("hot")).to eq(3)
      expect(filter.saturated).to eq(3)
      10.times { filter.delete("hot") }
      # its cells are saturated: their true values are unknown, so they stay
      expect([filter.count("hot"), filter.include?("hot"), filter.saturated]).to eq([3, true, 3])
    end

    it "keeps every count at or above the true count for keys never deleted (Zipf stream)" do
      stream = zipf_stream(2000, 30_000, seed: 11)
      filter = described_class.new(8000, 4, width: 6) # loaded and saturating: counts of the top keys exceed 63
      stream.each { |key| filter << key }
      doomed = (1000...2000).select(&:even?)
      truth = tally(stream)
      doomed.each { |key| truth[key].to_i.times { filter.delete(key) } }
      kept = truth.keys - doomed
      expect(kept.count { |key| filter.count(key) < [truth[key], 63].min }).to eq(0)
      expect(kept.all? { |key| filter.include?(key) }).to be(true)
      expect(filter.saturated).to be_positive
    end

    it "answers false positives near the target rate at capacity" do
      filter = described_class.new(capacity: 20_000, error_rate: 0.01)
      filter.add_all(hex_keys(20_000, seed: 1))
      rate = filter.count_included(hex_keys(50_000, seed: 2)).fdiv(50_000)
      expect(rate).to be_between(0.005, 0.0125)
    end

    it "gives the same answers in batches as one key at a time" do
      keys = hex_keys(300, seed: 3)
      one = described_class.new(2000, 4).tap { |f| keys.each { |k| f << k } }
      expect(described_class.new(2000, 4).add_all(keys)).to eq(one)
      probes = keys.first(100) + hex_keys(200, seed: 4)
      expect(one.include_all(probes)).to eq(probes.map { |k| one.include?(k) })
    end
  end

  describe "as an object" do
    it "refuses writes when frozen and stays as it was" do
      filter = described_class.new(100, 3).add("a").freeze
      expect { filter << "b" }.to raise_error(FrozenError)
      expect { filter.delete("a") }.to raise_error(FrozenError)
      expect([filter.count("a"), filter.size]).to eq([1, 1])
    end

    it "copies deeply with dup and compares by content" do
      filter = described_class.new(100, 3).add("a")
      copy = filter.dup
      expect(copy).to eq(filter)
      expect(copy.hash).to eq(filter.hash)
      copy << "b"
      expect(copy).not_to eq(filter)
      expect(filter.count("b")).to eq(0)
    end

    it "reports m * width / 8 bytes plus a header to ObjectSpace.memsize_of" do
      filter = described_class.new(1_000_000, 3, width: 4)
      expect(ObjectSpace.memsize_of(filter)).to be_between(500_000, 500_000 + 320)
    end

    it "inspects briefly" do
      expect(described_class.new(100, 3).inspect).to eq("#<Bloomc::CountingBloomFilter m=100 k=3 width=4 size=0 saturated=0 fill=0.0% fpr~0>")
    end
  end
end
