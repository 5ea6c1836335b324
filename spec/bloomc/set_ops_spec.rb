# frozen_string_literal: true

require "spec_helper"

# Union, intersection, clear and empty? on every filter class, against
# filters built from the same keys in one piece.
RSpec.describe "set operations" do
  left = Array.new(300) { |i| "left-#{i}" }.freeze
  right = Array.new(300) { |i| "right-#{i}" }.freeze
  both = Array.new(100) { |i| "both-#{i}" }.freeze
  misses = Array.new(20_000) { |i| "miss-#{i}" }.freeze

  # A filter of each class: name => [m, k, its own keywords]; the scalable
  # filter's initial capacity instead of m (400 keys: three layers of 100,
  # 200 and 400).
  shapes = {
    "BloomFilter" => [8000, 5, { seed: 3 }], "BlockedBloomFilter" => [8192, 6, { seed: 3 }],
    "ContinuousBloomFilter" => [8000, 5, { seed: 3 }], "CountingBloomFilter" => [8000, 5, { width: 8, seed: 3 }],
    "SpectralBloomFilter (MI)" => [8000, 5, { width: 8, seed: 3 }],
    "StableBloomFilter" => [8000, 5, { d: 3, width: 8, random_seed: 4 }], "A2BloomFilter" => [16_000, 5, { capacity: 1000 }],
    "ScalableBloomFilter" => [100, nil, { seed: 3 }]
  }
  # The next valid m: a blocked filter's is whole blocks, an A2 filter's two halves.
  m_step = Hash.new(1).merge("BlockedBloomFilter" => 512, "A2BloomFilter" => 2)
  build_of = lambda do |name, bump|
    m, k, own = shapes.fetch(name)
    next Kinds.sized(name, m + bump, 0.01, **own) if name == "ScalableBloomFilter"

    Kinds.plain(name, m + bump * m_step[name], k, **own)
  end
  builders = shapes.keys.to_h { |name| [Kinds.fetch(name).klass, -> { build_of[name, 0] }] }
  # A filter like builders' but for one parameter (m, unless named).
  other_m = shapes.keys.to_h { |name| [Kinds.fetch(name).klass, -> { build_of[name, 1] }] }
  reshaped_by = Hash.new(:m).merge(Bloomc::ScalableBloomFilter => :initial_capacity)
  # A scalable filter's union is layer by layer; it has no intersection.
  intersects = ->(klass) { klass != Bloomc::ScalableBloomFilter }
  shape_of = Hash.new(%i[m k seed]).merge(
    Bloomc::ScalableBloomFilter => %i[error_rate initial_capacity growth tightening even_layers max_capacity seed]
  )

  builders.each do |klass, build|
    describe klass do
      let(:a) { build.call.add_all(left + both) }
      let(:b) { build.call.add_all(right + both) }

      it "| finds the keys of both and leaves its operands as they were" do
        a_before = a.dup
        b_before = b.dup
        union = a | b
        expect(union).to be_a(klass)
        expect(union.all_include?(left + right + both)).to be(true)
        expect([a, b]).to eq([a_before, b_before])
        measured = union.count_included(misses)
        if intersects[klass]
          # no more false positives than one filter of all the adds
          one_piece = build.call.add_all(left + both + right + both).count_included(misses)
          expect(measured).to be <= one_piece * 1.1 + 5
        else
          # layer by layer, the union's first layer holds the first keys of
          # both: more false positives than one filter of all the adds, which
          # false_positive_rate (read from its bits) tells
          expect(measured.fdiv(misses.size)).to be_within(0.25 * union.false_positive_rate).of(union.false_positive_rate)
          expect(union.over_capacity?).to be(true)
        end
      end

      it "merge! adds the other's keys in place and returns self" do
        expect(a.merge!(b)).to equal(a)
        expect(a.all_include?(left + right + both)).to be(true)
      end

      it "& finds the keys in both, and fewer of the others than either" do
        next expect { a & b }.to raise_error(Bloomc::UnsupportedError) unless intersects[klass]

        intersection = a & b
        expect(intersection.all_include?(both)).to be(true)
        expect(intersection.count_included(left)).to be < 30
        expect(intersection.count_included(misses)).to be <= [a.count_included(misses), b.count_included(misses)].min
      end

      it "refuses a filter of another shape or kind with an ArgumentError naming the difference" do
        reshaped = other_m.fetch(klass).call
        attr = reshaped_by[klass]
        expect { a | reshaped }.to raise_error(ArgumentError, /different #{attr} \(#{a.public_send(attr)} and #{reshaped.public_send(attr)}\)/)
        expect { a.merge!(Bloomc::BitField.new(8)) }.to raise_error(ArgumentError, /cannot combine a #{klass} with Bloomc::BitField/)
        expect { a & nil }.to raise_error(ArgumentError, /with NilClass/) if intersects[klass]
        other_kind = klass == Bloomc::BloomFilter ? Bloomc::CountingBloomFilter.new(10, 1) : Bloomc::BloomFilter.new(10, 1)
        expect { a | other_kind }.to raise_error(ArgumentError, /cannot combine a #{klass} with a #{other_kind.class}/)
        expect(a).to eq(build.call.add_all(left + both))
      end

      it "merge! on a frozen filter raises FrozenError and changes nothing; | and & still work" do
        a.freeze
        expect { a.merge!(b) }.to raise_error(FrozenError)
        expect { a.clear }.to raise_error(FrozenError)
        expect((a | b).frozen?).to be(false)
        expect((a & b).all_include?(both)).to be(true) if intersects[klass]
        expect(a).to eq(build.call.add_all(left + both))
      end

      it "clear forgets every key, keeps the shape, and the filter works on" do
        shape = shape_of[klass].map { |attr| a.public_send(attr) }
        expect(a.empty?).to be(false)
        expect(a.clear).to equal(a)
        expect(a.empty?).to be(true)
        expect(a.count_included(left + both)).to eq(0)
        expect(shape_of[klass].map { |attr| a.public_send(attr) }).to eq(shape)
        a << "again"
        expect(a.include?("again")).to be(true)
        expect(a.empty?).to be(false)
      end
    end
  end

  describe "exact results" do
    it "BloomFilter and BlockedBloomFilter: | and & are the OR and AND of the bits, sizes add up or take the smaller" do
      [-> { Bloomc::BloomFilter.new(4000, 4) }, -> { Bloomc::BloomFilter.new(4000, 4, hash: :fnv1a) },
       -> { Bloomc::BlockedBloomFilter.new(4096, 4) }].each do |build|
        a = build.call.add_all(left + both)
        b = build.call.add_all(right + both)
        expect(a | b).to eq(build.call.add_all(left + both + right + both))
        bits_and = a.bits.to_a.zip(b.bits.to_a).map { |x, y| x & y }
        expect((a & b).bits.to_a).to eq(bits_and)
        expect((a & b).size).to eq(400)
      end
    end

    it "CountingBloomFilter: | adds the counts, as one filter of both streams would hold them" do
      a = Bloomc::CountingBloomFilter.new(4000, 4, width: 8).add_all(left + both)
      b = Bloomc::CountingBloomFilter.new(4000, 4, width: 8).add_all(right + both)
      expect(a | b).to eq(Bloomc::CountingBloomFilter.new(4000, 4, width: 8).add_all(left + both + right + both))
      expect((a | b).count(both[0])).to be >= 2
      expect((a & b).count(both[0])).to be >= 1
      expect((a & b).count(left[0])).to eq(0).or eq(1)
    end

    it "CountingBloomFilter: sums stop at the cell maximum and are counted as saturated" do
      a = Bloomc::CountingBloomFilter.new(100, 2, width: 2)
      3.times { a << "x" }
      union = a | a
      expect(union.count("x")).to eq(3)
      expect(union.saturated).to eq(2).or eq(1)
      expect(union.size).to eq(6)
    end

    it "SpectralBloomFilter: MI counts add up; RM drops its secondary, so counts never fall below the sum" do
      mi = Bloomc::SpectralBloomFilter.new(4000, 4, width: 8)
      rm = Bloomc::SpectralBloomFilter.new(4000, 4, width: 8, algorithm: :rm)
      [mi, rm].each do |filter|
        3.times { filter << "x" }
        filter.add_all(left)
        other = filter.dup
        2.times { other << "x" }
        expect((filter | other).count("x")).to be >= 8
        expect((filter & other).count("x")).to be >= 3
      end
      expect { mi | rm }.to raise_error(ArgumentError, /different algorithm \(:mi and :rm\)/)
    end

    it "BitwiseBloomFilter: & keeps the smaller count, | the larger (the multiset union), over every level" do
      a = Bloomc::BitwiseBloomFilter.new(1000, 3, width: 1)
      b = Bloomc::BitwiseBloomFilter.new(1000, 3, width: 1)
      10.times { a << "x" }
      40.times { b << "y" }
      4.times { b << "x" }
      intersection = a & b
      expect(intersection.count("x")).to be_between(4, 10)
      expect(intersection.levels).to eq([a.levels, b.levels].min)
      union = a | b
      expect(union.levels).to eq([a.levels, b.levels].max)
      expect([union.count("x"), union.count("y")]).to eq([10, 40]) # alone in their cells: exactly the larger
      expect(a.merge!(b)).to equal(a)
      expect(a).to eq(union)
      a.clear
      expect([a.levels, a.count("x"), a.size]).to eq([1, 0, 0])
    end

    it "StableBloomFilter: | keeps each cell's larger value, & the smaller" do
      a = Bloomc::StableBloomFilter.new(500, 3, 2, random_seed: 1).add_all(left.first(50))
      b = Bloomc::StableBloomFilter.new(500, 3, 2, random_seed: 2).add_all(right.first(50))
      union = a | b
      expect(union.include_all(left.first(50).last(5) + right.first(50).last(5))).to all(be(true))
      expect(union.zero_fraction).to be <= [a.zero_fraction, b.zero_fraction].min
      expect((a & b).zero_fraction).to be >= [a.zero_fraction, b.zero_fraction].max
    end

    it "A2BloomFilter: halves merge active with active, counted as the emptier one, so no input's key leaves sooner" do
      a = Bloomc::A2BloomFilter.new(20_000, 4, capacity: 500).add_all(left.first(200))
      b = Bloomc::A2BloomFilter.new(20_000, 4, capacity: 500).add_all(right)
      union = a | b
      expect(union.active_size).to eq(200)
      expect(union.all_include?(left.first(200) + right)).to be(true)
      more = []
      until union.swaps == 1 # about 300 more keys: the merged ones move to the older half and stay
        more << "more-#{more.size}"
        union << more.last
      end
      expect(more.size).to be_between(295, 305)
      expect(union.all_include?(left.first(200) + right + more)).to be(true)
      expect((a & b).active_size).to eq(200)

      # An input just past a swap (one key in its active half) keeps its
      # older half for capacity - 1 more adds; merged with a full one, so
      # does the union.
      fresh = Bloomc::A2BloomFilter.new(2000, 4, capacity: 50).add_all(Array.new(51) { |i| "s#{i}" })
      full = Bloomc::A2BloomFilter.new(2000, 4, capacity: 50).add_all(Array.new(50) { |i| "d#{i}" })
      kept = Array.new(50) { |i| "s#{i}" }
      [full | fresh, fresh | full, full.dup.merge!(fresh)].each do |merged|
        48.times { |i| merged << "n#{i}" }
        expect(merged.all_include?(kept)).to be(true)
      end
    end
  end

  describe "ContinuousBloomFilter on different clocks" do
    it "keeps each bucket's more recent slot, so a key live in either stays live for its own TTL" do
      a = Bloomc::ContinuousBloomFilter.new(4000, 4, 0)
      b = Bloomc::ContinuousBloomFilter.new(4000, 4, 0)
      a << "old"
      2.times { a.inc_time_slot } # "old" is in its last live tick
      7.times { b.inc_time_slot }
      b << "fresh"
      union = a | b
      expect(union.ticks).to eq(2) # the receiver's clock
      expect(union.include_all(%w[old fresh])).to eq([true, true])
      union.inc_time_slot
      expect(union.include_all(%w[old fresh])).to eq([false, true])
      2.times { union.inc_time_slot }
      expect(union.include?("fresh")).to be(false)
    end

    it "& keeps a key live in both only as long as it lives in the older of the two" do
      a = Bloomc::ContinuousBloomFilter.new(4000, 4, 0)
      b = Bloomc::ContinuousBloomFilter.new(4000, 4, 0)
      a << "k"
      a.inc_time_slot
      b << "k"
      b << "only-b"
      intersection = a & b
      expect(intersection.include_all(%w[k only-b])).to eq([true, false])
      intersection.inc_time_slot
      expect(intersection.include?("k")).to be(true)
      intersection.inc_time_slot
      expect(intersection.include?("k")).to be(false)
    end

    it "refuses a different TTL" do
      expect { Bloomc::ContinuousBloomFilter.new(100, 3, 0) | Bloomc::ContinuousBloomFilter.new(100, 3, 60) }
        .to raise_error(ArgumentError, /different ttl \(0 and 60\)/)
    end
  end

  it "merges a bloombroom drop-in filter with a Bloomc one of the same shape" do
    require "bloomc/bloombroom"
    legacy = Bloombroom::BloomFilter.new(1000, 3).tap { |f| f.add("a") }
    modern = Bloomc::BloomFilter.new(1000, 3, hash: :fnv1a).tap { |f| f.add("b") }
    expect((legacy | modern).include_all(%w[a b])).to eq([true, true])
    expect(modern | legacy).to be_an_instance_of(Bloomc::BloomFilter)
  end
end
