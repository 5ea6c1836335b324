# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::BitwiseBloomFilter do
  describe ".new" do
    it "takes m and k and starts with one level of 4-bit cells" do
      filter = described_class.new(1000, 3)
      expect([filter.m, filter.k, filter.width, filter.levels, filter.size]).to eq([1000, 3, 4, 1, 0])
    end

    it "sizes itself from capacity: and error_rate:" do
      filter = described_class.new(capacity: 5000, error_rate: 0.01, width: 2)
      expect([filter.m, filter.k, filter.width]).to eq(Bloomc::BloomFilter.find_m_k(5000, 0.01) + [2])
    end

    it "raises for a width outside 1..32" do
      expect { described_class.new(100, 3, width: 33) }.to raise_error(ArgumentError)
      expect { described_class.new(100, 3, width: nil) }.to raise_error(TypeError)
    end
  end

  describe "counting" do
    it "counts one key exactly past every level's range, adding levels as it goes" do
      filter = described_class.new(1000, 3, width: 1)
      # widths 1, 2, 4, 8, 16: maxima 1, 3, 15, 255, 65535
      [[1, 1], [4, 2], [19, 3], [274, 4], [275, 5]].each do |adds, levels|
        (adds - filter.size).times { filter << "hot" }
        expect([filter.count("hot"), filter.levels]).to eq([adds, levels])
      end
      100_000.times { filter << "hot" } # past 1 + 3 + 15 + 255 + 65535: a 32-bit level
      expect([filter.count("hot"), filter.levels]).to eq([100_275, 6])
      expect(filter.count("cold")).to eq(0)
    end

    it "keeps light keys on one level" do
      filter = described_class.new(capacity: 1000, error_rate: 0.01)
      filter.add_all(hex_keys(1000, seed: 8))
      expect(filter.levels).to eq(1)
    end

    it "never counts a key below its adds (Zipf stream, several levels)" do
      stream = zipf_stream(2000, 40_000, seed: 31)
      filter = described_class.new(8000, 4, width: 2)
      filter.add_all(stream)
      truth = tally(stream)
      expect(truth.count { |key, count| filter.count(key) < count }).to eq(0)
      expect(filter.levels).to be >= 4
      # and a counting filter's accuracy: most keys exact
      exact = truth.count { |key, count| filter.count(key) == count }
      expect(exact).to be > truth.size / 2
    end

    it "finds the keys added and few others" do
      filter = described_class.new(capacity: 20_000, error_rate: 0.01)
      filter.add_all(hex_keys(20_000, seed: 9))
      expect(filter.count_included(hex_keys(50_000, seed: 10)).fdiv(50_000)).to be_between(0.005, 0.0125)
    end
  end

  describe "as an object" do
    it "grows its memory with its levels" do
      filter = described_class.new(100_000, 3, width: 4)
      one = ObjectSpace.memsize_of(filter)
      expect(one).to be_between(50_000, 52_000) # the struct holds a table of the 64 levels a filter may have
      16.times { filter << "hot" }
      expect(filter.levels).to eq(2)
      expect(ObjectSpace.memsize_of(filter) - one).to be_between(100_000, 100_100) # 8-bit cells
    end

    it "copies every level deeply and compares by content" do
      filter = described_class.new(100, 3)
      20.times { filter << "hot" }
      copy = filter.dup
      expect([copy == filter, copy.hash == filter.hash, copy.levels]).to eq([true, true, 2])
      copy << "hot"
      expect([filter.count("hot"), copy.count("hot")]).to eq([20, 21])
      expect(copy).not_to eq(filter)
    end

    it "refuses writes when frozen" do
      filter = described_class.new(100, 3).freeze
      expect { filter << "a" }.to raise_error(FrozenError)
      expect { filter.add_all(["a"]) }.to raise_error(FrozenError)
      expect(filter.size).to eq(0)
    end
  end
end
