# frozen_string_literal: true

require_relative "filter_key"
require "tmpdir"

# A generated bad-input matrix. Every public method of every class and module
# is enumerated from the loaded code (a method without an entry in the tables
# below fails "has a calling recipe for every public method") and called with
# each value of VALUES in each argument position, keyword included, and with
# one argument too many. Each outcome is checked against what README's "Bad
# input" paragraph and the call-seq comments promise for that kind of argument
# (success, or exactly the documented exception class); a success is checked
# against a reference model of the receiver, a raise against a snapshot taken
# before the call (README: bad input "raises and leaves the object as it was").
# Receivers include frozen objects and the views (#bits, #buckets) of live and
# frozen filters. start_timer is called once per receiver, without arguments,
# and is followed by stop_timer; its thread must be running (asleep until its
# first tick) after a success and must not exist after a raise.
module BadInputMatrix
  # The values the matrix is built from, with the labels its messages use.
  BAD_VALUES = [
    ["nil", nil], ["true", true], ["1.5", 1.5], ["Float::NAN", Float::NAN],
    ["Float::INFINITY", Float::INFINITY], ["-Float::INFINITY", -Float::INFINITY],
    ["-1", -1], ["0", 0], ["2**64", 2**64], ["-(2**64)", -(2**64)], ["2**200", 2**200],
    ['""', ""], ['"\xff\x00\xfe".b', "\xff\x00\xfe".b.freeze], ['"10"', "10"], [":sym", :sym],
    ["[]", [].freeze], ["{}", {}.freeze], ["Object.new", Object.new.freeze]
  ].freeze
  # Numbers of the right type that no machine can serve: sizes at and near the
  # documented maxima (NoMemoryError), and capacities whose m overflows a Float.
  HUGE_VALUES = [["2**56", 2**56], ["2**60", 2**60], ["1e308", 1e308], ["2**1100", 2**1100]].freeze
  VALUES = (BAD_VALUES + HUGE_VALUES).freeze

  # README's "Bad input" classes (and Bloomc::Error subclasses): the only
  # exceptions any expected outcome below may name.
  DOCUMENTED = [ArgumentError, TypeError, IndexError, RangeError, FrozenError, NoMemoryError,
                Bloomc::UnsupportedError, SystemCallError].freeze
  NOMEM_BYTES = 2**44 # an allocation above this must fail (NoMemoryError), below it must succeed
  BITS_MAX = 2**60
  BUCKETS_MAX = 2**56
  LN2 = Math.log(2)

  @calls = 0
  class << self
    attr_accessor :calls
  end

  module_function

  # ---- what a value in a position of a given kind must do -----------------

  def count(v, max, bytes_per)
    return [TypeError] unless v.is_a?(Integer)
    return [ArgumentError] if v <= 0 || v > max

    v * bytes_per > NOMEM_BYTES ? [NoMemoryError] : [:ok]
  end

  def real?(v) = v.is_a?(Integer) || v.is_a?(Float)

  # As Float arithmetic (2**1100 is Infinity there, without a warning).
  def find_m(capacity, error)
    capacity = Float::INFINITY if capacity.is_a?(Integer) && capacity > 2**1000
    capacity * Math.log(error) / Math.log(1.0 / 2**LN2)
  end

  # capacity (with error rate 0.01) for find_m_k (max nil) or a filter of at most max.
  def capacity(v, max = nil, bytes_per = 0)
    return [TypeError] unless real?(v)
    return [ArgumentError] unless v.positive? && v.finite?

    m = find_m(v, 0.01)
    return [ArgumentError] unless m.finite? # no Integer m exists: the capacity is too large
    return [:ok] unless max

    count(m.ceil, max, bytes_per)
  end

  # Deng and Rafiei's stable point, as the libBf manual gives it: the zero
  # fraction (1 / (1 + 1 / (d (1/k - 1/m))))**max and the rate (1 - zeros)**k.
  def stable_fpr(m, k, d, width)
    zeros = (1.0 / (1 + 1.0 / (d * (1.0 / k - 1.0 / m))))**(2**width - 1)
    (1 - zeros)**k
  end

  def error_rate(v)
    return [TypeError] unless real?(v)

    v.positive? && v < 1 ? [:ok] : [ArgumentError]
  end

  def outcome(kind, v, ctx)
    case kind
    when :any then [:ok]
    when :never then [ArgumentError]
    when :must_be_nil then v.nil? ? [:ok] : [ArgumentError]
    when :boolean then [true, false].include?(v) ? [:ok] : [TypeError]
    when :murmur3_only then v == :murmur3 ? [:ok] : [ArgumentError]
    when :murmur3_either then %i[murmur3 murmur3_mixed].include?(v) ? [:ok] : [ArgumentError]
    when :position
      return [TypeError] unless v.is_a?(Integer)

      (0...ctx.size).cover?(v) ? [:ok] : [IndexError]
    when :key then v.is_a?(String) || v.is_a?(Symbol) || v.is_a?(Integer) ? [:ok] : [TypeError]
    when :keys
      return [TypeError] unless v.is_a?(Enumerable)

      v.to_a.all? { |key| outcome(:key, key, ctx) == [:ok] } ? [:ok] : [TypeError]
    when :string then v.is_a?(String) ? [:ok] : [TypeError]
    when :seed
      return [TypeError] unless v.is_a?(Integer)

      (0..0xffffffff).cover?(v) ? [:ok] : [RangeError]
    when :fnv_seed then v.is_a?(Integer) && v.zero? ? [:ok] : [ArgumentError, TypeError, RangeError]
    when :k, :k_ctor
      return [ArgumentError] if v.nil? && kind == :k_ctor
      return [TypeError] unless v.is_a?(Integer)

      (1..128).cover?(v) ? [:ok] : [ArgumentError]
    when :width
      return [TypeError] unless v.is_a?(Integer)

      (1..32).cover?(v) ? [:ok] : [ArgumentError]
    when :bucket_value
      return [TypeError] unless v.is_a?(Integer)

      (0..ctx.max).cover?(v) ? [:ok] : [ArgumentError]
    when :bit_value
      return [:ok] if v.equal?(true) || v.equal?(false) || (v.is_a?(Integer) && [0, 1].include?(v))

      v.is_a?(Integer) ? [ArgumentError] : [ArgumentError, TypeError]
    when :base
      return [:ok] if v.is_a?(Integer) && [2, 10].include?(v)

      v.is_a?(Integer) ? [ArgumentError] : [ArgumentError, TypeError]
    when :hash_name
      return [:ok] if %i[murmur3_mixed murmur3 fnv1a].include?(v)

      v.is_a?(Symbol) ? [ArgumentError] : [ArgumentError, TypeError]
    when :count_or_zero
      return [TypeError] unless real?(v)

      v >= 0 ? [:ok] : [ArgumentError] # NaN compares false
    when :multi_m then v.nil? ? [:ok] : count(v, BITS_MAX, 0)
    when :size_bf then count(v, BITS_MAX, 1r / 8)
    when :size_bbf then count(v, BUCKETS_MAX, 3r / 8) # width 3
    when :bf_m then v.nil? ? [ArgumentError] : count(v, BITS_MAX, 1r / 8)
    when :cbf_m then v.nil? ? [ArgumentError] : count(v, BUCKETS_MAX, 1r / 2)
    when :fmk_capacity then capacity(v)
    when :fmk_error then error_rate(v)
    when :capacity_bf then v.nil? ? [ArgumentError] : capacity(v, BITS_MAX, 1r / 8)
    when :capacity_cbf then v.nil? ? [ArgumentError] : capacity(v, BUCKETS_MAX, 1r / 2)
    when :error_ctor then v.nil? ? [ArgumentError] : error_rate(v)
    when :same_filter then [ArgumentError] # any of VALUES: not a filter of the receiver's kind
    when :threads
      return [:ok] if v.nil?
      return [TypeError] unless v.is_a?(Integer)

      v >= 1 ? [:ok] : [ArgumentError]
    when :metadata # a String valid as text, a Hash of JSON values, or nil to remove it
      return [TypeError] unless v.nil? || v.is_a?(String) || v.is_a?(Hash)

      v.is_a?(String) && !v.ascii_only? && v.encoding == Encoding::BINARY ? [ArgumentError] : [:ok]
    when :path # save runs in an empty directory of its own
      return [TypeError] unless v.is_a?(String)
      return [ArgumentError] if v.include?("\0")

      v.empty? ? [ArgumentError] : [:ok] # "" is the directory itself: not a regular file
    when :cells3_m then v.nil? ? [ArgumentError] : count(v, BUCKETS_MAX, 3r / 8) # width 3
    when :capacity_cells3 # width 3, error rate 0.01
      return [ArgumentError] if v.nil?

      checked = capacity(v, BUCKETS_MAX, 3r / 8)
      return checked unless checked == [:ok]

      m, k = find_m_k(v, 0.01)
      # not even d = m settles at the rate, up to 64 times the cells
      stable_fpr(64 * m, k, 64 * m, 3) <= 0.01 ? [:ok] : [ArgumentError]
    when :capacity_rm then v.nil? ? [ArgumentError] : capacity(v, BUCKETS_MAX, 3r / 4) # width 4, secondary m/2
    when :secondary_m then v.nil? ? [:ok] : count(v, BUCKETS_MAX, 1r / 2)
    when :algorithm then %i[mi rm].include?(v) ? [:ok] : [ArgumentError]
    when :stable_d
      return [ArgumentError] if v.nil?
      return [TypeError] unless v.is_a?(Integer)

      (1..64).cover?(v) ? [:ok] : [ArgumentError] # d of at most m = 64 cells
    when :random_seed
      return [:ok] if v.nil?
      return [TypeError] unless v.is_a?(Integer)

      (0...(2**64)).cover?(v) ? [:ok] : [RangeError]
    when :a2_m_or_nil then v.nil? ? [:ok] : count(v, BITS_MAX, 1r / 8)
    when :a2_capacity # keys per half; nil: the manual's optimum
      return [:ok] if v.nil?
      return [TypeError] unless v.is_a?(Integer)

      v.positive? && v < 2**64 ? [:ok] : [ArgumentError, RangeError]
    when :a2_capacity_ctor # with error_rate 0.01: k = 8, m = 2 * ceil(capacity * 8 / ln 2) bits
      return [ArgumentError] if v.nil?

      checked = capacity(v)
      return checked unless checked == [:ok]
      return [TypeError] unless v.is_a?(Integer)

      count(2 * (v * 8 / LN2).ceil, BITS_MAX, 1r / 8)
    # ScalableBloomFilter.new's keywords, the others at the form's defaults
    # (error rate 0.01, initial capacity 100, growth 2, tightening 0.8, 10
    # even layers: the first layer's rate is 0.01 / 14).
    when :scalable_error then v.nil? ? [TypeError] : error_rate(v)
    when :scalable_initial
      return [TypeError] unless v.is_a?(Integer)
      return [ArgumentError] unless (1..BITS_MAX).cover?(v)

      m, = begin
        find_m_k(v, 0.01 / 14)
      rescue ArgumentError
        return [ArgumentError] # no layer of at most 2**60 bits holds it
      end
      count(m, BITS_MAX, 1r / 8)
    when :scalable_growth
      return [TypeError] unless real?(v)

      v >= 1.25 && v <= 64 ? [:ok] : [ArgumentError]
    when :scalable_tightening then v.nil? ? [TypeError] : error_rate(v) # 0 < v < 1, like a rate
    when :scalable_even
      return [TypeError] unless v.is_a?(Integer)

      (0..64).cover?(v) ? [:ok] : [ArgumentError]
    when :scalable_max
      return [:ok] if v.nil?
      return [TypeError] unless v.is_a?(Integer)

      (1..BITS_MAX).cover?(v) ? [:ok] : [ArgumentError] # growth 2 from 100 reaches 2**60 in 54 layers
    when :unsupported then [Bloomc::UnsupportedError]
    when :cuckoo_buckets then v.nil? ? [ArgumentError] : count(v, BUCKETS_MAX / 4, 12r / 2) # 4 slots of 12 bits
    when :fingerprint_bits
      return [ArgumentError] if v.nil?
      return [TypeError] unless v.is_a?(Integer)

      (8..32).cover?(v) ? [:ok] : [ArgumentError]
    when :cuckoo_capacity # at error rate 0.01: 10-bit fingerprints, capacity / 3.8 buckets
      return [ArgumentError] if v.nil?

      checked = capacity(v)
      checked == [:ok] ? count((v / 3.8).ceil, BUCKETS_MAX / 4, 10r / 2) : checked
    when :fuse_bits
      return [TypeError] unless v.is_a?(Integer)

      [8, 16].include?(v) ? [:ok] : [ArgumentError]
    when :ttl
      return [ArgumentError, TypeError] if v.nil?
      return [TypeError] unless real?(v)

      v.finite? && v >= 0 && v <= Bloomc::ContinuousBloomFilter::MAX_TTL ? [:ok] : [ArgumentError]
    else raise "no oracle for argument kind #{kind.inspect}"
    end
  end

  # ---- reference implementations ------------------------------------------

  def fnv(name, str)
    bits = name.to_s.end_with?("64") ? 64 : 32
    prime = bits == 64 ? 0x100000001b3 : 0x01000193
    h = bits == 64 ? 0xcbf29ce484222325 : 0x811c9dc5
    mask = 2**bits - 1
    alt = name.to_s.start_with?("fnv1a")
    str.each_byte do |b|
      if alt
        h = ((h ^ b) * prime) & mask
      else
        h = ((h * prime) & mask) ^ b
      end
    end
    h
  end

  def murmur3_32(str, seed)
    m = 0xffffffff
    rotl = ->(x, r) { ((x << r) | (x >> (32 - r))) & m }
    mix = ->(k) { (rotl[(k * 0xcc9e2d51) & m, 15] * 0x1b873593) & m }
    bytes = str.bytes
    h = seed
    (bytes.size / 4).times do |i|
      h ^= mix[bytes[i * 4, 4].each_with_index.sum { |b, j| b << (8 * j) }]
      h = (rotl[h, 13] * 5 + 0xe6546b64) & m
    end
    tail = bytes[(bytes.size / 4 * 4)..]
    h ^= mix[tail.each_with_index.sum { |b, j| b << (8 * j) }] unless tail.empty?
    h ^= bytes.size
    h ^= h >> 16
    h = (h * 0x85ebca6b) & m
    h ^= h >> 13
    h = (h * 0xc2b2ae35) & m
    h ^ (h >> 16)
  end

  # CRC-32C bit by bit: reflected polynomial 0x82F63B78, init and final xor
  # 0xFFFFFFFF; crc is the checksum of the bytes before str.
  def crc32c(str, crc = 0)
    c = crc ^ 0xffffffff
    str.each_byte do |b|
      c ^= b
      8.times { c = c.odd? ? (c >> 1) ^ 0x82f63b78 : c >> 1 }
    end
    c ^ 0xffffffff
  end

  # What new(capacity:, error_rate:) sizes by (bloom_filter_spec checks
  # that its rate is the least m that keeps its promise).
  def find_m_k(capacity, error) = Bloomc::BloomFilter.find_m_k(capacity, error)

  # bloombroom's sizing, which BloomHelper.find_m_k keeps.
  def bloombroom_find_m_k(capacity, error)
    m = find_m(capacity, error).ceil
    [m, (LN2 * m / capacity).round.clamp(1, 128)]
  end

  def timer_threads = Thread.list.select { |t| t.name == "bloomc timer" && t.alive? }

  # ---- receivers: the object, its model, its snapshot and its invariants --

  # A receiver with no state (a module).
  class Stateless
    attr_reader :label, :obj

    def initialize(label, obj)
      @label = label
      @obj = obj
    end

    def write_frozen? = false
    def snapshot = nil
    def problems = []
    def resync; end
  end

  class FieldHarness
    attr_reader :label, :obj, :model, :owner

    def initialize(label, obj, owner: nil)
      @label = label
      @obj = obj
      @owner = owner
      resync
    end

    def resync = @model = obj.to_a
    def size = model.size
    def write_frozen? = obj.frozen? || (owner&.frozen? || false)
    def snapshot = [obj.size, obj.to_a, obj.total_set]

    def problems
      list = []
      list << "size #{obj.size} != model #{model.size}" unless obj.size == model.size
      list << "contents #{obj.to_a.inspect} != model #{model.inspect}" unless obj.to_a == model
      list << "total_set #{obj.total_set} != model #{model.count(&:positive?)}" unless obj.total_set == model.count(&:positive?)
      list << "the owner's view no longer matches" if owner && owner_view.to_a != obj.to_a
      list
    end
  end

  class BitFieldHarness < FieldHarness
    def owner_view = owner.bits
    def max = 1
  end

  class BucketFieldHarness < FieldHarness
    def initialize(label, obj, owner: nil)
      @width = obj.bits
      super
    end

    attr_reader :width

    def owner_view = owner.buckets
    def max = 2**width - 1

    def render(base)
      model.map { |v| base == 10 ? v.to_s : v.to_s(2).rjust(width, "0") }.join(" ")
    end
  end

  # A BloomFilter and the keys added to it; for seed 0 also its exact bits
  # (BloomHelper.multi_hash gives a seed-0 filter's positions).
  class BloomHarness
    attr_reader :label, :obj, :keys, :count

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @keys = []
      @count = 0
      @exact = obj.seed.zero? ? "0" * obj.m : nil
      keys.each { |key| add(key) }
      @exact = nil if @exact && @exact != obj.bits.to_s
    end

    def add(key)
      @keys << key
      @count += 1
      Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function).each { |p| @exact[p] = "1" } if @exact
    end

    def expected_include(key)
      return true if keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) }
      return nil unless @exact

      Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function).all? { |p| @exact[p] == "1" }
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.m, obj.k, obj.seed, obj.hash_function, obj.size, obj.bits.to_s]

    # Set operations with a copy of itself (SET_OPS).
    def model_keys = keys
    def merged_with_itself = @count *= 2

    def cleared
      @keys = []
      @count = 0
      @exact &&= "0" * obj.m
    end

    def problems
      list = []
      list << "size #{obj.size} != #{count} adds" unless obj.size == count
      missing = keys.reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      list << "bits differ from the seed-0 model" if @exact && obj.bits.to_s != @exact
      list
    end
  end

  # A BlockedBloomFilter: as a BloomFilter, without the exact bit model
  # (its positions are not BloomHelper.multi_hash's).
  class BlockedHarness < BloomHarness
    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @keys = []
      @count = 0
      @exact = nil
      keys.each { |key| add(key) }
    end
  end

  # A ContinuousBloomFilter with ttl 0 or a stopped timer: a Hash of key =>
  # tick of its last add, and for seed 0 the exact buckets.
  class ContinuousHarness
    attr_reader :label, :obj, :ticks

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @last_add = {}
      @ticks = 0
      @exact = obj.seed.zero? ? Array.new(obj.m, 0) : nil
      keys.each { |key| add(key) }
      @exact = nil if @exact && @exact != obj.buckets.to_a
    end

    def slot_at(tick) = tick % 15 + 1
    def slot = slot_at(ticks)
    def live_slots = (([ticks - 2, 0].max)..ticks).map { |t| slot_at(t) }

    def positions(key) = Bloomc::BloomHelper.multi_hash(key, obj.k, obj.m, hash: obj.hash_function)

    def add(key)
      @last_add[FilterKey.id(key)] = [key, ticks]
      positions(key).each { |p| @exact[p] = slot } if @exact
    end

    def tick
      @ticks += 1
      live = live_slots
      @exact&.map! { |v| live.include?(v) ? v : 0 }
    end

    def expected_include(key)
      entry = @last_add[FilterKey.id(key)]
      return true if entry && ticks - entry[1] < 3
      return nil unless @exact

      positions(key).all? { |p| @exact[p] != 0 }
    end

    def resync; end
    def write_frozen? = obj.frozen?

    def snapshot
      [obj.m, obj.k, obj.ttl, obj.seed, obj.hash_function, obj.ticks, obj.buckets.to_a, obj.timer_running?]
    end

    def model_keys = @last_add.values.select { |_, t| ticks - t < 3 }.map(&:first)
    def merged_with_itself; end

    def cleared
      @last_add = {}
      @exact&.fill(0)
    end

    def problems
      list = []
      list << "ticks #{obj.ticks} != model #{ticks}" unless obj.ticks == ticks
      lost = @last_add.values.select { |_, t| ticks - t < 3 }.map(&:first).reject { |key| obj.include?(key) }
      list << "false negatives within the TTL: #{lost.inspect}" unless lost.empty?
      values = obj.buckets.to_a
      stale = values.uniq - [0] - live_slots
      list << "buckets hold expired slots #{stale} (live #{live_slots})" unless stale.empty?
      list << "buckets differ from the seed-0 model" if @exact && values != @exact
      list << "timer running" if obj.timer_running?
      list
    end
  end

  # A filter of counters (Counting, Spectral MI and RM, Bitwise): each key's
  # adds less its deletes. A delete that succeeds for a key the model holds
  # none of (a false positive) takes from other keys, as documented; the
  # model then stops promising counts.
  class CellsHarness
    attr_reader :label, :obj, :size

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @net = {}
      @size = 0
      @tainted = false
      keys.each { |key| obj << key; add(key) }
    end

    def cap = obj.is_a?(Bloomc::BitwiseBloomFilter) ? Float::INFINITY : 2**obj.width - 1
    def rm? = obj.is_a?(Bloomc::SpectralBloomFilter) && obj.algorithm == :rm
    def net(key) = @net.fetch(FilterKey.id(key), [key, 0])[1]

    def add(key)
      id = FilterKey.id(key)
      @net[id] = [key, net(key) + 1]
      @size += 1
    end

    # The result of delete(key): true when the model holds the key.
    def delete(key, result)
      if net(key).positive?
        return "false for a key added #{net(key)} time(s)" unless result == true

        @net[FilterKey.id(key)] = [key, net(key) - 1]
      elsif result == true
        @tainted = true # a false positive deleted: documented to take from other keys
      elsif result != false
        return "not a boolean: #{result.inspect}"
      end
      @size -= 1 if result == true && @size.positive? # saturated cells let a delete succeed without its add
      true
    end

    # count(key): never below the true count (capped at the cell maximum),
    # except RM's, whose second table may hold less (the manual's RM trades
    # the bound for accuracy).
    def count_ok(key, result)
      return "not an Integer" unless result.is_a?(Integer) && result >= 0
      return "above the cell maximum #{cap}" if result > cap
      return true if @tainted || rm?

      floor = [net(key), cap].min
      result >= floor || "#{result} below the #{net(key)} adds"
    end

    def expected_include(key)
      return true if !@tainted && net(key).positive?

      nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def model_keys = @tainted ? [] : @net.values.select { |_, n| n.positive? }.map(&:first)
    def merged_with_itself = @size *= 2 # cells doubled: counts stay above the model's

    def cleared
      @net = {}
      @size = 0
      @tainted = false
    end

    def problems
      list = []
      list << "size #{obj.size} != model #{size}" unless obj.size == size
      return list if @tainted

      live = @net.values.select { |_, n| n.positive? }
      missing = live.map(&:first).reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      low = live.reject { |key, n| rm? || obj.count(key) >= [n, cap].min }
      list << "counts below the adds: #{low.inspect}" unless low.empty?
      list
    end
  end

  # A CuckooFilter: each key's copies added less deleted, as for a filter of
  # counters; a key's two buckets hold at most 2 * SLOTS copies of its
  # fingerprint, which count reports (more when other keys share them).
  class CuckooHarness < CellsHarness
    def cap = 2 * Bloomc::CuckooFilter::SLOTS
    def rm? = false

    # add_new stores a key only when it is not there (as add? does), so a
    # key it does not return (present, or a false positive) adds no copy.
    def add_new(key, returned) = returned && add(key)
  end

  # A BinaryFuseFilter: the set it was built from, which never changes.
  class FuseHarness
    attr_reader :label, :obj, :keys

    def initialize(label, obj, keys)
      @label = label
      @obj = obj
      @keys = keys
    end

    def expected_include(key)
      keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) } ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dump]
    def model_keys = keys

    def problems
      distinct = keys.map { |key| FilterKey.id(key) }.uniq.size
      list = []
      list << "size #{obj.size} != #{distinct} distinct keys" unless obj.size == distinct
      missing = keys.reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      list
    end
  end

  # A StableBloomFilter: an add takes 1 from each of d distinct cells and
  # sets the key's cells to the maximum, so a key is certainly found until
  # 2**width - 1 more adds have passed.
  class StableHarness
    attr_reader :label, :obj, :size

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @last_add = {}
      @size = 0
      keys.each { |key| obj << key; add(key) }
    end

    def add(key)
      @last_add[FilterKey.id(key)] = [key, @size]
      @size += 1
    end

    def fresh?(index) = size - 1 - index < 2**obj.width - 1

    def model_keys = @last_add.values.select { |_, i| fresh?(i) }.map(&:first)
    def merged_with_itself = @size *= 2 # the cells stay: keys only look older to the model

    def cleared
      @last_add = {}
      @size = 0
    end

    def expected_include(key)
      entry = @last_add[FilterKey.id(key)]
      entry && fresh?(entry[1]) ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def problems
      list = []
      list << "size #{obj.size} != model #{size}" unless obj.size == size
      lost = @last_add.values.select { |_, i| fresh?(i) }.map(&:first).reject { |key| obj.include?(key) }
      list << "recent keys lost: #{lost.inspect}" unless lost.empty?
      zeros = obj.zero_fraction
      list << "zero_fraction #{zeros} outside 0..1" unless zeros.is_a?(Float) && zeros.between?(0, 1)
      list
    end
  end

  # An A2BloomFilter: a half is cleared only after the other took capacity
  # new distinct keys, so a key is certainly found while fewer than capacity
  # other distinct keys were added after it.
  class A2Harness
    attr_reader :label, :obj, :size

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @recent = {} # key id => key, in order of last add
      @size = 0
      @swaps = obj.swaps
      keys.each { |key| obj << key; add(key) }
    end

    def add(key)
      id = FilterKey.id(key)
      @recent.delete(id)
      @recent[id] = key
      @size += 1
    end

    def kept = @recent.values.last(obj.capacity)

    # A union counts the active half as the fuller one: with itself, the same.
    def model_keys = kept
    def merged_with_itself = @size *= 2

    def cleared
      @recent = {}
      @size = 0
      @swaps = 0
    end

    def expected_include(key)
      kept.any? { |k| FilterKey.id(k) == FilterKey.id(key) } ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def problems
      list = []
      list << "size #{obj.size} != model #{size}" unless obj.size == size
      lost = kept.reject { |key| obj.include?(key) }
      list << "keys of the last #{obj.capacity} lost: #{lost.inspect}" unless lost.empty?
      list << "active_size #{obj.active_size} outside 0..#{obj.capacity}" unless obj.active_size.between?(0, obj.capacity)
      list << "swaps went from #{@swaps} to #{obj.swaps}" unless obj.swaps >= @swaps && obj.swaps <= @swaps + size
      list
    end
  end

  # A ScalableBloomFilter and the keys added to it (no exact bit model: the
  # layer a key went into depends on what came before it). Until a union
  # (which counts its layers again from their bits), every layer but the
  # newest holds exactly its capacity.
  class ScalableHarness
    attr_reader :label, :obj, :keys, :count, :merged

    def initialize(label, obj, keys = [])
      @label = label
      @obj = obj
      @keys = []
      @count = 0
      @merged = false
      keys.each { |key| add(key) }
    end

    def add(key)
      @keys << key
      @count += 1
    end

    def expected_include(key)
      keys.any? { |k| FilterKey.id(k) == FilterKey.id(key) } ? true : nil
    end

    def resync; end
    def write_frozen? = obj.frozen?
    def snapshot = [obj.size, obj.dup]

    def model_keys = keys

    def merged_with_itself
      @count *= 2
      @merged = true
    end

    def cleared
      @keys = []
      @count = 0
      @merged = false
    end

    def problems
      list = []
      list << "size #{obj.size} != #{count} adds" unless obj.size == count
      missing = keys.reject { |key| obj.include?(key) }
      list << "false negatives: #{missing.inspect}" unless missing.empty?
      layers = obj.layers
      list << "layer counts #{layers.map(&:count)} != distinct_count #{obj.distinct_count}" unless layers.sum(&:count) == obj.distinct_count
      list << "m #{obj.m} is not the layers' bits" unless layers.sum(&:m) == obj.m
      full = layers[0...-1].all? { |l| l.count == l.capacity }
      list << "a layer before the newest is not full: #{layers.map(&:count)}" unless merged || full
      list
    end
  end

  # ---- the recipes: how to call each public method and what success means --
  #
  # params: [kind, default] per positional parameter (default may be a lambda
  # of the receiver); opt: how many trailing ones are optional; kw: keyword
  # parameters; write: the method writes (FrozenError on a frozen receiver);
  # block: pass a block and check what it saw; ok: ->(h, args, kw, result,
  # yielded) checking a successful call against the model (and updating it),
  # returning true or a description of the mismatch.

  POSITION = [:position, ->(h) { h.size - 1 }].freeze
  OTHER = [:any, ->(h) { h.obj.dup }].freeze
  SAME_AS_DUP = ->(h, a, _, r, _) { r == (a[0].is_a?(h.obj.class) && a[0].to_a == h.obj.to_a && a[0].size == h.obj.size) }
  SAME_AS_DUP_FILTER = ->(h, a, _, r, _) { r == (a[0].is_a?(h.obj.class) && h.obj.dup == a[0]) }
  HASH_LIKE_DUP = ->(h, _, _, r, _) { r.is_a?(Integer) && r == h.obj.dup.hash }
  INSPECT = ->(h, _, _, r, _) { r.is_a?(String) && r.start_with?("#<#{h.obj.class}") }

  bit_read = ->(h, a, _, r, _) { r == h.model[a[0]] }
  bit_write = lambda do |value|
    ->(h, a, _, r, _) { h.model[a[0]] = value; r.equal?(h.obj) }
  end
  BIT_FIELD = {
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    "[]": { params: [POSITION], ok: bit_read },
    get: { params: [POSITION], ok: bit_read },
    "[]=": {
      params: [POSITION, [:bit_value, 1]], write: true,
      ok: ->(h, a, _, r, _) { h.model[a[0]] = [1, true].include?(a[1]) ? 1 : 0; r.equal?(a[1]) }
    },
    set: { params: [POSITION], write: true, ok: bit_write[1] },
    unset: { params: [POSITION], write: true, ok: bit_write[0] },
    include?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == (h.model[a[0]] == 1) } },
    zero?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == h.model[a[0]].zero? } },
    total_set: { ok: ->(h, _, _, r, _) { r == h.model.sum } },
    each: { block: true, ok: ->(h, _, _, r, y) { r.equal?(h.obj) && y == h.model } },
    to_s: { ok: ->(h, _, _, r, _) { r == h.model.join } },
    "==": { params: [OTHER], ok: SAME_AS_DUP },
    eql?: { params: [OTHER], ok: SAME_AS_DUP },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.freeze

  bucket_read = ->(h, a, _, r, _) { r == h.model[a[0]] }
  bucket_set = { params: [POSITION, [:bucket_value, ->(h) { h.max }]], write: true,
                 ok: ->(h, a, _, r, _) { h.model[a[0]] = a[1]; r.equal?(a[1]) } }
  BIT_BUCKET_FIELD = {
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    bits: { ok: ->(h, _, _, r, _) { r == h.width } },
    "[]": { params: [POSITION], ok: bucket_read },
    get: { params: [POSITION], ok: bucket_read },
    "[]=": bucket_set,
    set: bucket_set,
    zero?: { params: [POSITION], ok: ->(h, a, _, r, _) { r == h.model[a[0]].zero? } },
    inc: { params: [POSITION], write: true,
           ok: ->(h, a, _, r, _) { h.model[a[0]] = [h.model[a[0]] + 1, h.max].min; r == h.model[a[0]] } },
    dec: { params: [POSITION], write: true,
           ok: ->(h, a, _, r, _) { h.model[a[0]] = [h.model[a[0]] - 1, 0].max; r == h.model[a[0]] } },
    total_set: { ok: ->(h, _, _, r, _) { r == h.model.count(&:positive?) } },
    each: { block: true, ok: ->(h, _, _, r, y) { r.equal?(h.obj) && y == h.model } },
    to_s: { params: [[:base, 10]], opt: 1, ok: ->(h, a, _, r, _) { r == h.render(a.fetch(0, 2)) } },
    "==": { params: [OTHER], ok: SAME_AS_DUP },
    eql?: { params: [OTHER], ok: SAME_AS_DUP },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.freeze

  filter_lookup = lambda do |h, a, _, r, _|
    expected = h.expected_include(a[0])
    expected.nil? ? [true, false].include?(r) : r == expected || "expected #{expected}, got #{r.inspect}"
  end
  # The batch forms (Bloomc::Batch), checked key by key against the model.
  batch_keys = ->(a) { a[0].to_a }
  batch_expected = ->(h, a) { batch_keys[a].map { |key| h.expected_include(key) } }
  batch_decided = lambda do |h, a, r, decisive|
    expected = batch_expected[h, a]
    next r == decisive if expected.include?(decisive)
    next r == !decisive if expected.all?(!decisive)

    [true, false].include?(r)
  end
  KEYS = [:keys, ["added", :sym, 7, 2**70]].freeze
  # add_new: the keys the model knew to be absent just before their add
  # must come back, in order, those it knew present must not; the model
  # takes each add as it goes, so a repeat within the batch is present.
  # A harness with its own add_new(key, returned) decides what it keeps.
  add_new_ok = lambda do |h, a, _, r, _|
    next "not an Array" unless r.is_a?(Array)

    at = 0
    problems = batch_keys[a].filter_map do |key|
      expected = h.expected_include(key)
      given = at < r.size && r[at].equal?(key)
      h.respond_to?(:add_new) ? h.add_new(key, given) : h.add(key)
      at += 1 if given
      "#{key.inspect} #{expected ? 'was present' : 'was new'}" if expected == given
    end
    problems << "#{r.size - at} keys returned that are not new" if at < r.size
    problems.empty? || problems.join(", ")
  end
  # threads: on every batch method (nil: automatic; above 64: 64).
  THREADS = { threads: [:threads, 2] }.freeze
  BATCH = {
    add_all: { params: [KEYS], kw: THREADS, write: true,
               ok: ->(h, a, _, r, _) { batch_keys[a].each { |key| h.add(key) }; r.equal?(h.obj) } },
    add_new: { params: [KEYS], kw: THREADS, write: true, ok: add_new_ok },
    include_all: {
      params: [KEYS], kw: THREADS,
      ok: lambda do |h, a, _, r, _|
        expected = batch_expected[h, a]
        next "not an Array of #{expected.size} booleans" unless r.is_a?(Array) && r.size == expected.size

        r.zip(expected).all? { |got, want| want.nil? ? [true, false].include?(got) : got == want } || "#{r} vs #{expected}"
      end
    },
    count_included: {
      params: [KEYS], kw: THREADS,
      ok: ->(h, a, _, r, _) { e = batch_expected[h, a]; r.is_a?(Integer) && r.between?(e.count(true), e.count { |x| x != false }) }
    },
    # Decided as soon as any key's answer is the decisive one (false for
    # all_include?, true for any_include?); keys the model cannot answer
    # leave either result possible.
    all_include?: { params: [KEYS], kw: THREADS, ok: ->(h, a, _, r, _) { batch_decided[h, a, r, false] } },
    any_include?: { params: [KEYS], kw: THREADS, ok: ->(h, a, _, r, _) { batch_decided[h, a, r, true] } }
  }.freeze

  # Bloomc::Stats, in every filter class: read from the cells, so only
  # their ranges and their agreement with each other are checked here.
  STATS = {
    fill_ratio: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.between?(0, 1) } },
    # Infinity once the cells are all set (for A2: one half's).
    estimated_count: { ok: ->(h, _, _, r, _) { r.is_a?(Float) && r >= 0 && (r.finite? || h.obj.fill_ratio >= 0.5) } },
    false_positive_rate: { ok: ->(h, _, _, r, _) { r.is_a?(Float) && r.between?(0, 1) && (r.zero? == h.obj.fill_ratio.zero?) } }
  }.freeze

  # Bloomc::Sizing.
  SIZING = {
    capacity: { ok: ->(_, _, _, r, _) { r.nil? || (r.is_a?(Numeric) && r.positive?) } },
    error_rate: { ok: ->(_, _, _, r, _) { r.nil? || (r.is_a?(Float) && r.positive? && r < 1) } },
    over_capacity?: { ok: ->(h, _, _, r, _) { r == false || (r == true && !h.obj.capacity.nil?) } }
  }.freeze

  # Bloomc::SetOps, called with a copy of the receiver (same shape). A
  # union with itself keeps every key and adds up the sizes; an intersection
  # with itself keeps every key; clear forgets them all.
  TWIN = [:same_filter, ->(h) { h.obj.dup }].freeze
  found_all = ->(h, r) { h.model_keys.all? { |key| r.include?(key) } || "lost keys: #{h.model_keys.reject { |key| r.include?(key) }}" }
  SET_OPS = {
    "|": { params: [TWIN],
           ok: ->(h, _, _, r, _) { r.instance_of?(h.obj.class) && !r.equal?(h.obj) ? found_all[h, r] : "not a new #{h.obj.class}" } },
    "&": { params: [TWIN],
           ok: ->(h, _, _, r, _) { r.instance_of?(h.obj.class) && !r.equal?(h.obj) ? found_all[h, r] : "not a new #{h.obj.class}" } },
    merge!: { params: [TWIN], write: true,
              ok: ->(h, _, _, r, _) { h.merged_with_itself; r.equal?(h.obj) } },
    clear: { write: true, ok: ->(h, _, _, r, _) { h.cleared; r.equal?(h.obj) && h.obj.empty? } },
    empty?: { ok: ->(h, _, _, r, _) { r == h.obj.fill_ratio.zero? } }
  }.freeze

  # Bloomc::Persistence: a dump loads back equal; save writes a file that
  # does (run in an empty directory of their own).
  round_trip = ->(h, data) { (Bloomc.load(data) == h.obj) || "loads back as #{Bloomc.load(data).inspect}" }
  PERSISTENCE = {
    dump: { kw: { compress: [:any, true] },
            ok: ->(h, _, _, r, _) { r.is_a?(String) && r.encoding == Encoding::BINARY ? round_trip[h, r] : "not a binary String" } },
    save: { params: [[:path, "saved.bloom"]], kw: { compress: [:any, false] }, in_tmpdir: true,
            ok: ->(h, a, _, r, _) { r.equal?(h.obj) ? round_trip[h, File.binread(a[0])] : "did not return self" } }
  }.freeze

  # Bloomc::Metadata (Persistence includes it): what is set reads back, as
  # JSON gives it; a refusal keeps the old value (run_call's snapshot).
  METADATA = {
    metadata: { ok: ->(_, _, _, r, _) { r.nil? || ((r.is_a?(String) || r.is_a?(Hash)) && r.frozen?) } },
    "metadata=": { params: [[:metadata, "a note"]], write: true,
                   ok: lambda { |h, a, _, r, _|
                     got = h.obj.metadata
                     r.equal?(a[0]) && (a[0].nil? ? got.nil? : got == JSON.parse(JSON.generate(a[0]))) || "reads back as #{got.inspect}"
                   } }
  }.freeze

  # Bloomc::Pages: committing pages changes nothing a method can see, frozen
  # or not (run_call's snapshot checks it).
  PAGES = { prefault!: { ok: ->(h, _, _, r, _) { r.equal?(h.obj) } } }.freeze

  # Bloomc::Mapped on filters that are not mapped (mapped_spec covers the
  # mapped ones): flush and close do nothing.
  MAPPED = {
    flush: { ok: ->(h, _, _, r, _) { r.equal?(h.obj) } },
    close: { ok: ->(_, _, _, r, _) { r.nil? } },
    closed?: { ok: ->(_, _, _, r, _) { r == false } },
    path: { ok: ->(_, _, _, r, _) { r.nil? } },
    mapped?: { ok: ->(_, _, _, r, _) { r == false } }
  }.freeze

  # add and << return self; add? self for a key new to the model, nil for
  # one it holds (either where it cannot tell).
  filter_add = { params: [[:key, "added"]], write: true,
                 ok: ->(h, a, _, r, _) { h.add(a[0]); r.equal?(h.obj) } }
  filter_add_p = {
    params: [[:key, "added"]], write: true,
    ok: lambda do |h, a, _, r, _|
      expected = h.expected_include(a[0])
      h.add(a[0])
      next "returned #{r.inspect}, not self or nil" unless r.nil? || r.equal?(h.obj)

      expected.nil? || expected == r.nil? || "returned #{r.nil? ? 'nil' : 'self'} for a key #{expected ? 'present' : 'new'}"
    end
  }
  BLOOM_FILTER = {
    add: filter_add,
    "<<": filter_add,
    add?: filter_add_p,
    include?: { params: [[:key, "added"]], ok: filter_lookup },
    "[]": { params: [[:key, "never added"]], ok: filter_lookup },
    m: { ok: ->(h, _, _, r, _) { r == h.obj.bits.size } },
    k: { ok: ->(_h, _, _, r, _) { r.is_a?(Integer) && (1..128).cover?(r) } },
    seed: { ok: ->(_h, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    size: { ok: ->(h, _, _, r, _) { r == h.count } },
    bits: { ok: ->(h, _, _, r, _) { r.is_a?(Bloomc::BitField) && r.size == h.obj.m && r.total_set <= [h.count * h.obj.k, h.obj.m].min } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3 fnv1a].include?(r) } },
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.merge(BATCH, STATS, SET_OPS, PERSISTENCE, METADATA, PAGES, MAPPED, SIZING).freeze

  BLOCKED_BLOOM_FILTER = BLOOM_FILTER.reject { |name, _| MAPPED.key?(name) }.merge(
    m: { ok: ->(h, _, _, r, _) { r == h.obj.bits.size && (r % 512).zero? } },
    hash_function: { ok: ->(_, _, _, r, _) { r == :murmur3 } },
    expected_false_positive_rate: {
      params: [[:count_or_zero, 10]], opt: 1,
      ok: ->(_, _, _, r, _) { r.is_a?(Float) && r >= 0 && r <= 1 }
    }
  ).freeze

  CONTINUOUS_BLOOM_FILTER = {
    add: filter_add,
    "<<": filter_add,
    add?: filter_add_p,
    include?: { params: [[:key, "added"]], ok: filter_lookup },
    "[]": { params: [[:key, "never added"]], ok: filter_lookup },
    inc_time_slot: { write: true, ok: ->(h, _, _, r, _) { h.tick; r == h.slot } },
    # Called once per receiver with no arguments and followed by stop_timer
    # (run_call does both and checks the timer thread).
    start_timer: {
      base: lambda do |h|
        too_short = h.obj.ttl < Bloomc::ContinuousBloomFilter::MIN_TIMER_TTL
        if too_short then [ArgumentError] + (h.obj.frozen? ? [FrozenError] : [])
        else h.obj.frozen? ? [FrozenError] : [:ok]
        end
      end,
      ok: ->(h, _, _, r, _) { r.equal?(h.obj) }
    },
    stop_timer: { base: ->(h) { h.obj.frozen? ? [:ok, FrozenError] : [:ok] }, ok: ->(h, _, _, r, _) { r.equal?(h.obj) } },
    timer_running?: { ok: ->(_, _, _, r, _) { r == false } },
    freeze: { ok: ->(h, _, _, r, _) { r.equal?(h.obj) && r.frozen? && !r.timer_running? } },
    ticks: { ok: ->(h, _, _, r, _) { r == h.ticks } },
    m: { ok: ->(h, _, _, r, _) { r == h.obj.buckets.size } },
    k: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (1..128).cover?(r) } },
    ttl: { ok: ->(_, _, _, r, _) { r.is_a?(Numeric) && r >= 0 } },
    seed: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    buckets: { ok: ->(h, _, _, r, _) { r.is_a?(Bloomc::BitBucketField) && r.bits == 4 && r.size == h.obj.m } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3 fnv1a].include?(r) } },
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.merge(BATCH, STATS, SET_OPS, PERSISTENCE, METADATA, PAGES, MAPPED, SIZING).freeze

  cell_count = ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.obj.m) }
  FAMILY = {
    add: filter_add,
    "<<": filter_add,
    add?: filter_add_p,
    include?: { params: [[:key, "added"]], ok: filter_lookup },
    "[]": { params: [[:key, "never added"]], ok: filter_lookup },
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? } },
    k: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (1..128).cover?(r) } },
    seed: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3].include?(r) } },
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.merge(BATCH, STATS, SET_OPS, PERSISTENCE, METADATA, PAGES, SIZING).freeze
  WIDTH = { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (1..32).cover?(r) } }.freeze
  counted_delete = {
    params: [[:key, "added"]], write: true,
    # MI refuses every delete (Bloomc::UnsupportedError), frozen or not.
    refuse: ->(h) { [Bloomc::UnsupportedError] if h.obj.is_a?(Bloomc::SpectralBloomFilter) && h.obj.algorithm == :mi },
    ok: ->(h, a, _, r, _) { h.delete(a[0], r) }
  }
  counted = {
    delete: counted_delete,
    remove: counted_delete,
    count: { params: [[:key, "added"]], ok: ->(h, a, _, r, _) { h.count_ok(a[0], r) } },
    width: WIDTH
  }
  COUNTING_BLOOM_FILTER = FAMILY.merge(counted, MAPPED).merge(
    saturated: { ok: cell_count },
    cells_in_use: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.obj.m) && (r.positive? || h.obj.size.zero?) } }
  ).freeze
  SPECTRAL_BLOOM_FILTER = FAMILY.merge(counted).merge(
    saturated: { ok: cell_count },
    algorithm: { ok: ->(_, _, _, r, _) { %i[mi rm].include?(r) } },
    secondary_m: { ok: ->(h, _, _, r, _) { h.obj.algorithm == :mi ? r.nil? : r.is_a?(Integer) && r.positive? } }
  ).freeze
  BITWISE_BLOOM_FILTER = FAMILY.merge(
    count: counted[:count],
    width: WIDTH,
    levels: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.between?(1, 32) } }
  ).freeze
  unit_float = ->(_, _, _, r, _) { r.is_a?(Float) && r.between?(0, 1) }
  STABLE_BLOOM_FILTER = FAMILY.merge(
    d: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(1, h.obj.m) } },
    width: WIDTH,
    zero_fraction: { ok: unit_float },
    stable_zero_fraction: { ok: unit_float },
    stable_false_positive_rate: { ok: unit_float }
  ).freeze
  A2_BLOOM_FILTER = FAMILY.merge(
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? && r.even? } },
    capacity: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? } },
    active_size: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.obj.capacity) } },
    swaps: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.size) } },
    expected_false_positive_rate: { params: [[:count_or_zero, 10]], opt: 1, ok: unit_float }
  ).freeze

  layer_ok = lambda do |l|
    l.is_a?(Bloomc::ScalableBloomFilter::Layer) && l.m.positive? && (1..128).cover?(l.k) && l.capacity.positive? &&
      l.count >= 0 && l.error_rate.positive? && l.error_rate < 1 && l.fill_ratio.between?(0, 1)
  end
  SCALABLE_BLOOM_FILTER = {
    add: filter_add,
    "<<": filter_add,
    add?: filter_add_p,
    include?: { params: [[:key, "added"]], ok: filter_lookup },
    "[]": { params: [[:key, "never added"]], ok: filter_lookup },
    size: { ok: ->(h, _, _, r, _) { r == h.count } },
    distinct_count: {
      ok: ->(h, _, _, r, _) { r == h.obj.layers.sum(&:count) && (h.merged || r <= h.keys.size) }
    },
    m: { ok: ->(h, _, _, r, _) { r == h.obj.layers.sum(&:m) } },
    seed: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3].include?(r) } },
    error_rate: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.positive? && r < 1 } },
    initial_capacity: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r >= h.obj.layers[0].capacity } },
    growth: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.between?(1, 64) } },
    tightening: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.positive? && r < 1 } },
    even_layers: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.between?(0, 64) } },
    max_capacity: { ok: ->(h, _, _, r, _) { r.nil? || (r.is_a?(Integer) && r >= h.obj.layers.sum(&:capacity)) } },
    capacity: { ok: ->(h, _, _, r, _) { r == h.obj.max_capacity } },
    # only a union puts more keys in a layer than it was sized for
    over_capacity?: { ok: ->(h, _, _, r, _) { h.merged ? [true, false].include?(r) : r == false } },
    layers: {
      ok: ->(h, _, _, r, _) { r.is_a?(Array) && r.size.between?(1, 64) && r.all?(&layer_ok) && r == h.obj.dup.layers }
    },
    # a scalable filter has no intersection: & raises, whatever it is given
    "&": { params: [[:unsupported, ->(h) { h.obj.dup }]], base: ->(_) { [Bloomc::UnsupportedError] },
           ok: ->(_, _, _, _, _) { "returned instead of raising UnsupportedError" } },
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: ->(h, _, _, r, _) { INSPECT.call(h, nil, nil, r, nil) && r.include?("layers=#{h.obj.layers.size} (") } }
  }.merge(BATCH, STATS, SET_OPS.reject { |name, _| name == :& }, PERSISTENCE, METADATA, PAGES).freeze

  # add? stores a copy only of a key it does not find (the model follows
  # what it returned).
  cuckoo_add_p = {
    params: [[:key, "added"]], write: true,
    ok: lambda do |h, a, _, r, _|
      expected = h.expected_include(a[0])
      next "returned #{r.inspect}, not self or nil" unless r.nil? || r.equal?(h.obj)

      h.add(a[0]) if r.equal?(h.obj)
      expected.nil? || expected == r.nil? || "returned #{r.nil? ? 'nil' : 'self'} for a key #{expected ? 'present' : 'new'}"
    end
  }
  unsupported = ->(params) { { params: params, base: ->(_) { [Bloomc::UnsupportedError] }, ok: ->(*) { "returned instead of raising UnsupportedError" } } }
  # Without threads: (Batch's one check, covered in the other classes): each
  # call adds the keys again, and a cuckoo filter holds a key at most 8
  # times, so the calls for every threads: value would fill it.
  CUCKOO_BATCH = BATCH.transform_values { |recipe| recipe.except(:kw) }.freeze
  CUCKOO_FILTER = {
    add: filter_add,
    "<<": filter_add,
    add?: cuckoo_add_p,
    include?: { params: [[:key, "added"]], ok: filter_lookup },
    "[]": { params: [[:key, "never added"]], ok: filter_lookup },
    delete: counted_delete,
    remove: counted_delete,
    count: counted[:count],
    m: { ok: ->(h, _, _, r, _) { r == h.obj.buckets * Bloomc::CuckooFilter::SLOTS } },
    seed: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    buckets: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? } },
    fingerprint_bits: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (8..32).cover?(r) } },
    load_factor: { ok: ->(h, _, _, r, _) { r.is_a?(Float) && (r * h.obj.m).round == h.obj.size } },
    estimated_count: { ok: ->(h, _, _, r, _) { r == h.obj.size } },
    expected_false_positive_rate: { params: [[:count_or_zero, 10]], opt: 1, ok: unit_float },
    "&": unsupported[[[:unsupported, ->(h) { h.obj.dup }]]],
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: ->(h, _, _, r, _) { INSPECT.call(h, nil, nil, r, nil) && r.include?("size=#{h.obj.size} ") } }
  }.merge(CUCKOO_BATCH, STATS.reject { |name, _| name == :estimated_count }, SET_OPS.reject { |name, _| name == :& },
          PERSISTENCE, METADATA, PAGES, SIZING).freeze

  # Built once: every write raises UnsupportedError, whatever its arguments.
  BINARY_FUSE_FILTER = {
    include?: { params: [[:key, "added"]], ok: filter_lookup },
    "[]": { params: [[:key, "never added"]], ok: filter_lookup },
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r >= 0 } },
    seed: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    size: { ok: ->(h, _, _, r, _) { r == h.obj.dup.size } },
    fingerprint_bits: { ok: ->(_, _, _, r, _) { [8, 16].include?(r) } },
    bits_per_key: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r >= 0 } },
    capacity: { ok: ->(_, _, _, r, _) { r.nil? } },
    error_rate: { ok: ->(_, _, _, r, _) { r.nil? } },
    over_capacity?: { ok: ->(_, _, _, r, _) { r == false } },
    fill_ratio: { ok: unit_float },
    estimated_count: { ok: ->(h, _, _, r, _) { r == h.obj.size } },
    false_positive_rate: { ok: ->(h, _, _, r, _) { r == (h.obj.size.zero? ? 0.0 : 2.0**-h.obj.fingerprint_bits) } },
    empty?: { ok: ->(h, _, _, r, _) { r == h.obj.size.zero? } },
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.merge(BATCH.reject { |name, _| %i[add_all add_new].include?(name) }, PERSISTENCE, METADATA, PAGES).merge(
    %i[add << add? delete remove].to_h { |name| [name, unsupported[[[:unsupported, "x"]]]] },
    %i[add_all add_new].to_h { |name| [name, unsupported[[[:unsupported, ["x"]]]]] },
    %i[merge! | &].to_h { |name| [name, unsupported[[[:unsupported, ->(h) { h.obj.dup }]]]] },
    clear: unsupported[[]]
  ).freeze

  FNV = %i[fnv1_32 fnv1a_32 fnv1_64 fnv1a_64].to_h do |name|
    [name, { params: [[:string, "abc"]], ok: ->(_, a, _, r, _) { r == BadInputMatrix.fnv(name, a[0]) } }]
  end.freeze

  digest_int = ->(a) { Bloomc::Murmur3.digest128(*a).unpack("Q<Q<").then { |lo, hi| lo + (hi << 64) } }
  MURMUR3 = {
    hash32: { params: [[:string, "abcde"], [:seed, 0xdeadbeef]], opt: 1,
              ok: ->(_, a, _, r, _) { r == BadInputMatrix.murmur3_32(a[0], a.fetch(1, 0)) } },
    hash128: { params: [[:string, "abcde"], [:seed, 0xdeadbeef]], opt: 1, ok: ->(_, a, _, r, _) { r == digest_int[a] } },
    digest128: { params: [[:string, "abcde"], [:seed, 0xdeadbeef]], opt: 1,
                 ok: ->(_, a, _, r, _) { r.encoding == Encoding::BINARY && r.bytesize == 16 && r.unpack("Q<Q<").then { |lo, hi| lo + (hi << 64) } == Bloomc::Murmur3.hash128(*a) } }
  }.freeze

  CRC32C = {
    checksum: { params: [[:string, "123456789"], [:seed, 0xe3069283]], opt: 1,
                ok: ->(_, a, _, r, _) { r == BadInputMatrix.crc32c(*a) } }
  }.freeze

  multi_hash_ok = lambda do |_, a, kw, r, _|
    key, k, m = a
    next "not k Integers" unless r.is_a?(Array) && r.size == k && r.all?(Integer)
    next r.all? { |v| (0...(2**64)).cover?(v) } if m.nil?
    next false unless r.all? { |v| (0...m).cover?(v) }
    next true if m > 10_000

    filter = Bloomc::BloomFilter.new(m, k, hash: kw.fetch(:hash, :murmur3_mixed))
    filter << key
    filter.bits.each_with_index.select { |b, _| b == 1 }.map(&:last) == r.uniq.sort
  end
  BLOOM_HELPER = {
    find_m_k: { params: [[:fmk_capacity, 100], [:fmk_error, 0.01]],
                ok: ->(_, a, _, r, _) { r == BadInputMatrix.bloombroom_find_m_k(*a) } },
    multi_hash: { params: [[:key, "abc"], [:k, 5], [:multi_m, 1000]], opt: 1, kw: { hash: %i[hash_name fnv1a] },
                  ok: multi_hash_ok }
  }.freeze

  # ---- the receivers of each class (built fresh for each example) ---------

  RECEIVERS = {
    Bloomc::BitField => lambda do
      filled = Bloomc::BitField.new(70).tap { |f| [0, 3, 63, 64, 69].each { |i| f.set(i) } }
      owner = Bloomc::BloomFilter.new(64, 3).tap { |f| %w[a b c].each { |k| f << k } }
      frozen_owner = Bloomc::BloomFilter.new(64, 3).tap { |f| %w[a b c].each { |k| f << k } }.freeze
      [
        BitFieldHarness.new("BitField.new(1)", Bloomc::BitField.new(1)),
        BitFieldHarness.new("BitField.new(70) with bits", filled),
        BitFieldHarness.new("frozen BitField", filled.dup.freeze),
        BitFieldHarness.new("BloomFilter#bits", owner.bits, owner: owner),
        BitFieldHarness.new("frozen BloomFilter#bits", frozen_owner.bits, owner: frozen_owner)
      ]
    end,
    Bloomc::BitBucketField => lambda do
      field = lambda do |bits, size|
        f = Bloomc::BitBucketField.new(bits, size)
        max = 2**bits - 1
        (0...size).step(3) { |i| f[i] = [max, 1, max / 2][i % 3] }
        f
      end
      owner = Bloomc::ContinuousBloomFilter.new(20, 3, 0).tap { |f| f << "a" << "b" }
      frozen_owner = Bloomc::ContinuousBloomFilter.new(20, 3, 0).tap { |f| f << "a" << "b" }.freeze
      [
        BucketFieldHarness.new("BitBucketField.new(1, 9)", field[1, 9]),
        BucketFieldHarness.new("BitBucketField.new(3, 11)", field[3, 11]),
        BucketFieldHarness.new("BitBucketField.new(31, 5)", field[31, 5]),
        BucketFieldHarness.new("BitBucketField.new(32, 3)", field[32, 3]),
        BucketFieldHarness.new("frozen BitBucketField.new(7, 6)", field[7, 6].freeze),
        BucketFieldHarness.new("ContinuousBloomFilter#buckets", owner.buckets, owner: owner),
        BucketFieldHarness.new("frozen ContinuousBloomFilter#buckets", frozen_owner.buckets, owner: frozen_owner)
      ]
    end,
    Bloomc::BloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c"]
      filled = ->(*args, **kw) { Bloomc::BloomFilter.new(*args, **kw).tap { |f| keys.each { |k| f << k } } }
      [
        BloomHarness.new("BloomFilter.new(64, 3)", filled[64, 3], keys),
        BloomHarness.new("BloomFilter.new(1, 1)", Bloomc::BloomFilter.new(1, 1)),
        BloomHarness.new("fnv1a filter by capacity", filled[capacity: 50, error_rate: 0.01, hash: :fnv1a], keys),
        BloomHarness.new("BloomFilter.new(200, 128, seed: 2**32-1)", filled[200, 128, seed: 2**32 - 1], keys),
        BloomHarness.new("frozen BloomFilter", filled[64, 3].freeze, keys)
      ]
    end,
    Bloomc::ContinuousBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70]
      filled = ->(*args, **kw) { Bloomc::ContinuousBloomFilter.new(*args, **kw).tap { |f| keys.each { |k| f << k } } }
      [
        ContinuousHarness.new("ContinuousBloomFilter.new(32, 3, 0)", filled[32, 3, 0], keys),
        ContinuousHarness.new("ContinuousBloomFilter.new(5, 10, 0, hash: :fnv1a)", filled[5, 10, 0, hash: :fnv1a], keys),
        ContinuousHarness.new("ContinuousBloomFilter.new(capacity: 20, error_rate: 0.1, ttl: 60, seed: 99)",
                              filled[capacity: 20, error_rate: 0.1, ttl: 60, seed: 99], keys),
        ContinuousHarness.new("frozen ContinuousBloomFilter.new(16, 2, 60)", filled[16, 2, 60].freeze, keys),
        ContinuousHarness.new("frozen ContinuousBloomFilter.new(16, 2, 0)", filled[16, 2, 0].freeze, keys)
      ]
    end,
    Bloomc::BlockedBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c"]
      filled = ->(*args, **kw) { Bloomc::BlockedBloomFilter.new(*args, **kw).tap { |f| keys.each { |k| f << k } } }
      [
        BlockedHarness.new("BlockedBloomFilter.new(512, 3)", filled[512, 3], keys),
        BlockedHarness.new("BlockedBloomFilter.new(1, 1)", Bloomc::BlockedBloomFilter.new(1, 1)),
        BlockedHarness.new("BlockedBloomFilter by capacity", filled[capacity: 50, error_rate: 0.01, seed: 7], keys),
        BlockedHarness.new("BlockedBloomFilter.new(2000, 128, seed: 2**32-1)", filled[2000, 128, seed: 2**32 - 1], keys),
        BlockedHarness.new("frozen BlockedBloomFilter", filled[1024, 3].freeze, keys)
      ]
    end,
    Bloomc::CountingBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "a", "a"]
      make = ->(label, keys_in = keys, **kw) { CellsHarness.new(label, Bloomc::CountingBloomFilter.new(*kw.delete(:mk), **kw), keys_in) }
      [
        make["CountingBloomFilter.new(64, 3)", mk: [64, 3]],
        make["CountingBloomFilter.new(1, 1)", [], mk: [1, 1]],
        make["CountingBloomFilter.new(1, 1, width: 1) with keys", mk: [1, 1], width: 1],
        make["CountingBloomFilter by capacity, width 2", mk: [], capacity: 20, error_rate: 0.01, width: 2],
        make["CountingBloomFilter.new(200, 128, width: 32, seed: 2**32-1)", mk: [200, 128], width: 32, seed: 2**32 - 1],
        CellsHarness.new("frozen CountingBloomFilter", Bloomc::CountingBloomFilter.new(64, 3).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::SpectralBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "a", "a"]
      make = ->(label, *mk, **kw) { CellsHarness.new(label, Bloomc::SpectralBloomFilter.new(*mk, **kw), keys) }
      frozen = lambda do |label, **kw|
        CellsHarness.new(label, Bloomc::SpectralBloomFilter.new(64, 3, **kw).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      end
      [
        make["SpectralBloomFilter.new(64, 3) (MI)", 64, 3],
        make["SpectralBloomFilter.new(64, 3, algorithm: :rm, width: 2)", 64, 3, algorithm: :rm, width: 2],
        make["SpectralBloomFilter.new(1, 1, algorithm: :rm, secondary_m: 1)", 1, 1, algorithm: :rm, secondary_m: 1],
        make["SpectralBloomFilter RM by capacity, width 32", capacity: 20, error_rate: 0.01, algorithm: :rm, width: 32, seed: 3],
        make["SpectralBloomFilter.new(1, 1, width: 1) (MI)", 1, 1, width: 1],
        frozen["frozen SpectralBloomFilter (MI)"],
        frozen["frozen SpectralBloomFilter (RM)", algorithm: :rm]
      ]
    end,
    Bloomc::BitwiseBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "a", "a", "a"]
      make = ->(label, *mk, **kw) { CellsHarness.new(label, Bloomc::BitwiseBloomFilter.new(*mk, **kw), keys) }
      [
        make["BitwiseBloomFilter.new(64, 3, width: 1)", 64, 3, width: 1],
        make["BitwiseBloomFilter.new(1, 1, width: 1)", 1, 1, width: 1],
        make["BitwiseBloomFilter by capacity", capacity: 20, error_rate: 0.01, seed: 9],
        make["BitwiseBloomFilter.new(50, 128, width: 32)", 50, 128, width: 32],
        CellsHarness.new("frozen BitwiseBloomFilter", Bloomc::BitwiseBloomFilter.new(64, 3, width: 1).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::StableBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "c", "d", "e", "f", "g"]
      make = ->(label, *mk, **kw) { StableHarness.new(label, Bloomc::StableBloomFilter.new(*mk, random_seed: 1, **kw), keys) }
      [
        make["StableBloomFilter.new(64, 3, 5)", 64, 3, 5],
        make["StableBloomFilter.new(1, 1, 1, width: 1)", 1, 1, 1, width: 1],
        make["StableBloomFilter.new(8, 3, 8, width: 2)", 8, 3, 8, width: 2],
        make["StableBloomFilter by capacity, width 2", capacity: 20, error_rate: 0.05, width: 2, seed: 4],
        make["StableBloomFilter.new(16, 2, 16, width: 32)", 16, 2, 16, width: 32],
        StableHarness.new("frozen StableBloomFilter", Bloomc::StableBloomFilter.new(64, 3, 5, random_seed: 2).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::A2BloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "c", "d", "e", "a", "f"]
      make = ->(label, *mk, **kw) { A2Harness.new(label, Bloomc::A2BloomFilter.new(*mk, **kw), keys) }
      [
        make["A2BloomFilter.new(64, 3)", 64, 3],
        make["A2BloomFilter.new(2, 1, capacity: 1)", 2, 1, capacity: 1],
        make["A2BloomFilter by capacity 3", capacity: 3, error_rate: 0.01, seed: 2**32 - 1],
        make["A2BloomFilter.new(301, 128, capacity: 2)", 301, 128, capacity: 2],
        A2Harness.new("frozen A2BloomFilter", Bloomc::A2BloomFilter.new(64, 3, capacity: 3).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::ScalableBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c", "c"]
      filled = ->(**kw) { Bloomc::ScalableBloomFilter.new(**kw).tap { |f| keys.each { |k| f << k } } }
      [
        ScalableHarness.new("ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1) (3 layers)",
                            filled[error_rate: 0.01, initial_capacity: 1], keys),
        ScalableHarness.new("ScalableBloomFilter.new(error_rate: 0.1)", Bloomc::ScalableBloomFilter.new(error_rate: 0.1)),
        ScalableHarness.new("ScalableBloomFilter with max_capacity: 60, growth: 1.5, seed: 2**32-1",
                            filled[error_rate: 0.05, initial_capacity: 2, growth: 1.5, max_capacity: 60, seed: 2**32 - 1], keys),
        ScalableHarness.new("ScalableBloomFilter with growth: 1.25, even_layers: 0, tightening: 0.85",
                            filled[error_rate: 0.01, initial_capacity: 2, growth: 1.25, even_layers: 0, tightening: 0.85], keys),
        ScalableHarness.new("frozen ScalableBloomFilter", filled[error_rate: 0.01, initial_capacity: 2].freeze, keys)
      ]
    end,
    Bloomc::CuckooFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c"]
      make = ->(label, keys_in = keys, **kw) { CuckooHarness.new(label, Bloomc::CuckooFilter.new(**kw), keys_in) }
      [
        make["CuckooFilter.new(buckets: 16, fingerprint_bits: 8)", buckets: 16, fingerprint_bits: 8],
        make["empty CuckooFilter.new(buckets: 16, fingerprint_bits: 32)", [], buckets: 16, fingerprint_bits: 32],
        make["CuckooFilter by capacity, seed 2**32-1", capacity: 40, error_rate: 0.001, seed: 2**32 - 1],
        make["frozen CuckooFilter", buckets: 16, fingerprint_bits: 12].tap { |h| h.obj.freeze }
      ]
    end,
    Bloomc::BinaryFuseFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c", "a"]
      [
        FuseHarness.new("BinaryFuseFilter.build(keys)", Bloomc::BinaryFuseFilter.build(keys), keys),
        FuseHarness.new("BinaryFuseFilter.build([])", Bloomc::BinaryFuseFilter.build([]), []),
        FuseHarness.new("BinaryFuseFilter.build(keys, fingerprint_bits: 16, seed: 9)",
                        Bloomc::BinaryFuseFilter.build(keys, fingerprint_bits: 16, seed: 9), keys),
        FuseHarness.new("frozen BinaryFuseFilter", Bloomc::BinaryFuseFilter.build(keys).freeze, keys)
      ]
    end,
    Bloomc::FNV => -> { [Stateless.new("Bloomc::FNV", Bloomc::FNV)] },
    Bloomc::Murmur3 => -> { [Stateless.new("Bloomc::Murmur3", Bloomc::Murmur3)] },
    Bloomc::CRC32C => -> { [Stateless.new("Bloomc::CRC32C", Bloomc::CRC32C)] },
    Bloomc::BloomHelper => -> { [Stateless.new("Bloomc::BloomHelper", Bloomc::BloomHelper)] }
  }.freeze

  RECIPES = {
    Bloomc::BitField => BIT_FIELD, Bloomc::BitBucketField => BIT_BUCKET_FIELD,
    Bloomc::BloomFilter => BLOOM_FILTER, Bloomc::ContinuousBloomFilter => CONTINUOUS_BLOOM_FILTER,
    Bloomc::BlockedBloomFilter => BLOCKED_BLOOM_FILTER,
    Bloomc::CountingBloomFilter => COUNTING_BLOOM_FILTER, Bloomc::SpectralBloomFilter => SPECTRAL_BLOOM_FILTER,
    Bloomc::BitwiseBloomFilter => BITWISE_BLOOM_FILTER, Bloomc::StableBloomFilter => STABLE_BLOOM_FILTER,
    Bloomc::A2BloomFilter => A2_BLOOM_FILTER, Bloomc::ScalableBloomFilter => SCALABLE_BLOOM_FILTER,
    Bloomc::CuckooFilter => CUCKOO_FILTER, Bloomc::BinaryFuseFilter => BINARY_FUSE_FILTER,
    Bloomc::FNV => FNV, Bloomc::Murmur3 => MURMUR3, Bloomc::CRC32C => CRC32C, Bloomc::BloomHelper => BLOOM_HELPER
  }.freeze

  # The public methods of a class or module, from the loaded code.
  def public_methods_of(mod)
    if mod.is_a?(Class)
      # A filter's shared methods are Bloomc::Filter's (ext/bloomc/filter.c).
      names = mod.ancestors.take_while { |a| a != Object }.grep(Class).flat_map { |c| c.public_instance_methods(false) }
      names &= mod.public_instance_methods
      names |= Bloomc::Inspect.public_instance_methods(false) if mod.include?(Bloomc::Inspect)
      names |= Bloomc::Batch.public_instance_methods(false) if mod.include?(Bloomc::Batch)
      names |= Bloomc::Stats.public_instance_methods(false) if mod.include?(Bloomc::Stats)
      names |= Bloomc::SetOps.public_instance_methods(false) if mod.include?(Bloomc::SetOps)
      names |= Bloomc::Persistence.public_instance_methods(false) if mod.include?(Bloomc::Persistence)
      names |= Bloomc::Metadata.public_instance_methods(false) if mod.include?(Bloomc::Metadata)
      names |= Bloomc::Sizing.public_instance_methods(false) if mod.include?(Bloomc::Sizing)
      names |= Bloomc::HashFunction.public_instance_methods(false) if mod.include?(Bloomc::HashFunction)
      names |= Bloomc::Mapped.public_instance_methods(false) if mod.include?(Bloomc::Mapped)
      names |= Bloomc::Pages.public_instance_methods(false) if mod.include?(Bloomc::Pages)
      # Psych's hooks, which YAML calls with its own Coder (format_spec
      # covers the round trip and the refusals).
      names - %i[encode_with init_with]
    else
      mod.singleton_methods(false)
    end
  end

  # The receiver's snapshot and its metadata, which #== and so the
  # snapshots ignore.
  def state_of(receiver)
    [receiver.snapshot, receiver.obj.respond_to?(:metadata) ? receiver.obj.metadata : nil]
  end

  def describe_call(receiver, name, args, kw)
    parts = args.map { |a| label_of(a) } + kw.map { |k, v| "#{k}: #{label_of(v)}" }
    "#{receiver}.#{name}(#{parts.join(', ')})"
  end

  def label_of(value)
    found = VALUES.find { |_, v| v.equal?(value) }
    return found[0] if found

    text = value.inspect
    text.size > 40 ? "#{text[0, 37]}..." : text
  end

  # Every call of one recipe: [args, kw, allowed outcomes]. The valid call
  # first, then each value in each position of every arity, then one
  # argument too many.
  def calls_for(recipe, receiver)
    params = recipe.fetch(:params, [])
    opt = recipe.fetch(:opt, 0)
    kw_params = recipe.fetch(:kw, {})
    default = ->(d) { d.respond_to?(:call) ? d.call(receiver) : d }
    defaults = params.map { |_, d| default[d] }
    kw_defaults = kw_params.transform_values { |_, d| default[d] }
    write = recipe[:write] && receiver.write_frozen?
    refused = recipe[:refuse]&.call(receiver) # errors this receiver gives any call it accepts
    adjust = lambda do |allowed|
      allowed = (allowed - [:ok] + refused).uniq if refused && allowed.include?(:ok)
      write ? (allowed - [:ok] + [FrozenError]).uniq : allowed
    end
    calls = []
    base = recipe[:base] ? recipe[:base].call(receiver) : adjust[[:ok]]
    ((params.size - opt)..params.size).each do |argc|
      calls << [defaults.first(argc), kw_defaults, base]
      params.first(argc).each_with_index do |(kind, _), i|
        VALUES.each do |_, value|
          args = defaults.first(argc)
          args[i] = value
          calls << [args, kw_defaults, adjust[outcome(kind, value, receiver)]]
        end
      end
    end
    kw_params.each do |key, (kind, _)|
      VALUES.each { |_, value| calls << [defaults, kw_defaults.merge(key => value), adjust[outcome(kind, value, receiver)]] }
    end
    VALUES.each { |_, value| calls << [defaults + [value], kw_defaults, [ArgumentError]] }
    calls
  end

  def allowed?(allowed, error)
    undocumented = allowed - [:ok] - DOCUMENTED
    raise "the matrix itself expects undocumented #{undocumented}" unless undocumented.empty?

    allowed.include?(error.class) || (error.is_a?(Bloomc::Error) && (allowed - [:ok]).any?) ||
      (error.is_a?(SystemCallError) && allowed.include?(SystemCallError)) # Errno::* for paths
  end

  # Calls; returns the problems found.
  def run_call(receiver, name, recipe, args, kw, allowed)
    if recipe[:in_tmpdir] # a call that writes files: in an empty directory, checked there
      return Dir.mktmpdir { |dir| Dir.chdir(dir) { run_call(receiver, name, recipe.merge(in_tmpdir: false), args, kw, allowed) } }
    end

    BadInputMatrix.calls += 1
    desc = describe_call(receiver.label, name, args, kw)
    before = state_of(receiver)
    threads_before = timer_threads
    yielded = []
    result = error = nil
    begin
      result = if recipe[:block]
                 receiver.obj.public_send(name, *args, **kw) { |x| yielded << x }
               else
                 receiver.obj.public_send(name, *args, **kw)
               end
    rescue SignalException, SystemExit
      raise
    rescue Exception => e # rubocop:disable Lint/RescueException -- NoMemoryError and friends are not StandardErrors
      error = e
    end
    problems = []
    if error
      unless allowed?(allowed, error)
        expected = allowed == [:ok] ? "success" : allowed.join(" or ")
        problems << "#{desc} raised #{error.class} (#{error.message[0, 100]}), expected #{expected}"
      end
      problems << "#{desc} raised #{error.class} and changed the receiver" unless state_of(receiver) == before
    elsif !allowed.include?(:ok)
      problems << "#{desc} returned #{label_of(result)}, expected #{allowed.join(' or ')}"
      receiver.resync
    else
      verdict = recipe[:ok].call(receiver, args, kw, result, yielded)
      problems << "#{desc} returned #{label_of(result)}: wrong#{": #{verdict}" if verdict.is_a?(String)}" unless verdict == true
    end
    if name == :start_timer && args.empty?
      problems.concat(timer_check(desc, receiver, error, threads_before))
    elsif !(left = timer_threads - threads_before).empty?
      problems << "#{desc} left #{left.size} timer thread(s) running"
      left.each(&:kill).each { |t| finished?(t) }
    end
    problems.concat(receiver.problems.map { |p| "after #{desc}: #{p}" })
    problems
  end

  # After start_timer: a success must leave a live timer thread (waiting for
  # its first tick), which stop_timer then ends; a raise must leave no thread.
  def timer_check(desc, receiver, error, threads_before)
    problems = []
    started = timer_threads - threads_before
    if error.nil?
      problems << "#{desc}: timer_running? is false right after start_timer" unless receiver.obj.timer_running?
      started.each do |thread|
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 2
        Thread.pass while thread.alive? && thread.status != "sleep" &&
            Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
        next if thread.alive?

        reason = begin
          thread.value && "ended"
        rescue Exception => e # rubocop:disable Lint/RescueException
          "died with #{e.class}: #{e.message[0, 80]}"
        end
        problems << "#{desc}: returned self but its timer thread #{reason} (ttl #{label_of(receiver.obj.ttl)})"
      end
      run_call(receiver, :stop_timer, CONTINUOUS_BLOOM_FILTER[:stop_timer], [], {}, [:ok]).each { |p| problems << p }
    end
    left = started.reject { |t| finished?(t) }
    unless left.empty?
      problems << "#{desc} #{error ? "raised #{error.class}" : 'and stop_timer'} but left #{left.size} timer thread(s) running"
      left.each(&:kill).each { |t| finished?(t) }
    end
    problems
  end

  # Whether a thread ends within half a second (join re-raises what killed it).
  def finished?(thread)
    thread.join(0.5)
  rescue Exception # rubocop:disable Lint/RescueException
    true
  end

  def with_quiet_threads
    saved = Thread.report_on_exception
    Thread.report_on_exception = false
    yield
  ensure
    Thread.report_on_exception = saved
  end

  # ---- constructors --------------------------------------------------------

  # Checks a freshly made object against the arguments; returns problems.
  def check_new(desc, obj, expect)
    problems = []
    expect.each do |attr, value|
      actual = obj.public_send(attr)
      next if actual.eql?(value) || (value.is_a?(Float) && value.nan? && actual.nan?)

      problems << "#{desc}.#{attr} is #{label_of(actual)}, expected #{label_of(value)}"
    end
    case obj
    when Bloomc::BitField, Bloomc::BitBucketField
      problems << "#{desc} is not all zero" unless obj.total_set.zero? && obj.all?(&:zero?)
    when Bloomc::BinaryFuseFilter
      problems << "#{desc}: include? broken" unless obj.include_all(obj.size.zero? ? [] : ["k", 1]).all?
    when Bloomc::BloomFilter, Bloomc::BlockedBloomFilter, Bloomc::CountingBloomFilter, Bloomc::SpectralBloomFilter, Bloomc::BitwiseBloomFilter,
         Bloomc::StableBloomFilter, Bloomc::A2BloomFilter, Bloomc::ScalableBloomFilter, Bloomc::CuckooFilter
      problems << "#{desc}: add/include? broken" unless obj.size.zero? && obj.add("probe").equal?(obj) && obj.include?("probe")
    when Bloomc::ContinuousBloomFilter
      problems << "#{desc}: add/include? broken" unless obj.ticks.zero? && obj.add("probe").equal?(obj) && obj.include?("probe")
      if obj.ttl >= Bloomc::ContinuousBloomFilter::MIN_TIMER_TTL
        harness = ContinuousHarness.new(desc, obj, ["probe"])
        recipe = CONTINUOUS_BLOOM_FILTER[:start_timer]
        problems.concat(with_quiet_threads { run_call(harness, :start_timer, recipe, [], {}, [:ok]) })
      end
    end
    problems
  end

  # One constructor form: params and kw as in the recipes, plus expect:
  # ->(args, kw) { {attr => value} } for a success.
  def run_new(klass, form)
    problems = []
    params = form.fetch(:params, [])
    kw_params = form.fetch(:kw, {})
    defaults = params.map(&:last)
    kw_defaults = kw_params.transform_values(&:last)
    ctx = Struct.new(:size, :max).new(0, 0)
    calls = [[defaults, kw_defaults, [:ok]]]
    params.each_with_index do |(kind, _), i|
      VALUES.each do |_, value|
        args = defaults.dup
        args[i] = value
        calls << [args, kw_defaults, outcome(kind, value, ctx)]
      end
      # fewer arguments than the form needs
      next unless i < params.size - 1 && form[:short_forms]

      VALUES.each do |_, value|
        args = defaults.first(i + 1)
        args[i] = value
        calls << [args, kw_defaults, [ArgumentError]]
      end
    end
    kw_params.each do |key, (kind, _)|
      VALUES.each { |_, value| calls << [defaults, kw_defaults.merge(key => value), outcome(kind, value, ctx)] }
    end
    extra = form.fetch(:extra_positional, :never)
    VALUES.each { |_, value| calls << [defaults + [value], kw_defaults, outcome(extra, value, ctx)] }
    form.fetch(:extra_kw, {}).each do |key, kind|
      VALUES.each { |_, value| calls << [defaults, kw_defaults.merge(key => value), outcome(kind, value, ctx)] }
    end

    calls.each do |args, kw, allowed|
      BadInputMatrix.calls += 1
      desc = describe_call(klass.name, :new, args, kw)
      threads_before = timer_threads
      begin
        obj = klass.new(*args, **kw)
      rescue SignalException, SystemExit
        raise
      rescue Exception => e # rubocop:disable Lint/RescueException
        unless allowed?(allowed, e)
          expected = allowed == [:ok] ? "success" : allowed.join(" or ")
          problems << "#{desc} raised #{e.class} (#{e.message[0, 100]}), expected #{expected}"
        end
        problems << "#{desc} raised and left a timer thread" unless (timer_threads - threads_before).empty?
        next
      end
      unless allowed.include?(:ok)
        problems << "#{desc} made #{obj.inspect[0, 80]}, expected #{allowed.join(' or ')}"
        next
      end
      problems.concat(check_new(desc, obj, form[:expect].call(args, kw)))
    end
    problems
  end

  CONSTRUCTORS = {
    Bloomc::BitField => [
      { params: [[:size_bf, 10]], expect: ->(a, _) { { size: a[0] } } }
    ],
    Bloomc::BitBucketField => [
      { params: [[:width, 3], [:size_bbf, 10]], expect: ->(a, _) { { bits: a[0], size: a[1] } } }
    ],
    Bloomc::BloomFilter => [
      { params: [[:bf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], seed: kw[:seed], hash_function: kw[:hash], size: 0 } } },
      { params: [[:bf_m, 64], [:k_ctor, 3]], kw: { seed: [:fnv_seed, 0], hash: %i[hash_name fnv1a] },
        expect: ->(a, kw) { { m: a[0], k: a[1], seed: 0, hash_function: kw[:hash] } } },
      { kw: { capacity: [:capacity_bf, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, seed: kw[:seed], hash_function: kw[:hash] }
        } }
    ],
    Bloomc::BlockedBloomFilter => [
      { params: [[:bf_m, 1024], [:k_ctor, 3]], short_forms: true,
        kw: { seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, hash: :murmur3_only, bogus: :never },
        expect: ->(a, kw) { { m: (a[0] + 511) / 512 * 512, k: a[1], seed: kw[:seed], size: 0 } } },
      { kw: { capacity: [:capacity_bf, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = Bloomc::BlockedBloomFilter.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, seed: kw[:seed] }
        } }
    ],
    Bloomc::CountingBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { width: [:width, 4], seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, hash: :murmur3_either, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], width: kw[:width], seed: kw[:seed], saturated: 0 } } },
      { kw: { capacity: [:capacity_cbf, 100], error_rate: [:error_ctor, 0.01], width: [:width, 4], seed: [:seed, 5] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, width: kw[:width], seed: kw[:seed] }
        } }
    ],
    Bloomc::SpectralBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { algorithm: %i[algorithm mi], width: [:width, 4], seed: [:seed, 5] },
        extra_kw: { secondary_m: :must_be_nil, capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], algorithm: :mi, width: kw[:width], seed: kw[:seed], secondary_m: nil } } },
      { params: [[:cbf_m, 64], [:k_ctor, 3]],
        kw: { algorithm: %i[algorithm rm], secondary_m: [:secondary_m, 10], width: [:width, 4], seed: [:seed, 5] },
        expect: lambda { |a, kw|
          { m: a[0], k: a[1], algorithm: :rm, width: kw[:width], seed: kw[:seed], secondary_m: kw[:secondary_m] || (a[0] + 1) / 2 }
        } },
      { kw: { capacity: [:capacity_rm, 100], error_rate: [:error_ctor, 0.01], algorithm: %i[algorithm rm], seed: [:seed, 5] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, algorithm: :rm, seed: kw[:seed], secondary_m: (m + 1) / 2 }
        } }
    ],
    Bloomc::BitwiseBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { width: [:width, 4], seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], width: kw[:width], seed: kw[:seed], levels: 1 } } },
      { kw: { capacity: [:capacity_cbf, 100], error_rate: [:error_ctor, 0.01], width: [:width, 4], seed: [:seed, 5] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, width: kw[:width], seed: kw[:seed] }
        } }
    ],
    Bloomc::StableBloomFilter => [
      { params: [[:cells3_m, 64], [:k_ctor, 3], [:stable_d, 1]], short_forms: true,
        kw: { width: [:width, 3], seed: [:seed, 5], random_seed: [:random_seed, 7] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], d: a[2], width: kw[:width], seed: kw[:seed], zero_fraction: 1.0 } } },
      { kw: { capacity: [:capacity_cells3, 100], error_rate: [:error_ctor, 0.01], width: [:width, 3], seed: [:seed, 5],
              random_seed: [:random_seed, 7] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          # the fewest cells from m on with a stable point at the rate
          m = m.step.find { |cells| BadInputMatrix.stable_fpr(cells, k, cells, 3) <= kw[:error_rate] }
          { m: m, k: k, width: kw[:width], seed: kw[:seed] }
        } }
    ],
    Bloomc::A2BloomFilter => [
      { params: [[:bf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { capacity: [:a2_capacity, 5], seed: [:seed, 5] },
        extra_kw: { error_rate: :must_be_nil, bogus: :never },
        expect: lambda { |a, kw|
          m = a[0] + (a[0] & 1)
          capacity = kw[:capacity] || [(m / (2.0 * a[1]) * BadInputMatrix::LN2).floor, 1].max
          { m: m, k: a[1], capacity: capacity, seed: kw[:seed], swaps: 0 }
        } },
      { params: [[:bf_m, 64]], kw: { error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_positional: :must_be_nil, # the k that error_rate: stands for
        expect: ->(a, kw) { { m: a[0] + (a[0] & 1), k: 8, seed: kw[:seed] } } },
      { kw: { capacity: [:a2_capacity_ctor, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_positional: :a2_m_or_nil,
        expect: lambda { |a, kw|
          m = a[0] || 2 * (kw[:capacity] * 8 / BadInputMatrix::LN2).ceil
          { m: m + (m & 1), k: 8, capacity: kw[:capacity], seed: kw[:seed] }
        } }
    ],
    Bloomc::CuckooFilter => [
      { kw: { buckets: [:cuckoo_buckets, 16], fingerprint_bits: [:fingerprint_bits, 12], seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(_, kw) { { buckets: kw[:buckets], fingerprint_bits: kw[:fingerprint_bits], seed: kw[:seed], size: 0 } } },
      { kw: { capacity: [:cuckoo_capacity, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_kw: { buckets: :must_be_nil, fingerprint_bits: :must_be_nil, bogus: :never },
        expect: ->(_, kw) { { capacity: kw[:capacity], error_rate: kw[:error_rate], seed: kw[:seed], size: 0 } } }
    ],
    # built from ["k", 1]; a set of other keys is checked by its size
    Bloomc::BinaryFuseFilter => [
      { params: [[:keys, ["k", 1]]], kw: { fingerprint_bits: [:fuse_bits, 8], seed: [:seed, 5] },
        extra_kw: { bogus: :never },
        expect: lambda { |a, kw|
          distinct = a[0].to_a.map { |key| FilterKey.id(key) }.uniq.size
          { size: distinct, fingerprint_bits: kw[:fingerprint_bits], seed: kw[:seed] }
        } }
    ],
    Bloomc::ScalableBloomFilter => [
      { kw: { error_rate: [:scalable_error, 0.01], initial_capacity: [:scalable_initial, 100], growth: [:scalable_growth, 2],
              tightening: [:scalable_tightening, 0.8], even_layers: [:scalable_even, 10], max_capacity: [:scalable_max, nil],
              seed: [:seed, 5], hash: %i[murmur3_either murmur3] },
        extra_positional: :never,
        extra_kw: { capacity: :never, bogus: :never },
        expect: lambda { |_, kw|
          { error_rate: kw[:error_rate].to_f, initial_capacity: kw[:initial_capacity], growth: kw[:growth].to_f,
            tightening: kw[:tightening].to_f, even_layers: kw[:even_layers], max_capacity: kw[:max_capacity],
            seed: kw[:seed], size: 0 }
        } }
    ],
    Bloomc::ContinuousBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3], [:ttl, 0]], short_forms: true,
        kw: { seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_kw: { ttl: :must_be_nil, capacity: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], ttl: a[2], seed: kw[:seed], hash_function: kw[:hash] } } },
      { params: [[:cbf_m, 64], [:k_ctor, 3], [:ttl, 0.5]], kw: { seed: [:fnv_seed, 0], hash: %i[hash_name fnv1a] },
        expect: ->(a, kw) { { m: a[0], k: a[1], ttl: a[2], seed: 0, hash_function: kw[:hash] } } },
      { kw: { capacity: [:capacity_cbf, 100], error_rate: [:error_ctor, 0.01], ttl: [:ttl, 0],
              seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_positional: :never,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, ttl: kw[:ttl], seed: kw[:seed], hash_function: kw[:hash] }
        } }
    ]
  }.to_h do |klass, forms|
    # prefault: on every filter class's new (lib/bloomc/pages.rb).
    next [klass, forms] unless klass.include?(Bloomc::Pages)

    [klass, forms.map { |form| form.merge(kw: form.fetch(:kw, {}).merge(prefault: [:boolean, false])) }]
  end.freeze
end
