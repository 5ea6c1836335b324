# frozen_string_literal: true

require "spec_helper"
require "set"
require "tmpdir"

RSpec.describe Bloomc::ScalableBloomFilter do
  # The first key never added that the filter finds all the same.
  def false_positive(filter, prefix = "probe")
    (0..).lazy.map { |i| "#{prefix}-#{i}" }.find { |key| filter.include?(key) }
  end

  # A key the filter does not find: new to it.
  def absent_key(filter, prefix = "absent")
    (0..).lazy.map { |i| "#{prefix}-#{i}" }.find { |key| !filter.include?(key) }
  end

  # The schedule's rate for layer i without max_capacity (README): the first
  # even_layers layers share the budget evenly, each later one takes
  # tightening times the share before it, and the shares sum to 1.
  def scheduled_rate(error_rate, tightening, even_layers, i)
    share = 1.0 / (even_layers + tightening / (1 - tightening))
    i < even_layers ? error_rate * share : error_rate * share * tightening**(i - even_layers + 1)
  end

  # The formula's rate of m bits and k probes at n keys.
  def formula_rate(m, k, n) = (1 - (1 - 1.0 / m)**(k * n))**k

  # A layer's bytes on the heap: its bits in whole 64-bit words (its slot in
  # the layer table is in the filter's struct, which has room for 64).
  def layer_bytes(layer) = (layer.m + 63) / 64 * 8

  def compound(rates) = 1 - rates.map { |r| 1 - r }.inject(1.0, :*)

  describe ".new" do
    it "has the documented defaults" do
      filter = described_class.new(error_rate: 0.01)
      expect([filter.error_rate, filter.initial_capacity, filter.growth, filter.tightening, filter.even_layers,
              filter.max_capacity, filter.capacity, filter.seed]).to eq([0.01, 8192, 2.0, 0.8, 10, nil, nil, 0])
      expect([filter.size, filter.distinct_count, filter.layers.size, filter.empty?, filter.over_capacity?]).to eq([0, 0, 1, true, false])
      expect(filter.growth).to be_a(Float)
      layer = filter.layers.first
      expect([layer.capacity, layer.count, layer.fill_ratio]).to eq([8192, 0, 0.0])
      expect(filter.m).to eq(layer.m)
    end

    it "keeps every parameter it is given" do
      filter = described_class.new(error_rate: 0.001, initial_capacity: 100, growth: 3r / 2, tightening: 0.5,
                                   even_layers: 3, max_capacity: 10_000, seed: 2**32 - 1)
      expect([filter.error_rate, filter.initial_capacity, filter.growth, filter.tightening, filter.even_layers,
              filter.max_capacity, filter.capacity, filter.seed]).to eq([0.001, 100, 1.5, 0.5, 3, 10_000, 10_000, 2**32 - 1])
      expect(described_class.new(error_rate: 1r / 100, growth: 64, even_layers: 0, max_capacity: 1).error_rate).to eql(0.01)
    end

    it "cuts the only layer to max_capacity when that is below initial_capacity" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 100, max_capacity: 10)
      expect(filter.layers.map { |l| [l.capacity, l.error_rate] }).to eq([[10, 0.01]])
    end

    it "needs error_rate:" do
      expect { described_class.new }.to raise_error(ArgumentError, /error_rate/)
      expect { described_class.new(0.01) }.to raise_error(ArgumentError)
      expect { described_class.new(error_rate: 0.01, capacity: 10) }.to raise_error(ArgumentError, /capacity/)
    end

    good = { error_rate: 0.01, initial_capacity: 100 }
    {
      error_rate: { TypeError => [nil, "0.01", :x, Complex(0.1, 0), [0.1]],
                    ArgumentError => [0, 0.0, -0.01, 1, 1.0, 1.5, Float::NAN, Float::INFINITY, -Float::INFINITY] },
      initial_capacity: { TypeError => [nil, 1.0, 100.0, "100", 10r],
                          ArgumentError => [0, -1, 2**60 + 1, 2**64, 2**60] }, # 2**60 keys need more than 2**60 bits
      growth: { TypeError => [nil, "2", :two, Complex(2, 0)],
                ArgumentError => [0, 0.5, 1, 1.2499, -2, 64.001, 65, Float::NAN, Float::INFINITY] },
      tightening: { TypeError => [nil, "0.8", Complex(0.8, 0)],
                    ArgumentError => [0, 0.0, 1, 1.0, -0.5, 1.5, Float::NAN] },
      even_layers: { TypeError => [nil, 1.0, "3", 3r],
                     ArgumentError => [-1, 65, 2**64] },
      max_capacity: { TypeError => [1.5, 100.0, "10", :ten],
                      ArgumentError => [0, -5, 2**60 + 1, 2**64] },
      seed: { TypeError => [nil, 1.5, "1"], RangeError => [-1, 2**32, 2**64] },
      hash: { ArgumentError => [:fnv1a, "murmur3", nil, :md5] }
    }.each do |keyword, by_error|
      by_error.each do |error, values|
        values.each do |value|
          it "raises #{error} for #{keyword}: #{value.inspect}" do
            expect { described_class.new(**good, keyword => value) }
              .to raise_error(error, /#{keyword.to_s.tr('_', '.')}|scalable|parameters|hash|seed/)
          end
        end
      end
    end

    it "accepts the ends of each range" do
      [{ growth: 1.25 }, { growth: 5r / 4 }, { growth: 64 }, { tightening: 1e-9 }, { tightening: 0.999 }, { even_layers: 0 }, { even_layers: 64 },
       { seed: 0 }, { seed: 2**32 - 1 }, { initial_capacity: 1 }, { max_capacity: 1 }, { hash: :murmur3 }].each do |kw|
        filter = described_class.new(**good, **kw)
        expect(filter.add?("a")).to equal(filter), kw.inspect
        expect(filter.include?("a")).to be(true)
      end
    end

    it "refuses a max_capacity its layers cannot reach within MAX_LAYERS layers" do
      reach = (0...64).sum { |i| [(1.25**i).round, 1].max } # the 64 layers of growth 1.25 from 1 key
      expect(described_class.new(error_rate: 0.01, initial_capacity: 1, growth: 1.25, max_capacity: reach).max_capacity).to eq(reach)
      expect { described_class.new(error_rate: 0.01, initial_capacity: 1, growth: 1.25, max_capacity: reach + 1) }
        .to raise_error(ArgumentError, /no scalable filter has those parameters/)
    end

    it "raises NoMemoryError, not a crash, for a first layer no machine holds" do
      expect { described_class.new(error_rate: 0.01, initial_capacity: 2**56) }
        .to raise_error(NoMemoryError, /\Afailed to allocate \d{17,} bytes .* for a Bloomc::ScalableBloomFilter of m = \d+\z/)
    end
  end

  describe "growth" do
    it "starts a layer exactly when the newest has taken its capacity of keys new to the filter" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 10)
      ends = [10, 30, 70, 150, 310] # where layers 0..4 are full
      taken = 0
      seen = []
      i = 0
      while taken < ends.last + 1
        key = "grow-#{i}"
        i += 1
        expected_layers = ends.count { |e| e < taken } + 1
        expect(filter.layers.size).to eq(expected_layers), "before new key #{taken + 1}"
        fresh = filter.add?(key)
        seen << key
        taken += 1 if fresh
        # a repeat of any key added before changes nothing but the add count
        size = filter.size
        layers_before = filter.layers
        expect(filter.add?(seen.sample(random: Random.new(i)))).to be_nil
        expect([filter.size, filter.layers]).to eq([size + 1, layers_before])
      end
      expect(filter.layers.size).to eq(6)
      expect(filter.layers.map(&:count)).to eq([10, 20, 40, 80, 160, 1])
      expect(filter.distinct_count).to eq(311)
    end

    it "does not count a false positive as new: it neither fills the layer nor starts the next" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 100)
      add_new_keys(filter, 100)
      expect(filter.layers.map(&:count)).to eq([100])
      probe = false_positive(filter)
      before = filter.dup
      expect(filter.add?(probe)).to be_nil
      expect(filter.add(probe)).to equal(filter)
      expect([filter.layers.size, filter.distinct_count, filter.size]).to eq([1, 100, before.size + 2])
      expect(filter.add?("surely new")).to equal(filter)
      expect(filter.layers.map(&:count)).to eq([100, 1])
    end

    it "counts the keys each add took: size every add, distinct_count the new ones, each layer its own" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 50)
      stream = numbered_keys(2000).each_with_index.flat_map { |key, i| i % 3 == 1 ? [key, key] : [key] }
      fresh = stream.count { |key| filter.add?(key) }
      layers = filter.layers
      expect(filter.size).to eq(stream.size)
      expect(filter.distinct_count).to eq(fresh)
      expect(fresh).to be_between(1990, 2000) # only false positives are not new
      expect(layers.sum(&:count)).to eq(fresh)
      expect(layers[0...-1].map(&:count)).to eq(layers[0...-1].map(&:capacity))
      expect(layers.last.count).to be_between(1, layers.last.capacity)
    end

    [1.25, 1.5, 2, 4].each do |growth|
      it "gives layer i the capacity initial_capacity * #{growth}**i, sized by BloomFilter.find_m_k for its rate" do
        filter = described_class.new(error_rate: 0.01, initial_capacity: 100, growth: growth)
        layers = 6
        add_new_keys(filter, (0...(layers - 1)).sum { |i| (100 * growth**i).round } + 1)
        expect(filter.layers.size).to eq(layers)
        filter.layers.each_with_index do |layer, i|
          expect(layer.capacity).to eq((100 * growth**i).round)
          expect([layer.m, layer.k]).to eq(Bloomc::BloomFilter.find_m_k(layer.capacity, layer.error_rate))
          expect(formula_rate(layer.m, layer.k, layer.capacity)).to be <= layer.error_rate * (1 + 1e-9)
        end
        expect(filter.m).to eq(filter.layers.sum(&:m))
      end
    end

    # The slowest growth from one key: the first 40 layers of a schedule
    # (of its 64) in 30,000 keys.
    def whole_schedule(**kw)
      filter = described_class.new(error_rate: 0.01, initial_capacity: 1, growth: 1.25, **kw)
      add_new_keys(filter, (0...40).sum { |i| [(1.25**i).round, 1].max })
      expect(filter.layers.size).to eq(40)
      filter.layers.map(&:error_rate)
    end

    it "spreads error_rate evenly over the first even_layers layers, then shrinks each by tightening; all sum to at most error_rate" do
      rates = whole_schedule
      expect(rates.first(10)).to all(be_within(1e-18).of(0.01 / 14)) # 10 + 0.8 / 0.2 shares
      rates.each_with_index { |rate, i| expect(rate).to be_within(1e-18).of(scheduled_rate(0.01, 0.8, 10, i)) }
      expect(rates[10] / rates[9]).to be_within(1e-12).of(0.8)
      expect(rates[39] / rates[38]).to be_within(1e-12).of(0.8)
      expect(rates.sum).to be <= 0.01
      expect(rates.sum).to be > 0.0099 # the tail beyond 40 layers is all that is left over
      expect((0...10_000).sum { |i| scheduled_rate(0.01, 0.8, 10, i) }).to be_within(1e-15).of(0.01) # and it sums to the rest
    end

    it "gives layer i the paper's P(1 - r)r**i with even_layers: 0, tightening: 0.85" do
      rates = whole_schedule(even_layers: 0, tightening: 0.85)
      rates.each_with_index { |rate, i| expect(rate).to be_within(1e-15 * rate).of(0.01 * 0.15 * 0.85**i) }
      expect(rates.sum).to be <= 0.01
    end

    it "keeps the rates within error_rate for other schedules too" do
      [[0.5, 0], [0.9, 3], [0.8, 12], [0.999, 64]].each do |tightening, even|
        rates = whole_schedule(tightening: tightening, even_layers: even)
        rates.each_with_index { |rate, i| expect(rate).to be_within(1e-15 * rate).of(scheduled_rate(0.01, tightening, even, i)) }
        expect(rates.sum).to be <= 0.01 * (1 + 1e-12)
      end
    end

    it "with max_capacity, spreads error_rate evenly over exactly the layers that reach it, the last cut to end there" do
      {
        1000 => [100, 200, 400, 300], 700 => [100, 200, 400], 701 => [100, 200, 400, 1], 100 => [100], 50 => [50]
      }.each do |max, capacities|
        filter = described_class.new(error_rate: 0.01, initial_capacity: 100, max_capacity: max)
        add_new_keys(filter, max)
        expect(filter.layers.map(&:capacity)).to eq(capacities), "max_capacity #{max}"
        expect(filter.layers.map(&:count)).to eq(capacities)
        rates = filter.layers.map(&:error_rate)
        expect(rates).to all(be_within(1e-18).of(0.01 / capacities.size))
        expect(rates.sum).to be <= 0.01 * (1 + 1e-12)
        expect(compound(rates)).to be <= 0.01 * (1 + 1e-12)
        expect { filter << absent_key(filter) }.to raise_error(Bloomc::CapacityError, /max_capacity of #{max} keys/)
        expect(filter.over_capacity?).to be(false)
      end
    end

    it "holds its measured false-positive rate at or below error_rate at 1x, 10x, 100x and 1000x its initial capacity" do
      absent = numbered_keys(200_000, "absent")
      { {} => [0.01, 0.001], { even_layers: 0, tightening: 0.85 } => [0.01], { growth: 1.5 } => [0.01],
        { growth: 4, tightening: 0.5 } => [0.01] }.each do |kw, error_rates|
        error_rates.each do |error_rate|
          filter = described_class.new(error_rate: error_rate, initial_capacity: 100, **kw)
          added = 0
          [1, 10, 100, 1000].each do |times|
            filter.add_all(Array.new(100 * times - added) { |i| "present-#{added + i}" })
            added = 100 * times
            measured = filter.count_included(absent).fdiv(absent.size)
            expect(measured).to be <= error_rate, "#{kw} error_rate #{error_rate} at #{times}x: measured #{measured}"
            expect(filter.false_positive_rate).to be <= error_rate
          end
        end
      end
    end
  end

  # Many shapes from a fixed seed: every key added is found across layer
  # boundaries and in every copy, dump, load and union.
  describe "never loses a key" do
    def random_key(rng, i)
      case rng.rand(4)
      when 0 then "k#{i}-#{rng.rand(1000)}"
      when 1 then :"s#{i}"
      when 2 then i * 7919 - 100_000
      else rng.bytes(rng.rand(1..12))
      end
    end

    def found_all(filter, added, what)
      missing = added.reject { |key| filter.include?(key) }
      expect(missing).to be_empty, "#{what}: #{missing.size} of #{added.size} keys lost, e.g. #{missing.first(3).inspect}"
      expect(filter.all_include?(added)).to be(true), what
    end

    it "across layer boundaries, dump and load, dup, clone, Marshal and merge, in many shapes" do
      rng = Random.new(19)
      50.times do |shape|
        kw = { error_rate: [0.1, 0.01, 0.001].sample(random: rng), initial_capacity: [1, 2, 5, 17, 64].sample(random: rng),
               growth: [1.25, 1.5, 2, 4].sample(random: rng), tightening: [0.5, 0.8, 0.9].sample(random: rng),
               even_layers: rng.rand(0..12), seed: rng.rand(2**32) }
        kw[:max_capacity] = rng.rand(kw[:initial_capacity]..600) if rng.rand(3).zero?
        filter = described_class.new(**kw)
        other = described_class.new(**kw)
        what = "shape #{shape}: #{kw}"
        added = []
        other_added = []
        600.times do |i|
          target, list = rng.rand(4).zero? ? [other, other_added] : [filter, added]
          op = rng.rand(5)
          items = op < 3 ? [random_key(rng, i)] : [random_key(rng, i), random_key(rng, i + 10_000), list.sample(random: rng)].compact
          before = target.dup if kw[:max_capacity]
          begin
            case op
            when 0 then target << items[0]
            when 1 then target.add?(items[0])
            when 2 then target.add(items[0])
            when 3 then target.add_all(items)
            else target.add_new(items)
            end
            list.concat(items)
          rescue Bloomc::CapacityError
            expect(kw[:max_capacity]).not_to be_nil, what
            expect(target).to eq(before), "#{what}: a refused add changed the filter"
            expect(target.distinct_count).to be > kw[:max_capacity] - items.size, what
          end
          found_all(filter, added, "#{what} after #{added.size} keys") if (i % 50).zero?
        end
        found_all(filter, added, what)
        copies = { "dump/load" => Bloomc.load(filter.dump), "compressed" => described_class.load(filter.dump(compress: true)),
                   "dup" => filter.dup, "clone" => filter.clone, "Marshal" => Marshal.load(Marshal.dump(filter)) }
        copies.each do |name, copy|
          expect(copy).to eq(filter), "#{what}: #{name}"
          found_all(copy, added, "#{what}: #{name}")
        end
        found_all(filter | other, added + other_added, "#{what}: |")
        found_all(other | filter, added + other_added, "#{what}: | reversed")
        merged = filter.dup.merge!(other)
        found_all(merged, added + other_added, "#{what}: merge!")
        more = Array.new(50) { |i| "after-merge-#{shape}-#{i}" }
        begin
          merged.add_all(more)
          found_all(merged, added + other_added + more, "#{what}: adds after merge!")
        rescue Bloomc::CapacityError
          found_all(merged, added + other_added, "#{what}: a refused batch after merge!")
        end
      end
    end
  end

  describe "add?, add_new and the batch forms" do
    subject(:filter) { described_class.new(error_rate: 0.01, initial_capacity: 20) }

    it "add? returns self for a key new to the filter, nil for one it holds, as Set#add? does; add and << return self" do
      expect(filter.add?("a")).to equal(filter)
      expect(filter.add?("a")).to be_nil
      expect(filter.add("b")).to equal(filter)
      expect(filter.add?("b")).to be_nil
      expect(filter << "c" << :d << 5).to equal(filter)
      expect([filter.add?("c"), filter.add?(:d), filter.add?("d"), filter.add?(5), filter.add?(6)]).to eq([nil, nil, nil, nil, filter])
      expect(filter.size).to eq(12)
      expect(filter.distinct_count).to eq(6)
    end

    it "add_new returns the keys (the same objects) that were new, in order, a repeat new only at its first place" do
      first = +"x"
      again = +"x"
      sym = :y
      filter << "old"
      result = filter.add_new([first, "old", 12, again, sym, 12, sym, "z"])
      expect(result).to eq(["x", 12, :y, "z"])
      expect(result[0]).to equal(first)
      expect(filter.add_new([])).to eq([])
      expect(filter.add_new(Set["x", "w"])).to eq(["w"])
      expect(filter.add_new({ "v" => 1 }.each_key)).to eq(["v"])
      expect(filter.size).to eq(12)
    end

    it "adds a batch across layer boundaries as the same keys added one at a time would" do
      batch = numbered_keys(700) + numbered_keys(100) + numbered_keys(30, "other")
      one_by_one = described_class.new(error_rate: 0.01, initial_capacity: 20)
      expected = batch.select { |key| one_by_one.add?(key) }
      expect(filter.add_new(batch)).to eq(expected)
      expect(filter).to eq(one_by_one)
      expect(filter.layers.size).to eq(6)
      all = described_class.new(error_rate: 0.01, initial_capacity: 20)
      expect(all.add_all(batch)).to equal(all)
      expect(all).to eq(one_by_one)
      expect(all.include_all(batch + ["never"])).to eq([true] * batch.size + [false])
      expect(all.count_included(batch)).to eq(batch.size)
      expect([all.all_include?(batch), all.any_include?(["never", numbered_keys(1)[0]]), all.any_include?([]), all.all_include?([])])
        .to eq([true, true, false, true])
    end

    it "raises TypeError for a bad key or a batch that is not Enumerable, and leaves the filter as it was" do
      filter.add_all(numbered_keys(50))
      before = filter.dup
      [-> { filter.add(nil) }, -> { filter << 1.5 }, -> { filter.add?([]) }, -> { filter.include?(nil) },
       -> { filter.add_all(["a", nil]) }, -> { filter.add_new(numbered_keys(100, "fresh") + [Object.new]) },
       -> { filter.add_all(5) }, -> { filter.add_new("abc") }, -> { filter.include_all([:a, 2.0]) }].each do |call|
        expect { call.call }.to raise_error(TypeError)
        expect(filter).to eq(before)
      end
      expect(filter.layers.size).to eq(before.layers.size)
    end
  end

  describe "max_capacity" do
    subject(:filter) { described_class.new(error_rate: 0.01, initial_capacity: 10, max_capacity: 35) }

    let!(:taken) { add_new_keys(filter, 33) }

    it "raises CapacityError for a new key past it and changes nothing; present keys still add" do
      add_new_keys(filter, 2, "last")
      expect(filter.distinct_count).to eq(35)
      before = filter.dup
      memsize = ObjectSpace.memsize_of(filter)
      fresh = absent_key(filter, "new")
      [-> { filter.add(fresh) }, -> { filter << fresh }, -> { filter.add?(fresh) }, -> { filter.add_all([fresh]) }].each do |call|
        expect { call.call }.to raise_error(Bloomc::CapacityError, /max_capacity of 35 keys/)
        expect(filter).to eq(before)
        expect(ObjectSpace.memsize_of(filter)).to eq(memsize)
      end
      expect(filter.include?(fresh)).to be(false)
      expect(filter.add(taken[0])).to equal(filter)
      expect(filter.add?(taken[1])).to be_nil
      expect(filter.add_new(taken)).to eq([])
      expect(filter.size).to eq(before.size + 2 + taken.size)
      expect(filter.add_all(taken.reverse)).to equal(filter)
    end

    it "refuses a batch that crosses it whole, and takes one that fits exactly" do
      before = filter.dup
      three = (0..).lazy.map { |i| "three-#{i}" }.reject { |key| filter.include?(key) }.first(3) # all three new
      one_more = absent_key(filter.dup.add_all(%w[two-a two-b]), "one more") # new after those two too
      [-> { filter.add_all(three) }, -> { filter.add_new(three) }, -> { filter.add_new(taken + three) },
       -> { filter.add_all(["two-a", "two-b", "two-a", one_more]) }].each do |call|
        expect { call.call }.to raise_error(Bloomc::CapacityError)
        expect(filter).to eq(before)
        expect(filter.include_all(three)).to eq([false] * 3)
      end
      expect(filter.add_new(taken + %w[two-a two-b] + taken + %w[two-a])).to eq(%w[two-a two-b]) # repeats are not new
      expect(filter.distinct_count).to eq(35)
      expect(filter.layers.map(&:count)).to eq([10, 20, 5])
    end

    it "is all-or-nothing for a batch that starts a layer before it is refused" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 10, max_capacity: 100)
      add_new_keys(filter, 10)
      before = filter.dup
      memsize = ObjectSpace.memsize_of(filter)
      expect { filter.add_all(numbered_keys(200, "many")) }.to raise_error(Bloomc::CapacityError)
      expect([filter == before, filter.layers.size, ObjectSpace.memsize_of(filter)]).to eq([true, 1, memsize])
      add_new_keys(filter, 90, "many")
      expect(filter.layers.map(&:count)).to eq([10, 20, 40, 30])
    end

    it "without max_capacity, refuses adds past its last possible layer the same way, batches whole" do
      # With tightening 1e-150 a third layer's share of the error rate is
      # below the smallest double: the filter has two layers, of 10 and 20
      # keys. (The 64-layer limit takes over 6 million keys at the slowest
      # growth, 1.25.)
      filter = described_class.new(error_rate: 0.01, initial_capacity: 10, tightening: 1e-150, even_layers: 0)
      add_new_keys(filter, 25)
      expect(filter.layers.map(&:capacity)).to eq([10, 20])
      before = filter.dup
      expect { filter.add_all(numbered_keys(100, "past")) }.to raise_error(Bloomc::CapacityError, /cannot grow past 2 layers/)
      expect(filter).to eq(before)
      expect { filter.add_new(numbered_keys(6, "six")) }.to raise_error(Bloomc::CapacityError)
      expect(filter).to eq(before)
      add_new_keys(filter, 5, "fits")
      expect([filter.layers.size, filter.distinct_count]).to eq([2, 30])
      full = filter.dup
      fresh = absent_key(filter)
      [-> { filter << fresh }, -> { filter.add?(fresh) }, -> { filter.add_new([fresh]) }].each do |call|
        expect { call.call }.to raise_error(Bloomc::CapacityError)
        expect(filter).to eq(full)
      end
    end
  end

  describe "union" do
    let(:kw) { { error_rate: 0.01, initial_capacity: 100 } }
    let(:left) { numbered_keys(1000, "left") }
    let(:right) { numbered_keys(250, "right") }
    let(:a) { described_class.new(**kw).add_all(left) }
    let(:b) { described_class.new(**kw).add_all(right) }

    it "finds every key of both, whichever has more layers, and adds up the sizes" do
      a_before = a.dup
      b_before = b.dup
      [a | b, b | a, b.dup.merge!(a), a.dup.merge!(b)].each do |union|
        expect(union).to be_an_instance_of(described_class)
        expect(union.all_include?(left + right)).to be(true)
        expect(union.size).to eq(1250)
        expect(union.layers.size).to eq([a.layers.size, b.layers.size].max)
        union.add_all(numbered_keys(2000, "more"))
        expect(union.all_include?(left + right + numbered_keys(2000, "more"))).to be(true)
      end
      expect([a, b]).to eq([a_before, b_before])
      expect(b.merge!(a)).to equal(b)
    end

    it "refuses a filter of other parameters with an ArgumentError naming the one that differs" do
      {
        error_rate: 0.02, initial_capacity: 101, growth: 3, tightening: 0.7, even_layers: 9, max_capacity: 10**6, seed: 1
      }.each do |name, value|
        other = described_class.new(**kw, name => value)
        mine = a.public_send(name)
        expect { a | other }.to raise_error(ArgumentError, /different #{name} \(#{Regexp.escape(mine.inspect)} and /)
        expect { a.merge!(other) }.to raise_error(ArgumentError, /different #{name}/)
      end
      expect { a | Bloomc::BloomFilter.new(10, 1) }.to raise_error(ArgumentError, /cannot combine a #{described_class} with a Bloomc::BloomFilter/)
      expect { a.merge!(nil) }.to raise_error(ArgumentError, /with NilClass/)
      expect(a).to eq(described_class.new(**kw).add_all(left))
    end

    it "re-counts each merged layer from its bits, so over_capacity? tells when a union overfilled one" do
      one = described_class.new(**kw).add_all(numbered_keys(100, "one"))
      two = described_class.new(**kw).add_all(numbered_keys(100, "two"))
      expect([one.over_capacity?, two.over_capacity?, one.layers.size]).to eq([false, false, 1])
      union = one | two
      expect(union.layers.size).to eq(1)
      expect(union.layers[0].count).to be_within(10).of(200)
      expect(union.distinct_count).to eq(union.layers[0].count)
      expect(union.over_capacity?).to be(true)
      expect(union.false_positive_rate).to be > union.error_rate
      # the same keys twice are not more keys
      twice = one | one.dup
      expect(twice.layers[0].count).to be_within(5).of(100)
      expect(twice.over_capacity?).to be(false)
      # a union's next new key starts a layer: the overfilled one takes no more
      union << absent_key(union)
      expect(union.layers.map(&:count)).to eq([union.layers[0].count, 1])
    end

    it "counts a merged layer at most as the keys of both, even once its bits are all set" do
      build = -> { described_class.new(error_rate: 0.5, initial_capacity: 1) }
      union = build.call.add("first")
      merged = 1
      until union.layers[0].fill_ratio == 1.0
        union.merge!(build.call.add("other-#{merged}"))
        merged += 1
        expect(union.layers[0].count).to be_between(1, merged)
      end
      expect(union.estimated_count).to eq(Float::INFINITY)
      # a full layer counts the keys of both: a few more take its count past
      # what its share of the rate allows
      3.times { union.merge!(build.call.add("other-#{merged}")).then { merged += 1 } }
      expect(union.distinct_count).to eq(union.layers.sum(&:count))
      expect(union.distinct_count).to be <= merged
      expect(union.over_capacity?).to be(true)
      expect(Bloomc.load(union.dump)).to eq(union)
    end

    it "has no intersection: & raises UnsupportedError" do
      expect { a & b }.to raise_error(Bloomc::UnsupportedError, /no exact intersection/)
      expect { a & a.dup }.to raise_error(Bloomc::UnsupportedError)
      expect { a & nil }.to raise_error(Bloomc::UnsupportedError)
      expect { a.freeze & b }.to raise_error(Bloomc::UnsupportedError)
    end
  end

  describe "a frozen filter" do
    it "refuses every write with FrozenError and changes nothing; reads, | and copies work" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(30))
      other = described_class.new(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(30, "other"))
      before = filter.dup
      filter.freeze
      [-> { filter.add("x") }, -> { filter << "x" }, -> { filter.add?("x") }, -> { filter.add?(numbered_keys(1)[0]) },
       -> { filter.add_all(["x"]) }, -> { filter.add_all([]) }, -> { filter.add_new(["x"]) }, -> { filter.merge!(other) },
       -> { filter.clear }, -> { filter.send(:initialize, error_rate: 0.1) }, -> { filter.send(:marshal_load, other.dump) },
       -> { filter.send(:initialize_copy, other) }].each do |write|
        expect { write.call }.to raise_error(FrozenError)
        expect(filter).to eq(before)
      end
      expect(filter.all_include?(numbered_keys(30))).to be(true)
      expect(filter.dup.frozen?).to be(false)
      expect(filter.clone.frozen?).to be(true)
      expect((filter | other).all_include?(numbered_keys(30) + numbered_keys(30, "other"))).to be(true)
      expect(Bloomc.load(filter.dump)).to eq(before)
    end
  end

  describe "an uninitialized filter (allocate)" do
    let(:raw) { described_class.allocate }

    it "inspects as (uninitialized)" do
      expect(raw.inspect).to eq("#<#{described_class} (uninitialized)>")
    end

    it "raises TypeError on use" do
      filter = described_class.new(error_rate: 0.01)
      calls = {
        add: ["a"], "<<": ["a"], add?: ["a"], include?: ["a"], "[]": ["a"], add_all: [["a"]], add_new: [["a"]],
        include_all: [["a"]], count_included: [["a"]], all_include?: [["a"]], any_include?: [["a"]],
        size: [], distinct_count: [], m: [], seed: [], error_rate: [], initial_capacity: [], growth: [],
        tightening: [], even_layers: [], max_capacity: [], capacity: [], over_capacity?: [], layers: [],
        fill_ratio: [], estimated_count: [], false_positive_rate: [], empty?: [], clear: [], hash: [], dump: [],
        "==": [filter], "|": [filter], merge!: [filter], dup: [], clone: []
      }
      calls.each do |name, args|
        expect { raw.public_send(name, *args) }.to raise_error(TypeError, /uninitialized/), name.to_s
      end
      expect { filter == raw }.to raise_error(TypeError, /uninitialized/)
      expect { filter.merge!(raw) }.to raise_error(TypeError, /uninitialized/)
      expect { Marshal.dump(raw) }.to raise_error(TypeError)
      expect(raw == raw).to be(true)
    end
  end

  describe "memsize" do
    before do
      skip "the layer table's size is for 64-bit machines" unless [0].pack("J").bytesize == 8
    end

    it "grows by exactly a layer's bytes when a layer is added" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 100)
      6.times do
        before = ObjectSpace.memsize_of(filter)
        layers = filter.layers.size
        filter << "next-#{filter.size}" until filter.layers.size > layers
        expect(ObjectSpace.memsize_of(filter) - before).to eq(layer_bytes(filter.layers.last))
        filter.add_all(numbered_keys(10, "same-layer-#{layers}"))
        expect(ObjectSpace.memsize_of(filter) - before).to eq(layer_bytes(filter.layers.last))
      end
    end

    it "is a constant plus the layers' bytes, whatever the filter" do
      build = described_class.method(:new)
      filters = [
        build.call(error_rate: 0.01),
        build.call(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(5000)),
        build.call(error_rate: 0.001, initial_capacity: 3, growth: 1.5, tightening: 0.5, even_layers: 2).add_all(numbered_keys(3000)),
        build.call(error_rate: 0.1, initial_capacity: 7, max_capacity: 500).add_all(numbered_keys(400)),
        build.call(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(5000)).clear,
        build.call(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(50)) |
          build.call(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(900)),
        Bloomc.load(build.call(error_rate: 0.01, initial_capacity: 10).add_all(numbered_keys(700)).dump)
      ]
      filters << filters[1].dup
      constants = filters.map { |f| ObjectSpace.memsize_of(f) - f.layers.sum { |l| layer_bytes(l) } }
      expect(constants.uniq.size).to eq(1), constants.inspect
      expect(constants.first).to be_between(1, 3072) # the struct with its table of 64 layers (and Ruby's slot)
      expect(filters.map { |f| f.layers.size }.uniq.size).to be >= 4
    end
  end

  describe "#inspect" do
    it "is short and shows each layer's keys, over its capacity while it fills, and the rate" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 100)
      expect(filter.inspect).to eq("#<#{described_class} error_rate=0.01 size=0 layers=1 (0/100) fpr~0>")
      taken = add_new_keys(filter, 400)
      filter.add_all(taken.first(5))
      expect(filter.inspect).to eq("#<#{described_class} error_rate=0.01 size=#{filter.size} layers=3 (100 200 100/400) " \
                                   "fpr~#{format('%.2g', filter.false_positive_rate)}>")
    end

    it "elides the middle layers of a long chain" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 1).add_all(numbered_keys(5000))
      counts = filter.layers.map(&:count)
      expect(counts.size).to be >= 12
      expect(filter.inspect).to include("layers=#{counts.size} (1 2 ... #{counts[-2]} #{counts[-1]}/#{filter.layers.last.capacity})")
      expect(filter.inspect.size).to be < 120
    end
  end

  describe "statistics" do
    it "starts empty: no fill, no keys, no false positives" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 100)
      expect([filter.fill_ratio, filter.estimated_count, filter.false_positive_rate, filter.empty?]).to eq([0.0, 0.0, 0.0, true])
      filter << "a"
      expect(filter.empty?).to be(false)
    end

    it "reads fill, rate and count from each layer's bits" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 100).add_all(numbered_keys(3000))
      layers = filter.layers
      expect(filter.fill_ratio).to be_within(1e-12).of(layers.sum { |l| l.fill_ratio * l.m } / filter.m)
      expect(layers.map(&:fill_ratio)).to all(be_between(0.0, 0.55))
      expect(filter.false_positive_rate).to be_within(1e-12).of(compound(layers.map { |l| l.fill_ratio**l.k }))
      expect(filter.estimated_count).to be_within(0.05 * 3000).of(3000)
    end

    it "clear forgets every key: one empty first layer, size 0, the same parameters" do
      filter = described_class.new(error_rate: 0.01, initial_capacity: 10, seed: 4).add_all(numbered_keys(500))
      first = filter.layers.first.m
      expect(filter.clear).to equal(filter)
      expect([filter.size, filter.distinct_count, filter.layers.size, filter.m, filter.empty?, filter.seed]).to eq([0, 0, 1, first, true, 4])
      expect(filter.count_included(numbered_keys(500))).to eq(0)
      expect(filter).to eq(described_class.new(error_rate: 0.01, initial_capacity: 10, seed: 4))
    end
  end

  describe "persistence" do
    it "round-trips through dump, Marshal and save as kind 9 of format version 2, and adds on alike" do
      filter = described_class.new(error_rate: 0.001, initial_capacity: 30, growth: 1.5, max_capacity: 5000, seed: 8).add_all(numbered_keys(1000))
      data = filter.dump
      expect(data.unpack("S<2", offset: 8)).to eq([2, 9])
      Dir.mktmpdir do |dir|
        path = File.join(dir, "s.bloom")
        filter.save(path, compress: true)
        [Bloomc.load(data), described_class.load(filter.dump(compress: true)), Marshal.load(Marshal.dump(filter)),
         Bloomc.load_file(path), described_class.load_file(path)].each do |copy|
          expect(copy).to eq(filter)
          expect(copy.hash).to eq(filter.hash)
          expect(copy.layers).to eq(filter.layers)
          expect([copy.size, copy.max_capacity, copy.growth]).to eq([1000, 5000, 1.5])
          expect(copy.add_new(numbered_keys(1200))).to eq(filter.dup.add_new(numbered_keys(1200)))
        end
      end
      expect { Bloomc::BloomFilter.load(data) }.to raise_error(Bloomc::FormatError, /holds a #{described_class}/)
    end
  end
end
