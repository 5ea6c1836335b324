# frozen_string_literal: true

require "spec_helper"
require "set"
require "tmpdir"

# add?, add_new, capacity, error_rate and over_capacity? on the local filter
# classes other than the scalable one (scalable_bloom_filter_spec has its
# own): what each kind calls a new key, and the capacity it was sized for,
# kept wherever the filter goes.
RSpec.describe "add?, add_new and sizing on every local filter" do
  def absent_key(filter, prefix = "absent")
    (0..).lazy.map { |i| "#{prefix}-#{i}" }.find { |key| !filter.include?(key) }
  end

  def version(data) = data.unpack1("S<", offset: 8)

  # Each kind (the scalable one has its own spec) sized by capacity: and
  # error_rate: (sized), and built from m and k (plain), with keywords of its
  # own here. never: over_capacity? is always false; exact: it counts the
  # keys new to the filter (not so a continuous filter's, whose keys expire).
  sized_own = { "BloomFilter" => { seed: 1 }, "CountingBloomFilter" => { width: 3 }, "BitwiseBloomFilter" => { width: 1 },
                "StableBloomFilter" => { random_seed: 3 } }
  plain_m = Hash.new(2000).merge("BlockedBloomFilter" => 2048, "A2BloomFilter" => 4000)
  plain_own = { "StableBloomFilter" => { d: 10, random_seed: 3 } }
  never = %w[StableBloomFilter A2BloomFilter]
  kinds = (Kinds::LIST.select(&:plain?).map(&:name) - ["BloomFilter (fnv1a)", "ScalableBloomFilter"]).to_h do |name|
    [name, { sized: ->(c, e) { Kinds.sized(name, c, e, **sized_own.fetch(name, {})) },
             plain: -> { Kinds.plain(name, plain_m[name], 3, **plain_own.fetch(name, {})) },
             exact: !never.include?(name) && name != "ContinuousBloomFilter", never: never.include?(name) }]
  end

  kinds.each do |name, kind|
    describe name do
      let(:sized) { kind[:sized].call(100, 0.01) }

      it "add? returns self for a new key and nil for one it holds; add and << return self" do
        filter = kind[:sized].call(1000, 0.01)
        expect(filter.add?("a")).to equal(filter)
        expect(filter.add?("a")).to be_nil
        expect(filter.add("b")).to equal(filter)
        expect(filter.add?("b")).to be_nil
        expect(filter << "c" << :d << 5).to equal(filter)
        expect([filter.add?("c"), filter.add?("d"), filter.add?(5), filter.add?(6)]).to eq([nil, nil, nil, filter])
        expect(filter.size).to eq(11) unless filter.is_a?(Bloomc::ContinuousBloomFilter)
      end

      it "add_new returns the keys (the same objects) that were new, in order, a repeat new only at its first place" do
        filter = kind[:sized].call(1000, 0.01)
        first = +"x"
        filter << "old"
        result = filter.add_new([first, "old", 12, +"x", :y, 12, :y, "z"])
        expect(result).to eq(["x", 12, :y, "z"])
        expect(result.first).to equal(first)
        expect(filter.add_new([])).to eq([])
        expect(filter.add_new(Set["x", "w"])).to eq(["w"])
        expect { filter.add_new(["v", nil]) }.to raise_error(TypeError)
        expect(filter.include?("v")).to be(false)
        expect { filter.add_new(7) }.to raise_error(TypeError, /Enumerable/)
      end

      it "add_new answers as add? would one key at a time, and leaves the same filter" do
        stream = numbered_keys(600).each_with_index.flat_map { |key, i| i % 4 == 1 ? [key, key] : [key] } + numbered_keys(300)
        filter = kind[:sized].call(200, 0.01)
        twin = kind[:sized].call(200, 0.01)
        expected = stream.select { |key| twin.add?(key) }
        expect(filter.add_new(stream)).to eq(expected)
        expect(filter).to eq(twin)
        expect(expected.size).to be > 300
      end

      it "keeps capacity and error_rate, and has none when built from m and k" do
        expect([sized.capacity, sized.error_rate]).to eq([100, 0.01])
        plain = kind[:plain].call
        expect(plain.error_rate).to be_nil
        expect(plain.capacity).to be_nil unless plain.is_a?(Bloomc::A2BloomFilter) # its capacity is keys per half
        expect(plain.over_capacity?).to be(false)
        plain.add_all(numbered_keys(5000))
        expect(plain.over_capacity?).to be(false)
        expect(version(plain.dump)).to eq(1)
        # a whole capacity given as a Float reads back as an Integer (A2 takes Integers only)
        expect(kind[:sized].call(1e3, 0.01).capacity).to eql(1000) unless plain.is_a?(Bloomc::A2BloomFilter)
      end

      it "keeps capacity, error_rate and its count of new keys through dup, clone, Marshal, dump, load and save" do
        filter = sized
        filter.add_new(numbered_keys(60))
        data = filter.dump
        expect(version(data)).to eq(2)
        Dir.mktmpdir do |dir|
          path = File.join(dir, "f.bloom")
          filter.save(path)
          copies = [filter.dup, filter.clone, filter.freeze.clone, Marshal.load(Marshal.dump(filter)), Bloomc.load(data),
                    filter.class.load(filter.dump(compress: true)), Bloomc.load_file(path), filter.class.load_file(path)]
          copies.each do |copy|
            expect(copy).to eq(filter)
            expect([copy.capacity, copy.error_rate, copy.over_capacity?]).to eq([100, 0.01, false])
            next if copy.frozen?

            # the same keys new to it as the original would take before it is over
            twin = filter.dup
            expect(copy.add_new(numbered_keys(300, "more"))).to eq(twin.add_new(numbered_keys(300, "more")))
            expect(copy.over_capacity?).to eq(twin.over_capacity?)
            expect(copy.over_capacity?).to be(!kind[:never])
            expect(version(copy.dump)).to eq(2)
          end
        end
      end
    end
  end

  kinds.select { |_, kind| kind[:exact] }.each do |name, kind|
    describe "#{name}: over_capacity?" do
      it "is false with exactly capacity keys new to it, repeats and false positives aside, and true at one more" do
        filter = kind[:sized].call(100, 0.01)
        taken = add_new_keys(filter, 100)
        filter.add_all(taken)
        taken.each { |key| filter.add?(key) }
        expect(filter.over_capacity?).to be(false)
        copy = Bloomc.load(filter.dump)
        expect(copy.over_capacity?).to be(false)
        filter << absent_key(filter)
        expect(filter.over_capacity?).to be(true)
        expect(Bloomc.load(filter.dump).over_capacity?).to be(true)
        copy.add_new([absent_key(copy)]) # the loaded copy counts from 100 too
        expect(copy.over_capacity?).to be(true)
      end

      it "counts a union's keys again from its cells: the keys of both, a filter merged with itself no more" do
        a = kind[:sized].call(100, 0.01)
        b = kind[:sized].call(100, 0.01)
        add_new_keys(a, 60, "a")
        add_new_keys(b, 60, "b")
        expect([a.over_capacity?, b.over_capacity?]).to eq([false, false])
        expect((a | b).over_capacity?).to be(true)
        expect(a.dup.merge!(b).over_capacity?).to be(true)
        expect((a | a.dup).over_capacity?).to be(false)
        expect(a.dup.merge!(a.dup).over_capacity?).to be(false)
        small = kind[:sized].call(100, 0.01)
        add_new_keys(small, 30, "small")
        expect((a | small).over_capacity?).to be(false)
        expect((a | small | b).over_capacity?).to be(true)
        expect((a & b).over_capacity?).to be(false)
      end
    end
  end

  describe "what a new key is, kind by kind" do
    it "counting and RM filters: a key whose count was 0, so a deleted key is new again, and leaves the count" do
      [Bloomc::CountingBloomFilter.new(capacity: 100, error_rate: 0.01),
       Bloomc::SpectralBloomFilter.new(capacity: 100, error_rate: 0.01, algorithm: :rm)].each do |filter|
        expect(filter.add?("x")).to equal(filter)
        expect(filter.add?("x")).to be_nil
        expect(filter.delete("x")).to be(true)
        expect(filter.add?("x")).to be_nil # its count was 1
        2.times { filter.delete("x") }
        expect(filter.count("x")).to eq(0)
        expect(filter.add?("x")).to equal(filter)
        taken = add_new_keys(filter, 99)
        expect(filter.over_capacity?).to be(false)
        filter << absent_key(filter)
        expect(filter.over_capacity?).to be(true)
        expect(filter.delete(taken.first)).to be(true) # its count back to 0: no longer counted
        expect(filter.over_capacity?).to be(false)
        filter.delete("nothing")
        filter << taken.first
        expect(filter.over_capacity?).to be(true)
      end
    end

    it "MI and bitwise filters: a key whose count was 0" do
      [Bloomc::SpectralBloomFilter.new(capacity: 100, error_rate: 0.01),
       Bloomc::BitwiseBloomFilter.new(capacity: 100, error_rate: 0.01, width: 1)].each do |filter|
        expect(filter.count("x")).to eq(0)
        expect(filter.add?("x")).to equal(filter)
        3.times { expect(filter.add?("x")).to be_nil }
        expect(filter.count("x")).to be >= 4
      end
    end

    it "continuous filter: a key that was not live, so an expired key is new again; a live one is renewed" do
      filter = Bloomc::ContinuousBloomFilter.new(capacity: 100, error_rate: 0.01, ttl: 0)
      expect(filter.add?("x")).to equal(filter)
      2.times { filter.inc_time_slot }
      expect(filter.add?("x")).to be_nil # live in its last tick, and renewed by the add
      2.times { filter.inc_time_slot }
      expect(filter.include?("x")).to be(true)
      3.times { filter.inc_time_slot }
      expect(filter.include?("x")).to be(false)
      expect(filter.add?("x")).to equal(filter)
    end

    it "continuous filter: over_capacity? estimates the live keys" do
      filter = Bloomc::ContinuousBloomFilter.new(capacity: 1000, error_rate: 0.01, ttl: 0)
      filter.add_all(numbered_keys(800))
      expect(filter.over_capacity?).to be(false)
      filter.add_all(numbered_keys(400, "more"))
      expect(filter.over_capacity?).to be(true)
      expect(Bloomc.load(filter.dump).over_capacity?).to be(true)
      filter.inc_time_slot
      filter.add_all(numbered_keys(300, "late"))
      expect(filter.over_capacity?).to be(true)
      2.times { filter.inc_time_slot } # the first 1200 have expired
      expect(filter.over_capacity?).to be(false)
      expect(filter.estimated_count).to be_within(30).of(300)
    end

    it "A2 filter: a key in neither half; one only in the older half is not new but is copied into the active one" do
      filter = Bloomc::A2BloomFilter.new(1000, 3, capacity: 3)
      expect(filter.add_new(%w[a b c d])).to eq(%w[a b c d]) # d swapped the halves: a, b, c are the older ones
      expect([filter.swaps, filter.active_size]).to eq([1, 1])
      expect(filter.add?("a")).to be_nil
      expect(filter.active_size).to eq(2) # copied
      expect(filter.add?("e")).to equal(filter)
      expect(filter.add?("f")).to equal(filter) # swaps again: the older half is d, a, e
      expect(filter.swaps).to eq(2)
      expect(filter.include_all(%w[a b c d e f])).to eq([true, false, false, true, true, true])
      expect(filter.add?("b")).to equal(filter)
    end

    it "A2 filter: over_capacity? is false however many keys come, and after a union" do
      filter = Bloomc::A2BloomFilter.new(capacity: 100, error_rate: 0.01)
      filter.add_all(numbered_keys(5000))
      expect([filter.over_capacity?, (filter | filter.dup).over_capacity?]).to eq([false, false])
    end

    it "stable filter: a key include? did not find just before, so a key decayed away is new again" do
      # d = m with width 1: every add clears every cell before it sets its own
      filter = Bloomc::StableBloomFilter.new(64, 2, 64, width: 1, random_seed: 1)
      expect(filter.add?("a")).to equal(filter)
      expect(filter.add?("a")).to be_nil
      expect(filter.add?("b")).to equal(filter)
      expect(filter.include?("a")).to be(false)
      expect(filter.add?("a")).to equal(filter)

      sized = Bloomc::StableBloomFilter.new(capacity: 50, error_rate: 0.01, random_seed: 5)
      twin = sized.dup
      answers = numbered_keys(3000).map { |key| [key, twin.include?(key)].tap { twin << key } }
      expect(answers.map { |key, found| sized.add?(key).nil? == found }).to all(be(true))
      expect(answers.count { |_, found| found }).to be > 0
      expect([sized.over_capacity?, (sized | sized.dup).over_capacity?]).to eq([false, false])
    end
  end

  describe "mapped files" do
    around do |example|
      Dir.mktmpdir { |dir| @dir = dir; example.run }
    end

    def path(name = "f.bloom") = File.join(@dir, name)

    {
      Bloomc::BloomFilter => {}, Bloomc::CountingBloomFilter => { width: 2 }, Bloomc::ContinuousBloomFilter => { ttl: 0 }
    }.each do |klass, extra|
      describe klass do
        it "open(path, capacity:, error_rate:) makes a version 2 file that keeps them and its new keys on reopening" do
          filter = klass.open(path, capacity: 200, error_rate: 0.01, **extra)
          expect([filter.capacity, filter.error_rate, filter.m]).to eq([200, 0.01, Bloomc::BloomFilter.find_m_k(200, 0.01).first])
          taken = add_new_keys(filter, 150)
          filter.close
          expect(version(File.binread(path, 16))).to eq(2)
          reopened = klass.open(path)
          expect([reopened.capacity, reopened.error_rate, reopened.over_capacity?]).to eq([200, 0.01, false])
          expect(reopened.all_include?(taken)).to be(true)
          add_new_keys(reopened, 100, "more")
          expect(reopened.over_capacity?).to be(true)
          reopened.close
          again = klass.open(path, capacity: 200, error_rate: 0.01, **extra)
          expect([again.capacity, again.error_rate, again.over_capacity?]).to eq([200, 0.01, true])
          again.close
          reader = klass.open(path, readonly: true)
          expect([reader.capacity, reader.error_rate]).to eq([200, 0.01])
          reader.close
          expect(Bloomc.load_file(path).capacity).to eq(200)
          expect { klass.open(path, capacity: 300, error_rate: 0.01, **extra) }.to raise_error(ArgumentError, /different m/)
        end

        it "opens a version 1 file made with bloombroom's sizing for the capacity and error rate asked for, as it was" do
          m, k = Bloomc::BloomHelper.find_m_k(1000, 0.01)
          expect([m, k]).not_to eq(Bloomc::BloomFilter.find_m_k(1000, 0.01))
          klass.open(path, m: m, k: k, **extra) { |f| f << "old" }
          before = File.binread(path)
          expect(version(before)).to eq(1)
          klass.open(path, capacity: 1000, error_rate: 0.01, **extra) do |f|
            expect([f.m, f.k, f.capacity, f.error_rate, f.include?("old")]).to eq([m, k, nil, nil, true])
            f << "new"
          end
          expect(version(File.binread(path, 16))).to eq(1)
          expect(Bloomc.load_file(path).include_all(%w[old new])).to eq([true, true])
          # other numbers than bloombroom's for that capacity and rate are another shape
          expect { klass.open(path, capacity: 1001, error_rate: 0.01, **extra) }.to raise_error(ArgumentError, /different m/)
          expect { klass.open(path, capacity: 1000, error_rate: 0.02, **extra) }.to raise_error(ArgumentError, /different [mk]/)
          klass.open(path("other.bloom"), m: m + 1, k: k, **extra).close
          expect { klass.open(path("other.bloom"), capacity: 1000, error_rate: 0.01, **extra) }.to raise_error(ArgumentError, /different m/)
        end
      end
    end

    it "a version 2 file keeps its own sizing: bloombroom's numbers for it are another shape" do
      Bloomc::BloomFilter.open(path, capacity: 1000, error_rate: 0.01).close
      m, k = Bloomc::BloomHelper.find_m_k(1000, 0.01)
      expect { Bloomc::BloomFilter.open(path, m: m, k: k) }.to raise_error(ArgumentError, /different m/)
    end
  end
end
