# frozen_string_literal: true

# What each kind of argument must do with each value: success, or exactly
# the documented exception classes (the guide's "Bad input", the call-seqs).
# OUTCOMES holds one rule per kind, ->(value, receiver) { allowed outcomes },
# most of them put together from the builders below.
module BadInputMatrix
  OK = [:ok].freeze

  module_function

  def real?(v) = v.is_a?(Integer) || v.is_a?(Float)

  # A count of elements of bytes_per bytes each: an Integer in 1..max whose
  # allocation, above NOMEM_BYTES, must fail.
  def count_outcome(v, max, bytes_per)
    return [TypeError] unless v.is_a?(Integer)
    return [ArgumentError] if v <= 0 || v > max

    v * bytes_per > NOMEM_BYTES ? [NoMemoryError] : OK
  end

  # A capacity (at error rate 0.01) for find_m_k (max nil) or for a filter of
  # at most max elements of bytes_per bytes.
  def capacity_outcome(v, max = nil, bytes_per = 0)
    return [TypeError] unless real?(v)
    return [ArgumentError] unless v.positive? && v.finite?

    m = find_m(v, 0.01)
    return [ArgumentError] unless m.finite? # no Integer m exists: the capacity is too large
    return OK unless max

    count_outcome(m.ceil, max, bytes_per)
  end

  # ---- rule builders: each returns ->(value, receiver) { allowed outcomes } --

  def nil_gives(outcome, rule) = ->(v, receiver) { v.nil? ? outcome : rule.call(v, receiver) }

  # The second rule decides what the first one lets through.
  def and_then(first, second)
    ->(v, receiver) { (checked = first.call(v, receiver)) == OK ? second.call(v, receiver) : checked }
  end

  def counted(max, bytes_per) = ->(v, _) { count_outcome(v, max, bytes_per) }
  def capacity_for(max = nil, bytes_per = 0) = ->(v, _) { capacity_outcome(v, max, bytes_per) }

  # An Integer among accepted (a Range or a list); outside for any other.
  def integer_in(accepted, outside = [ArgumentError])
    lambda do |v, _|
      next [TypeError] unless v.is_a?(Integer)

      accepted.include?(v) ? OK : outside
    end
  end

  # An Integer or Float in range; NaN is in none.
  def real_in(range)
    lambda do |v, _|
      next [TypeError] unless real?(v)

      range.cover?(v) ? OK : [ArgumentError]
    end
  end

  # A real strictly between 0 and 1, as an error rate.
  def fraction
    lambda do |v, _|
      next [TypeError] unless real?(v)

      v.positive? && v < 1 ? OK : [ArgumentError]
    end
  end

  def one_of(accepted, otherwise = [ArgumentError]) = ->(v, _) { accepted.include?(v) ? OK : otherwise }
  def of_type(*types) = ->(v, _) { types.any? { |type| v.is_a?(type) } ? OK : [TypeError] }

  # A choice among accepted values of one type (and also those): another of
  # that type is an ArgumentError, a value of any other type either class.
  def choice(type, accepted, also: [])
    lambda do |v, _|
      next OK if also.include?(v)
      next [ArgumentError, TypeError] unless v.is_a?(type)

      accepted.include?(v) ? OK : [ArgumentError]
    end
  end

  REFUSED = ->(_, _) { [ArgumentError] }

  OUTCOMES = {
    any: ->(_, _) { OK },
    never: REFUSED,
    same_filter: REFUSED, # any of VALUES: not a filter of the receiver's kind
    unsupported: ->(_, _) { [Bloomc::UnsupportedError] },
    must_be_nil: one_of([nil]),
    boolean: one_of([true, false], [TypeError]),
    murmur3_only: one_of([:murmur3]),
    murmur3_either: one_of(%i[murmur3 murmur3_mixed]),
    algorithm: one_of(%i[mi rm]),
    hash_name: choice(Symbol, %i[murmur3_mixed murmur3 fnv1a]),
    base: choice(Integer, [2, 10]),
    bit_value: choice(Integer, [0, 1], also: [true, false]),
    key: of_type(String, Symbol, Integer),
    string: of_type(String),
    keys: lambda do |v, receiver|
      next [TypeError] unless v.is_a?(Enumerable)

      v.to_a.all? { |key| outcome(:key, key, receiver) == OK } ? OK : [TypeError]
    end,
    # a String valid as text, a Hash of JSON values, or nil to remove it
    metadata: lambda do |v, _|
      next [TypeError] unless v.nil? || v.is_a?(String) || v.is_a?(Hash)

      v.is_a?(String) && !v.ascii_only? && v.encoding == Encoding::BINARY ? [ArgumentError] : OK
    end,
    # save runs in an empty directory of its own: "" is that directory, not a regular file
    path: lambda do |v, _|
      next [TypeError] unless v.is_a?(String)

      v.include?("\0") || v.empty? ? [ArgumentError] : OK
    end,
    position: ->(v, receiver) { integer_in(0...receiver.size, [IndexError]).call(v, receiver) },
    bucket_value: ->(v, receiver) { integer_in(0..receiver.max).call(v, receiver) },
    seed: integer_in(0..0xffffffff, [RangeError]),
    fnv_seed: ->(v, _) { v.is_a?(Integer) && v.zero? ? OK : [ArgumentError, TypeError, RangeError] },
    random_seed: nil_gives(OK, integer_in(0...(2**64), [RangeError])),
    k: integer_in(1..128),
    k_ctor: nil_gives([ArgumentError], integer_in(1..128)),
    width: integer_in(1..32),
    threads: nil_gives(OK, integer_in(1..)),
    count_or_zero: real_in(0..),
    # sizes: bits (1/8 byte), buckets of width 3 (3/8) or 4 (1/2)
    multi_m: nil_gives(OK, counted(BITS_MAX, 0)),
    size_bf: counted(BITS_MAX, 1r / 8),
    size_bbf: counted(BUCKETS_MAX, 3r / 8),
    bf_m: nil_gives([ArgumentError], counted(BITS_MAX, 1r / 8)),
    cbf_m: nil_gives([ArgumentError], counted(BUCKETS_MAX, 1r / 2)),
    cells3_m: nil_gives([ArgumentError], counted(BUCKETS_MAX, 3r / 8)),
    secondary_m: nil_gives(OK, counted(BUCKETS_MAX, 1r / 2)),
    a2_m_or_nil: nil_gives(OK, counted(BITS_MAX, 1r / 8)),
    cuckoo_buckets: nil_gives([ArgumentError], counted(BUCKETS_MAX / 4, 12r / 2)), # 4 slots of 12 bits
    # capacities and error rates
    fmk_capacity: capacity_for,
    fmk_error: fraction,
    error_ctor: nil_gives([ArgumentError], fraction),
    capacity_bf: nil_gives([ArgumentError], capacity_for(BITS_MAX, 1r / 8)),
    capacity_cbf: nil_gives([ArgumentError], capacity_for(BUCKETS_MAX, 1r / 2)),
    capacity_rm: nil_gives([ArgumentError], capacity_for(BUCKETS_MAX, 3r / 4)), # width 4, secondary m/2
    # width 3, error rate 0.01: not even d = m settles at the rate, up to 64 times the cells
    capacity_cells3: nil_gives([ArgumentError], and_then(capacity_for(BUCKETS_MAX, 3r / 8), lambda do |v, _|
      m, k = find_m_k(v, 0.01)
      stable_fpr(64 * m, k, 64 * m, 3) <= 0.01 ? OK : [ArgumentError]
    end)),
    stable_d: nil_gives([ArgumentError], integer_in(1..64)), # d of at most m = 64 cells
    a2_capacity: nil_gives(OK, integer_in(1...(2**64), [ArgumentError, RangeError])), # keys per half; nil: the manual's optimum
    # with error_rate 0.01: k = 8, m = 2 * ceil(capacity * 8 / ln 2) bits
    a2_capacity_ctor: nil_gives([ArgumentError], and_then(capacity_for, lambda do |v, _|
      v.is_a?(Integer) ? count_outcome(2 * (v * 8 / LN2).ceil, BITS_MAX, 1r / 8) : [TypeError]
    end)),
    # at error rate 0.01: 10-bit fingerprints, capacity / 3.8 buckets
    cuckoo_capacity: nil_gives([ArgumentError], and_then(capacity_for, ->(v, _) { count_outcome((v / 3.8).ceil, BUCKETS_MAX / 4, 10r / 2) })),
    fingerprint_bits: nil_gives([ArgumentError], integer_in(8..32)),
    fuse_bits: integer_in([8, 16]),
    ttl: nil_gives([ArgumentError, TypeError], real_in(0..Bloomc::ContinuousBloomFilter::MAX_TTL)),
    # ScalableBloomFilter.new's keywords, the others at the form's defaults
    # (error rate 0.01, initial capacity 100, growth 2, tightening 0.8, 10
    # even layers: the first layer's rate is 0.01 / 14).
    scalable_error: nil_gives([TypeError], fraction),
    scalable_initial: and_then(integer_in(1..BITS_MAX), lambda do |v, _|
      m, = begin
        find_m_k(v, 0.01 / 14)
      rescue ArgumentError
        next [ArgumentError] # no layer of at most 2**60 bits holds it
      end
      count_outcome(m, BITS_MAX, 1r / 8)
    end),
    scalable_growth: real_in(1.25..64),
    scalable_tightening: nil_gives([TypeError], fraction), # 0 < v < 1, like a rate
    scalable_even: integer_in(0..64),
    scalable_max: nil_gives(OK, integer_in(1..BITS_MAX)), # growth 2 from 100 reaches 2**60 in 54 layers
    # SlidingBloomFilter.new's keywords
    sliding_ttl: real_in(0.01..(2**32)),
    sliding_generations: integer_in(1..8),
    sliding_first: integer_in(64..(2**40)),
    sliding_max_bytes: nil_gives(OK, integer_in(4096..(2**62))),
    clock: ->(v, _) { v.nil? ? OK : [TypeError] } # no value the matrix tries can be called
  }.freeze

  def outcome(kind, v, receiver)
    OUTCOMES.fetch(kind) { raise "no oracle for argument kind #{kind.inspect}" }.call(v, receiver)
  end
end
