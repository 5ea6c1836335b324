# frozen_string_literal: true

module Bloomc
  # Sizing and hashing helpers.
  module BloomHelper
    # ln 2: k = (m / n) ln 2 probes make the fewest false positives.
    LN2 = Math.log(2)

    # The probe values of +key+ that a filter with seed 0 uses: k 64-bit
    # Integers or, when +m+ is given, the k positions in 0...m.
    #
    # key:: (String, Symbol, Integer)
    # k:: (Integer) number of probes, 1..MAX_K
    # m:: (Integer, nil) the filter's size, to get positions
    # hash:: (Symbol) :murmur3_mixed (the filters' default: enhanced double
    #     hashing over MurmurHash3 x64_128, each value through fmix64),
    #     :murmur3 (the same unmixed) or :fnv1a (bloombroom's a + b * (i + 1)
    #     over FNV-1a 64)
    # Returns:: (Array<Integer>)
    # Raises:: ArgumentError for k or m out of range or an unknown hash
    # Raises:: TypeError for an unsupported key
    def self.multi_hash(key, k, m = nil, hash: :murmur3_mixed)
      probe_values(key, k, m, Bloomc.hash_kind(hash))
    end

    # The number of bits +m+ and of hash functions +k+ that make a plain Bloom
    # filter holding +capacity+ keys answer falsely at rate +error+:
    # m = ceil(-capacity * ln(error) / ln(2)^2), k = round(ln(2) * m / capacity),
    # computed exactly as bloombroom does, so both gems size alike.
    #
    # capacity:: (Integer, Float) expected number of keys, > 0
    # error:: (Float) target false-positive rate, 0 < error < 1
    # Returns:: (Array(Integer, Integer)) [m, k]
    # Raises:: ArgumentError when capacity or error is out of range
    #
    # Example:
    #
    #   Bloomc::BloomHelper.find_m_k(10_000, 0.01) # => [95851, 7]
    def self.find_m_k(capacity, error)
      check_capacity(capacity)
      check_error_rate(error)
      bits = capacity * Math.log(error) / Math.log(1.0 / 2**LN2)
      raise ArgumentError, "capacity #{capacity} at error #{error} needs more bits than a filter can hold" unless bits.finite?

      m = bits.ceil
      k = LN2 * m / capacity # Infinity for a capacity far below one key: the most probes
      [m, k.finite? ? k.round.clamp(1, MAX_K) : MAX_K]
    end

    def self.check_capacity(capacity)
      raise TypeError, "capacity must be a number, not #{capacity.class}" unless capacity.is_a?(Numeric) && capacity.real?
      raise ArgumentError, "capacity must be positive and finite, got #{capacity.inspect}" unless capacity.positive? && capacity.finite?
      # Past a Float's range (no filter has the bits anyway), the arithmetic
      # in Floats would warn of a Bignum out of it.
      raise ArgumentError, "capacity #{capacity} needs more bits than a filter can hold" if capacity > 2**1000
    end

    def self.check_error_rate(error)
      raise TypeError, "error rate must be a number, not #{error.class}" unless error.is_a?(Numeric) && error.real?
      return if error.positive? && error < 1

      raise ArgumentError, "error rate must be in (0, 1), got #{error.inspect}"
    end
    private_class_method :check_capacity, :check_error_rate
  end
end
