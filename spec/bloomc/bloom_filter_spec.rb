# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::BloomFilter do
  describe ".new" do
    it "takes m and k" do
      filter = described_class.new(1000, 3)
      expect([filter.m, filter.k, filter.size, filter.seed]).to eq([1000, 3, 0, 0])
    end

    it "sizes itself from capacity: and error_rate: by .find_m_k, and remembers them" do
      filter = described_class.new(capacity: 10_000, error_rate: 0.001)
      expect([filter.m, filter.k]).to eq([143_779, 10])
      expect([filter.capacity, filter.error_rate]).to eq([10_000, 0.001])
      expect([described_class.new(1000, 3).capacity, described_class.new(1000, 3).error_rate]).to eq([nil, nil])
    end

    it "takes a seed, which changes the bits a key sets" do
      a = described_class.new(1 << 16, 4, seed: 1)
      b = described_class.new(1 << 16, 4, seed: 2)
      a << "key"
      b << "key"
      expect(a.seed).to eq(1)
      expect(a.bits.to_a.each_index.select { |i| a.bits[i] == 1 })
        .not_to eq(b.bits.to_a.each_index.select { |i| b.bits[i] == 1 })
    end

    it "accepts m larger than 2**32 bits" do
      filter = described_class.new(2**32 + 1000, 3)
      filter << "big"
      expect(filter.include?("big")).to be(true)
      expect(filter.include?("small")).to be(false)
      expect(filter.m).to eq(2**32 + 1000)
    end

    bad_arguments = {
      [0, 3] => ArgumentError, [-1, 3] => ArgumentError, [1000, 0] => ArgumentError,
      [1000, -2] => ArgumentError, [1000, Bloomc::MAX_K + 1] => ArgumentError,
      [2**70, 3] => ArgumentError, [2**61, 3] => ArgumentError,
      [nil, 3] => ArgumentError, [1000, nil] => ArgumentError,
      ["1000", 3] => TypeError, [1000.0, 3] => TypeError, [1000, 3.5] => TypeError
    }
    bad_arguments.each do |(m, k), error|
      it "raises #{error} for m=#{m.inspect}, k=#{k.inspect}" do
        expect { described_class.new(m, k) }.to raise_error(error)
      end
    end

    {
      { capacity: 0, error_rate: 0.01 } => ArgumentError,
      { capacity: -5, error_rate: 0.01 } => ArgumentError,
      { capacity: 100, error_rate: 0 } => ArgumentError,
      { capacity: 100, error_rate: 1 } => ArgumentError,
      { capacity: 100, error_rate: 1.5 } => ArgumentError,
      { capacity: 100, error_rate: Float::NAN } => ArgumentError,
      { capacity: Float::INFINITY, error_rate: 0.01 } => ArgumentError,
      { capacity: 100 } => ArgumentError,
      { error_rate: 0.01 } => ArgumentError,
      { capacity: "100", error_rate: 0.01 } => TypeError,
      { capacity: 100, error_rate: "0.01" } => TypeError,
      { capacity: 100, error_rate: 0.01, seed: -1 } => RangeError,
      { capacity: 100, error_rate: 0.01, seed: 2**32 } => RangeError,
      { capacity: 100, error_rate: 0.01, seed: 1.0 } => TypeError
    }.each do |kwargs, error|
      it "raises #{error} for #{kwargs.inspect}" do
        expect { described_class.new(**kwargs) }.to raise_error(error)
      end
    end

    it "refuses m and k together with capacity: and error_rate:" do
      expect { described_class.new(1000, 3, capacity: 10, error_rate: 0.1) }.to raise_error(ArgumentError, /not both/)
    end

    it "raises NoMemoryError naming the bytes asked for, never crashes, for a size that cannot be allocated" do
      expect { described_class.new(2**60, 3) }
        .to raise_error(NoMemoryError, "failed to allocate #{2**57} bytes (#{format('%.1f', 2**27)} GiB) for a Bloomc::BloomFilter of m = #{2**60}")
      expect { Bloomc::BitField.new(2**60) }.to raise_error(NoMemoryError, /\Afailed to allocate #{2**57} bytes .* for a BitField of #{2**60} bits\z/)
    end
  end

  describe ".find_m_k" do
    # The formula's rate, worked out with 40 significant digits.
    def formula_rate(m, k, n)
      require "bigdecimal/math"
      return BigDecimal(1) if m == 1 # every key sets the one bit

      fill = 1 - BigMath.exp(BigMath.log(1 - BigDecimal(1).div(m, 40), 40) * (k * n), 40)
      fill.power(k, 40)
    end

    grid = [1, 2, 10, 100, 1000, 10_000, 100_000].product([0.5, 0.1, 0.01, 0.001, 1e-4, 1e-6, 1e-9])

    def expected_rate(m, k, n) = Bloomc::BloomHelper.send(:expected_rate, m, k, n)

    # E[(X/m)^k] over X's exact distribution, X the bits set by k * n
    # independent throws into m: a reference for the core's expected rate.
    def exact_expected_rate(m, k, n)
      set_cells_distribution(m, k * n).each_with_index.sum { |p, j| p * (j.to_f / m)**k }
    end

    it "keeps its promise: at capacity the expected rate, never below the formula's, is at most the error rate asked for" do
      require "bigdecimal"
      grid.each do |n, p|
        m, k = described_class.find_m_k(n, p)
        expect(expected_rate(m, k, n)).to be <= p, "n=#{n} p=#{p}: m=#{m} k=#{k}"
        expect(formula_rate(m, k, n)).to be <= BigDecimal(p.to_r, 40), "n=#{n} p=#{p}: m=#{m} k=#{k}"
      end
    end

    it "takes the fewest bits that do: one bit less errs above the rate at any nearby k" do
      grid.each do |n, p|
        m, k = described_class.find_m_k(n, p)
        ((k - 2).clamp(1, 128)..(k + 2).clamp(1, 128)).each do |other_k|
          expect(expected_rate(m - 1, other_k, n)).to be > p, "n=#{n} p=#{p}: m=#{m - 1} k=#{other_k} suffices"
        end
      end
    end

    it "keeps the rate at small capacities and tiny rates, where the probes' own collisions dominate" do
      [1, 2, 5, 8].product([1e-9, 1e-12, 1e-15, 1e-20]).each do |n, p|
        m, k = described_class.find_m_k(n, p)
        expect(exact_expected_rate(m, k, n)).to be <= p, "n=#{n} p=#{p}: m=#{m} k=#{k}"
      end
    end

    it "sizes small filters by the rate they will have, which the formula puts too low" do
      # capacity 1 at 0.001: the formula's m 15, k 9 has an expected rate of 1.8x
      expect(expected_rate(15, 9, 1) / formula_rate(15, 9, 1)).to be_within(0.1).of(1.8)
      expect(described_class.find_m_k(1, 0.001)).to eq([17, 7])
      expect(described_class.find_m_k(1, 0.01)).to eq([11, 6])
      expect(described_class.find_m_k(3, 0.0001)).to eq([61, 11])
    end

    it "computes the expected rate as the exact distribution of set bits does, and to 0.01% where it approximates" do
      [[11, 6, 1], [17, 7, 1], [61, 11, 3], [145, 9, 10], [300, 7, 30], [960, 7, 100], [1010, 7, 100], [480, 13, 20],
       [480, 33, 10], [222, 32, 5], [584, 48, 8], [489, 64, 5], [3, 9, 1], [2, 128, 1]].each do |m, k, n|
        exact = exact_expected_rate(m, k, n)
        expect(expected_rate(m, k, n)).to be_within(exact * 1e-4).of(exact), "m=#{m} k=#{k} n=#{n}"
      end
      # above the formula, by less as m grows
      expect(expected_rate(95_932, 7, 10_000)).to be_within(1e-6).of(formula_rate(95_932, 7, 10_000).to_f)
    end

    it "differs from bloombroom's sizing, which can err above the rate (BloomHelper keeps it for the drop-in)" do
      require "bigdecimal"
      m, k = Bloomc::BloomHelper.find_m_k(100_000, 0.01)
      expect(formula_rate(m, k, 100_000)).to be > BigDecimal("0.01")
      expect(described_class.find_m_k(100_000, 0.01)).to eq([959_298, 7])
    end

    it "measures at most the rate asked for, at capacity (fixed keys, 1,000,000 absent ones)" do
      [[100_000, 0.01], [20_000, 0.001]].each do |n, p|
        filter = described_class.new(capacity: n, error_rate: p)
        filter.add_all(Array.new(n) { |i| "present-#{i}" })
        measured = filter.count_included(Array.new(1_000_000) { |i| "absent-#{i}" }) / 1e6
        # 3 standard deviations of a million draws above the rate: bloombroom's
        # sizing measures 1.2% above it at 1%.
        expect(measured).to be <= p + 3 * Math.sqrt(p * (1 - p) / 1e6), "n=#{n} p=#{p}: #{measured}"
      end
    end

    it "raises ArgumentError for a capacity no filter can hold, and checks its arguments as BloomHelper does" do
      expect { described_class.find_m_k(2**64, 0.01) }.to raise_error(ArgumentError, /more bits than a filter can hold/)
      expect { described_class.find_m_k(0, 0.01) }.to raise_error(ArgumentError)
      expect { described_class.find_m_k(10, 1.0) }.to raise_error(ArgumentError)
      expect { described_class.find_m_k("10", 0.1) }.to raise_error(TypeError)
    end
  end

  describe "#add and #include?" do
    subject(:filter) { described_class.new(capacity: 1000, error_rate: 0.01) }

    it "returns self, so that adds chain as Set's and Array's do" do
      expect(filter.add("a")).to equal(filter)
      expect(filter << "b" << "c").to equal(filter)
      expect(filter << "a").to equal(filter)
      expect(filter.size).to eq(4)
      expect(filter.include_all(%w[a b c])).to eq([true, true, true])
    end

    it "finds what was added, through include? and []" do
      filter << "key1"
      filter.add("key2")
      expect(filter.include?("key1")).to be(true)
      expect(filter["key2"]).to be(true)
      expect(filter.include?("key3")).to be(false)
      expect(filter["key3"]).to be(false)
    end

    it "hashes a String by its bytes, whatever its encoding, NUL bytes included" do
      filter << "日本"
      expect(filter.include?("日本".encode("UTF-8"))).to be(true)
      expect(filter.include?("日本".b)).to be(true)
      expect(filter.include?("日月")).to be(false)
      filter << "a\0b"
      expect(filter.include?("a\0b")).to be(true)
      expect(filter.include?("a")).to be(false)
      filter << "\xff\xfe".b
      expect(filter.include?("\xff\xfe".dup.force_encoding("UTF-8"))).to be(true)
    end

    it "takes a Symbol by its name" do
      filter << :sym
      expect(filter.include?("sym")).to be(true)
      filter << "str"
      expect(filter.include?(:str)).to be(true)
    end

    it "takes an Integer by its value, distinct from the String of its digits" do
      big = 2**100
      filter << 42
      filter << big
      filter << -(2**64)
      expect(filter.include?(42)).to be(true)
      expect(filter.include?(2**100)).to be(true)
      expect(filter.include?(-(2**64))).to be(true)
      expect(filter.include?(2**64)).to be(false)
      expect(filter.include?("42")).to be(false)
      expect(filter.include?(43)).to be(false)
    end

    # An Integer is hashed as its 8 little-endian bytes, kept apart from the
    # String of those bytes: MurmurHash3 by its seed, FNV-1a (no seed) by
    # a constant over its hash.
    it "keeps an Integer apart from the String of its bytes, under either hash" do
      %i[murmur3 fnv1a].each do |hash|
        ints = described_class.new(10_000, 7, hash: hash).tap { |f| (1..200).each { |i| f << i } }
        strings = described_class.new(10_000, 7, hash: hash).tap { |f| (1..200).each { |i| f << [i].pack("q<") } }
        expect((1..200).count { |i| ints.include?([i].pack("q<")) }).to be <= 2
        expect((1..200).count { |i| strings.include?(i) }).to be <= 2
        expect([ints.count_included((1..200).to_a), strings.count_included((1..200).map { |i| [i].pack("q<") })]).to eq([200, 200])
      end
    end

    it "treats values on both sides of the Fixnum/Bignum boundary by value" do
      [2**62 - 1, 2**62, 2**63 - 1, 2**63, -(2**62) - 1, -(2**63)].each { |n| filter << n }
      [2**62 - 1, 2**62, 2**63 - 1, 2**63, -(2**62) - 1, -(2**63)].each do |n|
        expect(filter.include?(n)).to be(true)
      end
      expect(Bloomc::BloomHelper.multi_hash(2**62, 3)).not_to eq(Bloomc::BloomHelper.multi_hash(2**62 - 1, 3))
      expect(Bloomc::BloomHelper.multi_hash(2**63, 3)).not_to eq(Bloomc::BloomHelper.multi_hash(-(2**63), 3))
    end

    [nil, 1.5, [], {}, Object.new, true, Float::NAN].each do |key|
      it "raises TypeError naming the class for a #{key.class} key and leaves the filter unchanged" do
        filter << "present"
        before = filter.dup
        expect { filter.add(key) }.to raise_error(TypeError, /#{key.class}/)
        expect { filter.include?(key) }.to raise_error(TypeError, /#{key.class}/)
        expect(filter).to eq(before)
        expect(filter.size).to eq(1)
      end
    end

    it "sets at most k bits per key, at the positions multi_hash(key, k, m) names" do
      filter = described_class.new(10_007, 5)
      filter << "only"
      positions = Bloomc::BloomHelper.multi_hash("only", 5, 10_007)
      expect(filter.bits.total_set).to eq(positions.uniq.size)
      positions.each { |i| expect(filter.bits[i]).to eq(1) }
    end
  end

  describe "false-positive rate" do
    [0.01, 0.001].each do |target|
      it "stays within 1.25x of #{target} at capacity over 200,000 absent keys, with no false negative" do
        capacity = target == 0.01 ? 50_000 : 30_000
        present = hex_keys(capacity, seed: 20_261_122)
        absent = hex_keys(200_000, seed: 7)
        filter = described_class.new(capacity: capacity, error_rate: target)
        present.each { |key| filter << key }

        expect(present.all? { |key| filter.include?(key) }).to be(true)
        present_set = present.to_h { |key| [key, true] }
        absent.reject! { |key| present_set[key] }
        rate = absent.count { |key| filter.include?(key) }.fdiv(absent.size)
        expect(rate).to be <= 1.25 * target
        # A filter that answered true too rarely would be broken in another way.
        expect(rate).to be >= 0.5 * target
      end
    end
  end

  describe "#bits" do
    it "is a BitField view of the filter's own memory" do
      filter = described_class.new(1024, 3)
      bits = filter.bits
      expect(bits).to be_a(Bloomc::BitField)
      expect(bits.size).to eq(1024)
      filter << "x"
      expect(bits.total_set).to be_between(1, 3)
      bits.set(100)
      expect(filter.bits[100]).to eq(1)
    end

    it "keeps the filter alive while the view lives" do
      bits = described_class.new(4096, 3).tap { |f| f << "kept" }.bits
      GC.start
      compact_gc
      expect(bits.total_set).to be_between(1, 3)
    end

    it "refuses writes when the filter is frozen" do
      filter = described_class.new(64, 2)
      bits = filter.bits
      filter.freeze
      expect { bits.set(1) }.to raise_error(FrozenError)
      expect(bits.total_set).to eq(0)
    end
  end

  describe "copies, equality, freezing" do
    it "dup and clone are deep" do
      filter = described_class.new(1000, 4, seed: 9)
      filter << "a"
      copy = filter.dup
      copy << "b"
      expect(filter.include?("b")).to be(false)
      expect(copy.include?("a")).to be(true)
      expect([copy.m, copy.k, copy.seed, copy.size]).to eq([1000, 4, 9, 2])
      expect(filter.clone).to eq(filter)
    end

    it "== compares shape, seed, count and bits" do
      a = described_class.new(1000, 4)
      b = described_class.new(1000, 4)
      expect(a).to eq(b)
      a << "k"
      expect(a).not_to eq(b)
      b << "k"
      expect(a).to eq(b)
      expect(a).not_to eq(described_class.new(1000, 5))
      expect(a).not_to eq("not a filter")
    end

    it "a frozen filter refuses add and still answers" do
      filter = described_class.new(1000, 4)
      filter << "a"
      filter.freeze
      expect { filter << "b" }.to raise_error(FrozenError)
      expect { filter.add("b") }.to raise_error(FrozenError)
      expect { filter.send(:setup, 10, 1, 0, 0) }.to raise_error(FrozenError)
      expect(filter.include?("a")).to be(true)
      expect(filter.size).to eq(1)
    end

    it "an allocated but uninitialized filter raises instead of crashing" do
      filter = described_class.allocate
      expect { filter.include?("a") }.to raise_error(TypeError, /uninitialized/)
      expect { filter << "a" }.to raise_error(TypeError, /uninitialized/)
      expect { filter.m }.to raise_error(TypeError, /uninitialized/)
      expect { described_class.new(10, 1).send(:initialize_copy, filter) }.to raise_error(TypeError)
    end

    it "inspect is short" do
      expect(described_class.new(1_000_000, 7).inspect).to eq("#<Bloomc::BloomFilter m=1000000 k=7 size=0 fill=0.0% fpr~0>")
    end
  end

  describe "memory" do
    it "reports about m/8 bytes to ObjectSpace.memsize_of" do
      filter = described_class.new(8_000_000, 7)
      expect(ObjectSpace.memsize_of(filter)).to be_between(1_000_000, 1_000_000 + 320)
    end
  end
end
