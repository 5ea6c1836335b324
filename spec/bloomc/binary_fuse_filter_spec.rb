# frozen_string_literal: true

require "spec_helper"
require "tmpdir"

RSpec.describe Bloomc::BinaryFuseFilter do
  def keys(n, prefix = "key") = Array.new(n) { |i| "#{prefix}-#{i}" }

  describe ".build" do
    it "finds every key it was built from, from any Enumerable, at 8 and 16 bits" do
      [8, 16].each do |bits|
        [0, 1, 2, 3, 10, 1000, 50_000].each do |n|
          set = keys(n)
          filter = described_class.build(set.each, fingerprint_bits: bits)
          expect([filter.size, filter.fingerprint_bits]).to eq([n, bits])
          expect(set.reject { |key| filter.include?(key) }).to be_empty
          expect(filter.include_all(set)).to all(be(true))
        end
      end
    end

    it "counts repeated keys once, whatever their order, and builds the same filter" do
      set = keys(2000)
      once = described_class.build(set)
      again = described_class.build((set + set.first(1000) * 3).shuffle(random: Random.new(4)))
      expect(again.size).to eq(2000)
      expect(again).to eq(once)
      one = described_class.build(["same"] * 100_000)
      expect([one.size, one.include?("same")]).to eq([1, true])
    end

    it "measures a false-positive rate near 2**-bits (fixed keys)" do
      filter = described_class.build(keys(100_000))
      rate = filter.count_included(keys(400_000, "absent")) / 400_000.0
      expect(rate).to be_within(0.0006).of(1 / 256.0) # about 4 standard deviations
      expect(filter.false_positive_rate).to eq(1 / 256.0)
      wide = described_class.build(keys(100_000), fingerprint_bits: 16)
      expect(wide.count_included(keys(1_000_000, "absent"))).to be_between(3, 40) # 15.3 expected
    end

    it "takes at most 9.2 bits a key at 8-bit fingerprints and 18.4 at 16, from 1M keys", :slow do
      million = Array.new(1_000_000) { |i| i }
      expect(described_class.build(million).bits_per_key).to be_between(9.0, 9.2)
      expect(described_class.build(million, fingerprint_bits: 16).bits_per_key).to be_between(18.0, 18.4)
      expect(described_class.build(keys(1000)).bits_per_key).to be < 13 # small sets need more slots a key
    end

    it "refuses bad input with clear errors" do
      expect { described_class.build(["a", 1.5]) }.to raise_error(TypeError, /Float/)
      expect { described_class.build(42) }.to raise_error(TypeError, /Enumerable/)
      expect { described_class.build(["a"], fingerprint_bits: 12) }.to raise_error(ArgumentError, /8 or 16/)
      expect { described_class.build(["a"], fingerprint_bits: "8") }.to raise_error(TypeError)
      expect { described_class.build(["a"], seed: -1) }.to raise_error(RangeError)
      expect { described_class.new }.to raise_error(ArgumentError)
    end

    it "gives an empty set a filter that finds nothing" do
      filter = described_class.build([])
      expect([filter.include?("a"), filter.size, filter.empty?, filter.false_positive_rate]).to eq([false, 0, true, 0.0])
      expect(filter.count_included(keys(1000))).to eq(0)
    end
  end

  describe "a static set" do
    let(:filter) { described_class.build(keys(100)) }

    it "refuses to add, delete, clear or combine, naming the class" do
      [-> { filter << "x" }, -> { filter.add("x") }, -> { filter.add?("x") }, -> { filter.add_all(["x"]) },
       -> { filter.add_new(["x"]) }, -> { filter.delete("x") }, -> { filter.clear }, -> { filter.merge!(filter.dup) },
       -> { filter | filter.dup }, -> { filter & filter.dup }, -> { filter.send(:batch_add, ["x"], false, 1) }].each do |call|
        expect(&call).to raise_error(Bloomc::UnsupportedError, /BinaryFuseFilter/)
      end
      expect(filter).to eq(described_class.build(keys(100)))
    end

    it "dumps, loads, saves and marshals to an equal filter" do
      expect(described_class.load(filter.dump)).to eq(filter)
      expect(Bloomc.load(filter.dump(compress: true))).to eq(filter)
      expect(Marshal.load(Marshal.dump(filter))).to eq(filter)
      expect(filter.dup).to eq(filter)
      expect(filter.dup.hash).to eq(filter.hash)
      expect(filter).not_to eq(described_class.build(keys(101)))
      Dir.mktmpdir do |dir|
        filter.save(File.join(dir, "f.bloom"))
        expect(Bloomc.load_file(File.join(dir, "f.bloom"))).to eq(filter)
      end
    end

    it "refuses saved shapes that are not a binary fuse filter's" do
      fields, body = filter.send(:export_core)
      [[3, 3], [3, 2**19], [4, 2**31], [4, 0]].each do |at, value|
        bad = fields.dup
        bad[at] = value
        expect { described_class.allocate.send(:import_core, bad, body) }.to raise_error(Bloomc::FormatError)
      end
      expect { described_class.allocate.send(:import_core, fields.dup.tap { |f| f[0] = 12 }, body) }
        .to raise_error(Bloomc::FormatError)
      empty_fields, = described_class.build([]).send(:export_core)
      expect { described_class.allocate.send(:import_core, empty_fields, "\x01".b) }.to raise_error(Bloomc::FormatError, /empty/)
    end

    it "inspects, freezes and reports" do
      expect(filter.inspect).to match(/\A#<Bloomc::BinaryFuseFilter fingerprint_bits=8 size=100 bits_per_key=\d+\.\d+>\z/)
      expect([filter.estimated_count, filter.capacity, filter.over_capacity?]).to eq([100, nil, false])
      expect(filter.m).to be >= 100 # slots: at least one a key
      filter.freeze
      expect(filter.include?("key-1")).to be(true)
    end
  end
end
