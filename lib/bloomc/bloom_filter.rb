# frozen_string_literal: true

module Bloomc
  # The plain Bloom filter: a key added is always found; a key never added is
  # found at the false-positive rate set by m, k and the number of keys.
  #
  # @example
  #   filter = Bloomc::BloomFilter.new(capacity: 1_000_000, error_rate: 0.01)
  #   filter << "key1"
  #   filter.include?("key1") # => true
  #   filter["key2"]          # => false
  class BloomFilter
    # @overload initialize(m, k, seed: 0)
    #   @param m [Integer] number of bits, > 0
    #   @param k [Integer] bits set per key, 1..MAX_K
    # @overload initialize(capacity:, error_rate:, seed: 0)
    #   Sized by {BloomHelper.find_m_k}.
    #   @param capacity [Integer] expected number of keys, > 0
    #   @param error_rate [Float] target false-positive rate, 0 < error_rate < 1
    # @param seed [Integer] MurmurHash3 seed, 0..2**32-1
    # @raise [ArgumentError, TypeError] for sizes or rates out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, seed: 0)
      m, k = Bloomc.sizing_arguments(m, k, capacity, error_rate)
      setup(m, k, seed)
    end

    include Inspect

    private def inspect_fields = "m=#{m} k=#{k} size=#{size}"
  end

  # @api private
  # [m, k] from either positional (m, k) or keyword (capacity:, error_rate:).
  def self.sizing_arguments(m, k, capacity, error_rate)
    if capacity.nil? && error_rate.nil?
      raise ArgumentError, "give m and k, or capacity: and error_rate:" if m.nil? || k.nil?

      [m, k]
    elsif m || k
      raise ArgumentError, "give either m and k or capacity: and error_rate:, not both"
    elsif capacity.nil? || error_rate.nil?
      raise ArgumentError, "capacity: and error_rate: go together"
    else
      BloomHelper.find_m_k(capacity, error_rate)
    end
  end
end
