# frozen_string_literal: true

require "spec_helper"
require "zlib"

RSpec.describe Bloomc::CuckooFilter do
  def keys(n, prefix = "key") = Array.new(n) { |i| "#{prefix}-#{i}" }

  # A filter filled until it refuses a key: [filter, the keys it took, the
  # key it refused].
  def full_filter(buckets: 64, bits: 8)
    filter = described_class.new(buckets: buckets, fingerprint_bits: bits)
    taken = []
    keys(10 * buckets * 4, "fill").each do |key|
      filter << key
      taken << key
    rescue Bloomc::CapacityError
      return [filter, taken, key]
    end
    raise "the filter never filled"
  end

  describe ".new" do
    it "sizes fingerprints from the rate and buckets for capacity at 95% load, less 1.8 / sqrt(capacity)" do
      filter = described_class.new(capacity: 100_000, error_rate: 0.001)
      expect(filter.fingerprint_bits).to eq(13) # ceil(log2(2 * 4 * 0.95 / 0.001))
      expect(filter.buckets).to eq((100_000 / (4 * (0.95 - 1.8 / Math.sqrt(100_000)))).ceil)
      expect(filter.m).to eq(4 * filter.buckets)
      expect([filter.capacity, filter.error_rate, filter.size, filter.seed]).to eq([100_000, 0.001, 0, 0])
      expect(described_class.new(capacity: 10, error_rate: 0.5).fingerprint_bits).to eq(8)
      expect(described_class.new(capacity: 10, error_rate: 1e-12).fingerprint_bits).to eq(32)
    end

    # Sized by LOAD alone, 1-8% of seeds at capacities 10 to 100 raised
    # CapacityError short of their capacity, and 1 in 20,000 at capacity 5.
    it "holds its capacity at small sizes: no seed of 2,000 raises CapacityError before it" do
      [1, 4, 5, 6, 10, 20, 50, 100].each do |capacity|
        refused = (0...2000).count do |seed|
          described_class.new(capacity: capacity, error_rate: 0.01, seed: seed).add_all(Array.new(capacity) { |i| i })
          false
        rescue Bloomc::CapacityError
          true
        end
        expect(refused).to eq(0), "capacity #{capacity}: #{refused} of 2,000 seeds"
      end
      expect(described_class.new(capacity: 4, error_rate: 0.01).buckets).to eq(1)
    end

    it "takes an explicit shape" do
      filter = described_class.new(buckets: 7, fingerprint_bits: 20, seed: 9)
      expect([filter.buckets, filter.fingerprint_bits, filter.seed, filter.capacity]).to eq([7, 20, 9, nil])
    end

    it "refuses bad shapes with clear errors" do
      expect { described_class.new }.to raise_error(ArgumentError, /capacity: and error_rate:/)
      expect { described_class.new(capacity: 10) }.to raise_error(ArgumentError)
      expect { described_class.new(buckets: 10) }.to raise_error(ArgumentError)
      expect { described_class.new(buckets: 10, fingerprint_bits: 8, capacity: 5) }.to raise_error(ArgumentError)
      expect { described_class.new(buckets: 0, fingerprint_bits: 8) }.to raise_error(ArgumentError, /buckets/)
      expect { described_class.new(buckets: 4, fingerprint_bits: 7) }.to raise_error(ArgumentError, /fingerprint_bits/)
      expect { described_class.new(buckets: 4, fingerprint_bits: 33) }.to raise_error(ArgumentError, /fingerprint_bits/)
      expect { described_class.new(buckets: "4", fingerprint_bits: 8) }.to raise_error(TypeError)
      expect { described_class.new(capacity: 10, error_rate: 1.5) }.to raise_error(ArgumentError)
      expect { described_class.new(capacity: -1, error_rate: 0.01) }.to raise_error(ArgumentError)
      expect { described_class.new(buckets: 4, fingerprint_bits: 8, seed: -1) }.to raise_error(RangeError)
    end
  end

  describe "keys" do
    it "finds every key added and not deleted" do
      filter = described_class.new(capacity: 20_000, error_rate: 0.001)
      added = keys(20_000)
      added.each { |key| filter << key }
      expect(added.reject { |key| filter.include?(key) }).to be_empty
      added.each_slice(2) { |a, _b| filter.delete(a) }
      expect(added.each_slice(2).map(&:last).reject { |key| filter.include?(key) }).to be_empty
      expect(filter.size).to eq(10_000)
    end

    it "measures a false-positive rate near its formula (fixed keys)" do
      [[0.01, 10], [0.001, 13]].each do |rate, bits|
        filter = described_class.new(capacity: 20_000, error_rate: rate)
        expect(filter.fingerprint_bits).to eq(bits)
        filter.add_all(keys(20_000))
        measured = keys(400_000, "absent").count { |key| filter.include?(key) } / 400_000.0
        expected = filter.false_positive_rate
        expect(expected).to be <= rate * 1.05
        expect(measured).to be_within(expected * 0.25).of(expected) # about 7 standard deviations at 0.001
      end
    end

    it "counts copies, and deletes one copy at a time" do
      filter = described_class.new(capacity: 1000, error_rate: 0.001)
      3.times { filter.add("dup") }
      expect(filter.count("dup")).to eq(3)
      expect(filter.delete("dup")).to be(true)
      expect([filter.count("dup"), filter.include?("dup")]).to eq([2, true])
      2.times { filter.remove("dup") }
      expect([filter.count("dup"), filter.include?("dup"), filter.delete("dup"), filter.size]).to eq([0, false, false, 0])
    end

    it "add? adds only a key it does not find, as Set#add? does" do
      filter = described_class.new(capacity: 1000, error_rate: 0.001)
      expect(filter.add?("a")).to be(filter)
      expect(filter.add?("a")).to be_nil
      expect([filter.count("a"), filter.size]).to eq([1, 1])
      expect(filter.add("b")).to be(filter)
      expect(filter << "c").to be(filter)
      expect([filter["b"], filter[:c], filter.include?(42)]).to eq([true, true, false])
    end

    it "takes Strings by their bytes, Symbols by their names and Integers, and refuses the rest" do
      filter = described_class.new(capacity: 100, error_rate: 0.01)
      filter << :sym << 12 << "str"
      expect([filter.include?("sym"), filter.include?(12), filter.include?("str".b)]).to eq([true, true, true])
      [nil, 1.5, [], Object.new].each do |bad|
        expect { filter.add(bad) }.to raise_error(TypeError)
        expect { filter.include?(bad) }.to raise_error(TypeError)
        expect { filter.delete(bad) }.to raise_error(TypeError)
        expect { filter.count(bad) }.to raise_error(TypeError)
      end
      expect(filter.size).to eq(3)
    end

    # The same fingerprints and buckets on every platform: the golden files
    # (spec/support/format_samples.rb) are compared byte for byte.
  end

  describe "when full" do
    it "raises CapacityError and keeps every key it held" do
      filter, taken, refused = full_filter
      expect(taken.size).to be > 0.9 * filter.m # 4-slot buckets fill past 90%
      before = filter.dup
      expect { filter << refused }.to raise_error(Bloomc::CapacityError, /nothing was lost/)
      expect(filter).to eq(before)
      expect(taken.reject { |key| filter.include?(key) }).to be_empty
      expect(filter.size).to eq(taken.size)
    end

    it "undoes a batch that does not fit, whole" do
      filter, _taken, refused = full_filter
      3.times { |i| filter.delete("fill-#{i}") }
      before = filter.dup
      expect { filter.add_all(keys(50, "batch") + [refused] * 9) }.to raise_error(Bloomc::CapacityError)
      expect(filter).to eq(before)
    end

    it "still takes a key once one is deleted" do
      filter, taken, refused = full_filter
      filter.delete(taken.first)
      expect { filter << taken.first }.not_to raise_error
      expect { filter << refused }.to raise_error(Bloomc::CapacityError)
    end
  end

  # A batch is all or nothing at any fill: a key's ninth copy finds both its
  # buckets full of itself, so a batch can fail far below 90% of the slots.
  describe "batches, all or nothing" do
    # The cells, fields and count, as == and load see them.
    def state(filter) = [filter.dump, filter.size]

    it "undoes a batch that fails on a repeated key at low fill (the report's case)" do
      filter = described_class.new(capacity: 40, error_rate: 0.001, seed: 2**32 - 1)
      batch = ["added", :sym, 7, 2**70]
      failed = 20.times.find do
        before = state(filter)
        filter.add_all(batch)
        false
      rescue Bloomc::CapacityError => e
        expect(e.message).to match(/no key of the batch was added/)
        expect(state(filter)).to eq(before)
        true
      end
      # the 5th batch: "added"'s two buckets, shared with the batch's other
      # keys, have no room for a 5th copy
      expect(failed).to eq(4)
      expect(filter.size).to eq(16)
    end

    it "undoes a batch whose failing key is the last of many, and keeps none of them (add_all and add_new)" do
      filter = described_class.new(capacity: 2000, error_rate: 0.01).tap { |f| f.add_all(keys(300, "old")) }
      fits = keys(500, "new") + ["dup"] * 8
      expect(filter.dup.add_all(fits).count("dup")).to eq(8) # both buckets full of it
      before = state(filter)
      expect { filter.add_all(fits + ["dup"]) }.to raise_error(Bloomc::CapacityError, /found no room/)
      expect(state(filter)).to eq(before)
      expect(filter.include?("new-0")).to be(false)
      full, = full_filter
      before_full = state(full)
      expect { full.add_new(keys(50, "more")) }.to raise_error(Bloomc::CapacityError, /no key of the batch was added/)
      expect(state(full)).to eq(before_full)
    end

    it "adds with add_new and dedup_lines only the keys that are not there, as add? does: one delete takes one out" do
      filter = described_class.new(capacity: 100, error_rate: 0.01)
      expect(filter.add_new(%w[a a b] + ["dup"] * 20)).to eq(%w[a b dup])
      expect(filter.add_new(%w[a])).to eq([])
      expect(filter.size).to eq(3)
      out = +""
      filter.send(:dedup_lines, "c\n" * 20, out, 40)
      expect([out, filter.size]).to eq(["c\n", 4])
      filter.delete("a")
      expect(filter.include?("a")).to be(false)
    end

    it "undoes dedup_lines whole, the lines it appended too" do
      filter, taken, = full_filter
      present = "#{taken.first(10).join("\n")}\n"
      chunk = "#{present}#{keys(50, 'line').join("\n")}\n"
      out = +"kept"
      before = state(filter)
      expect { filter.send(:dedup_lines, chunk, out, chunk.bytesize) }.to raise_error(Bloomc::CapacityError)
      expect([state(filter), out]).to eq([before, "kept"])
      expect(filter.send(:dedup_lines, chunk, out, present.bytesize)).to eq("kept") # all there: none written or added
      expect(state(filter)).to eq(before)
    end

    it "undoes a batch whose relocations fail near 95% fill, and keeps one that fits as adds one by one would" do
      filter = described_class.new(buckets: 1024, fingerprint_bits: 12, seed: 3)
      filter.add_all(keys(3600, "fill")) # 88% of the 4096 slots
      one_by_one = filter.dup
      more = keys(1000, "more")
      taken = more.take_while do |key|
        one_by_one << key
        true
      rescue Bloomc::CapacityError
        false
      end
      expect(taken.size).to be_between(100, 999) # past 90%, and short of every slot
      refused = more[taken.size]
      before = state(filter)
      expect { filter.add_all(taken + [refused]) }.to raise_error(Bloomc::CapacityError)
      expect(state(filter)).to eq(before)
      expect(filter.add_all(taken)).to eq(one_by_one)
      expect(state(filter)).to eq(state(one_by_one))
    end

    it "stores the same cells as adds one by one, copies and all" do
      batch = keys(1500, "k") + keys(200, "k") + [:sym, 7, 2**70] * 3
      together = described_class.new(capacity: 1800, error_rate: 0.001, seed: 5)
      together.add_all(keys(50, "first"))
      single = together.dup
      together.add_all(batch)
      batch.each { |key| single.add(key) }
      expect(state(together)).to eq(state(single))
      expect(together.count(:sym)).to eq(3)
    end
  end

  describe "copies, equality and the file format" do
    let(:filter) { described_class.new(capacity: 5000, error_rate: 0.01).tap { |f| f.add_all(keys(4000)) } }

    it "dumps, loads, saves and marshals to an equal filter" do
      expect(described_class.load(filter.dump)).to eq(filter)
      expect(Bloomc.load(filter.dump(compress: true))).to eq(filter)
      expect(Marshal.load(Marshal.dump(filter))).to eq(filter)
      copy = filter.dup
      expect(copy).to eq(filter)
      expect(copy.hash).to eq(filter.hash)
      copy.delete("key-1")
      expect(copy).not_to eq(filter)
      expect(filter.include?("key-1")).to be(true)
      loaded = described_class.load(filter.dump)
      expect([loaded.capacity, loaded.error_rate]).to eq([5000, 0.01])
      Dir.mktmpdir do |dir|
        filter.save(File.join(dir, "c.bloom"))
        expect(described_class.load_file(File.join(dir, "c.bloom"))).to eq(filter)
      end
    end

    it "refuses a dump whose count disagrees with its slots, or with bits past the last slot" do
      fields, body = filter.send(:export_core)
      expect { described_class.allocate.send(:import_core, fields.dup.tap { |f| f[3] += 1 }, body) }
        .to raise_error(Bloomc::FormatError, /count/)
      odd = described_class.new(buckets: 3, fingerprint_bits: 9)
      fields, body = odd.send(:export_core)
      body = body.dup
      body.setbyte(body.bytesize - 1, 0xff)
      expect { described_class.allocate.send(:import_core, fields, body) }.to raise_error(Bloomc::FormatError, /past the last slot/)
    end
  end

  describe "set operations" do
    it "merges exactly, keeping every key of both" do
      a = described_class.new(capacity: 4000, error_rate: 0.01)
      b = described_class.new(capacity: 4000, error_rate: 0.01)
      a.add_all(keys(1500, "a"))
      b.add_all(keys(1500, "b"))
      union = a | b
      expect((keys(1500, "a") + keys(1500, "b")).reject { |key| union.include?(key) }).to be_empty
      expect(union.size).to eq(3000)
      a.merge!(b)
      expect(a).to eq(union)
      b.merge!(b) # every key twice
      expect([b.size, b.count("b-7")]).to eq([3000, 2])
    end

    it "refuses other shapes, intersection, and a union that does not fit (unchanged)" do
      a = described_class.new(buckets: 64, fingerprint_bits: 8)
      expect { a | described_class.new(buckets: 64, fingerprint_bits: 9) }.to raise_error(ArgumentError, /fingerprint_bits/)
      expect { a | described_class.new(buckets: 64, fingerprint_bits: 8, seed: 1) }.to raise_error(ArgumentError, /seed/)
      expect { a | Bloomc::BloomFilter.new(64, 3) }.to raise_error(ArgumentError)
      expect { a & a.dup }.to raise_error(Bloomc::UnsupportedError)
      full, = full_filter
      other = described_class.new(buckets: 64, fingerprint_bits: 8).tap { |f| f.add_all(keys(100, "other")) }
      before = full.dup
      expect { full.merge!(other) }.to raise_error(Bloomc::CapacityError)
      expect(full).to eq(before)
    end
  end

  describe "state" do
    it "clears, freezes and inspects" do
      filter = described_class.new(capacity: 100, error_rate: 0.01)
      filter << "a"
      expect(filter.inspect).to match(/\A#<Bloomc::CuckooFilter buckets=36 fingerprint_bits=10 size=1 load=0\.7%>\z/)
      expect(filter.clear.size).to eq(0)
      expect(filter.include?("a")).to be(false)
      expect(filter).to be_empty
      filter.freeze
      expect { filter << "a" }.to raise_error(FrozenError)
      expect { filter.delete("a") }.to raise_error(FrozenError)
      expect { filter.add_all(["a"]) }.to raise_error(FrozenError)
      expect(filter.include?("a")).to be(false)
    end

    it "reports its load, rate and capacity" do
      filter = described_class.new(capacity: 1000, error_rate: 0.01)
      filter.add_all(keys(950))
      expect(filter.load_factor).to eq(950.0 / filter.m)
      expect(filter.estimated_count).to eq(950)
      expect(filter.over_capacity?).to be(false)
      filter.add_all(keys(51, "more"))
      expect(filter.over_capacity?).to be(true)
      expect(filter.expected_false_positive_rate(0)).to eq(0)
      expect { filter.expected_false_positive_rate(-1) }.to raise_error(ArgumentError)
    end
  end
end
