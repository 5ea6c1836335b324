# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::SpectralBloomFilter do
  # The mean absolute error of a filter's counts over a stream's keys, and
  # how many of them it counts below their true count.
  def errors(filter, truth)
    diffs = truth.map { |key, count| filter.count(key) - count }
    [diffs.sum(&:abs).fdiv(diffs.size), diffs.count(&:negative?)]
  end

  describe ".new" do
    it "takes m and k with minimum increase by default" do
      filter = described_class.new(1000, 3)
      expect([filter.algorithm, filter.m, filter.k, filter.width, filter.secondary_m]).to eq([:mi, 1000, 3, 4, nil])
    end

    it "gives recurring minimum a secondary of m / 2 cells unless told" do
      expect(described_class.new(1001, 3, algorithm: :rm).secondary_m).to eq(501)
      expect(described_class.new(1000, 3, algorithm: :rm, secondary_m: 7).secondary_m).to eq(7)
      expect(described_class.new(1, 3, algorithm: :rm).secondary_m).to eq(1)
    end

    it "sizes itself from capacity: and error_rate:" do
      filter = described_class.new(capacity: 5000, error_rate: 0.01, algorithm: :rm, width: 8)
      expect([filter.m, filter.k]).to eq(Bloomc::BloomFilter.find_m_k(5000, 0.01))
    end

    {
      { algorithm: :ms } => ArgumentError, { algorithm: "mi" } => ArgumentError,
      { algorithm: :mi, secondary_m: 10 } => ArgumentError, { algorithm: :rm, secondary_m: 0 } => ArgumentError,
      { algorithm: :rm, secondary_m: 1.5 } => TypeError, { width: 0 } => ArgumentError
    }.each do |kw, error|
      it "raises #{error} for new(100, 3, #{kw})" do
        expect { described_class.new(100, 3, **kw) }.to raise_error(error)
      end
    end
  end

  %i[mi rm].each do |algorithm|
    context "with algorithm: #{algorithm.inspect}" do
      subject(:filter) { described_class.new(capacity: 1000, error_rate: 0.001, algorithm: algorithm) }

      it "counts a key's adds and finds every key added" do
        5.times { filter << "a" }
        filter << "b"
        keys = hex_keys(500, seed: 5)
        filter.add_all(keys)
        expect([filter.count("a"), filter.count("b"), filter.count("zz")]).to eq([5, 1, 0])
        expect(filter.all_include?(keys)).to be(true)
        expect(filter.size).to eq(506)
      end

      it "copies deeply and compares by content" do
        filter << "a"
        copy = filter.dup
        expect(copy).to eq(filter)
        expect(copy.hash).to eq(filter.hash)
        copy << "b"
        expect(copy).not_to eq(filter)
      end

      it "refuses writes when frozen" do
        filter.freeze
        expect { filter << "a" }.to raise_error(FrozenError)
        expect(filter.size).to eq(0)
      end
    end
  end

  describe "minimum increase" do
    it "never counts a key below its adds and refuses delete, changing nothing" do
      stream = zipf_stream(2000, 30_000, seed: 21)
      filter = described_class.new(8000, 4, width: 16, algorithm: :mi)
      stream.each { |key| filter << key }
      truth = tally(stream)
      expect(truth.count { |key, count| filter.count(key) < count }).to eq(0)
      before = filter.dup
      expect { filter.delete(1) }.to raise_error(Bloomc::UnsupportedError, /cannot delete.*algorithm: :rm/)
      expect { filter.remove(1) }.to raise_error(Bloomc::Error)
      expect(filter).to eq(before)
    end
  end

  describe "recurring minimum" do
    it "deletes: false for a count of 0, and a deleted key's count goes down" do
      filter = described_class.new(capacity: 1000, error_rate: 0.001, algorithm: :rm)
      3.times { filter << "a" }
      before = filter.dup
      expect(filter.delete("b")).to be(false)
      expect(filter).to eq(before)
      expect(filter.delete("a")).to be(true)
      expect([filter.count("a"), filter.size]).to eq([2, 2])
      2.times { filter.remove("a") }
      expect([filter.count("a"), filter.include?("a")]).to eq([0, false])
    end

    it "finds every key added and not deleted, whatever its count" do
      stream = zipf_stream(2000, 20_000, seed: 22)
      filter = described_class.new(6000, 4, width: 8, algorithm: :rm)
      stream.each { |key| filter << key }
      doomed = (1000...2000).select(&:odd?)
      truth = tally(stream)
      doomed.each { |key| truth[key].to_i.times { filter.delete(key) } }
      expect((truth.keys - doomed).all? { |key| filter.include?(key) }).to be(true)
    end
  end

  # Cohen and Matias: both algorithms sharpen minimum selection's counts. On
  # a Zipf stream, at a comfortable and at a heavy load, each must do at least
  # as well as a counting filter (minimum selection) of the same cells.
  [[28_755, 7, "sized for 1%"], [14_000, 5, "at twice that load"], [8_000, 4, "overloaded"]].each do |m, k, label|
    it "counts a Zipf stream at least as accurately as minimum selection, #{label}" do
      stream = zipf_stream(3000, 60_000, seed: 7)
      truth = tally(stream)
      ms = Bloomc::CountingBloomFilter.new(m, k, width: 16)
      mi = described_class.new(m, k, width: 16, algorithm: :mi)
      rm = described_class.new(m, k, width: 16, algorithm: :rm)
      [ms, mi, rm].each { |f| f.add_all(stream) }
      ms_error, ms_under = errors(ms, truth)
      mi_error, mi_under = errors(mi, truth)
      rm_error, = errors(rm, truth)
      expect(ms_under).to eq(0)
      expect(mi_under).to eq(0)
      expect(mi_error).to be <= ms_error
      expect(rm_error).to be <= ms_error
      expect(ms_error).to be_positive # the load is high enough for the comparison to mean something
    end
  end

  it "reports the cells of both filters to ObjectSpace.memsize_of" do
    mi = described_class.new(1_000_000, 3, algorithm: :mi)
    rm = described_class.new(1_000_000, 3, algorithm: :rm)
    # Beside the cells: the object's slot, the struct (both filters' fields
    # and the mapping fields every kind's object has) and its instance
    # variables' table, whose size differs between Rubies. A filter of 8
    # cells has all of them.
    overhead = ObjectSpace.memsize_of(described_class.new(8, 3, algorithm: :rm))
    expect(overhead).to be < 512
    expect(ObjectSpace.memsize_of(mi)).to be_between(500_000, 500_000 + overhead)
    expect(ObjectSpace.memsize_of(rm)).to be_between(750_000, 750_000 + overhead)
  end
end
