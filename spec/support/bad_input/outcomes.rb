# frozen_string_literal: true

# What each kind of argument must do with each value: success, or exactly
# the documented exception classes (README's "Bad input", the call-seqs).
module BadInputMatrix
  module_function

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
end
