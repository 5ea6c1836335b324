# frozen_string_literal: true

module Bloomc
  # The plain Bloom filter: a key added is always found; a key never added is
  # found at the false-positive rate set by m, k and the number of keys.
  #
  # Example:
  #
  #   filter = Bloomc::BloomFilter.new(capacity: 1_000_000, error_rate: 0.01)
  #   filter << "key1"
  #   filter.include?("key1") # => true
  #   filter["key2"]          # => false
  #
  # The methods every kind shares (add, include?, m, k, size, dump and the
  # rest) are Bloomc::Filter's; here m counts bits, k the bits a key sets.
  class BloomFilter < Filter
    include HashFunction
    include Stats
    include Sizing
    include Mapped

    # The class of #bits.
    FIELD_CLASS = BitField
    private_constant :FIELD_CLASS

    # call-seq:
    #   new(m, k, seed: 0, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, seed: 0, hash: :murmur3_mixed)
    #
    # m:: (Integer) number of bits, > 0
    # k:: (Integer) bits set per key, 1..MAX_K
    #
    # <tt>new(capacity:, error_rate:, seed: 0)</tt>:
    # Sized by ::find_m_k: the fewest bits whose expected rate at +capacity+
    # keys is at most +error_rate+.
    #
    # capacity:: (Integer) expected number of keys, > 0
    # error_rate:: (Float) target false-positive rate, 0 < error_rate < 1
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default), each probe remixed so
    #         that a key's probes are independent at any m; :murmur3, the
    #         unmixed probes of filters made before it; or :fnv1a for
    #         bloombroom's exact bit layout
    # Raises:: ArgumentError, TypeError for sizes or rates out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, seed: 0, hash: :murmur3_mixed)
      m, k = sized(m, k, capacity, error_rate)
      setup(m, k, seed, Bloomc.hash_kind(hash, seed))
    end

    # The fewest bits +m+, and the whole number of probes +k+ that goes with
    # them, for which a filter holding +capacity+ keys errs on average at
    # most at rate +error+: the expected rate E[(X/m)**k] over its set bits
    # X, not the formula (1 - (1 - 1/m)**(k * capacity))**k, which is below
    # it for small m (capacity 1 at 0.001: 1.8x; docs/FILTERS.md, "The rate
    # at every size"). Every filter sized by capacity: and error_rate: uses
    # it (the blocked and A² filters add their own models).
    # BloomHelper::find_m_k keeps bloombroom's numbers, whose rounding errs
    # up to 0.7% above the rate asked for.
    #
    # capacity:: (Integer, Float) expected number of keys, > 0
    # error:: (Float) target false-positive rate, 0 < error < 1
    # Returns:: (Array(Integer, Integer)) [m, k]
    # Raises:: ArgumentError when capacity or error is out of range, or no
    #     filter can hold that many keys at that rate
    #
    # Example:
    #
    #   Bloomc::BloomFilter.find_m_k(10_000, 0.01) # => [95932, 7]
    def self.find_m_k(capacity, error)
      BloomHelper.send(:check_capacity, capacity)
      BloomHelper.send(:check_error_rate, error)
      BloomHelper.send(:optimal_m_k, capacity, error) or
        raise ArgumentError, "capacity #{capacity} at error #{error} needs more bits than a filter can hold"
    end

    private def shape
      { m: m, k: k, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} size=#{size}#{" hash=#{hash_function}" unless hash_function == :murmur3_mixed}"
    end
  end

  # @api private
  # The C number of a hash function name; fnv1a has no seed.
  def self.hash_kind(name, seed = 0) # :nodoc:
    kind = HASH_FUNCTIONS.fetch(name) do
      raise ArgumentError, "unknown hash #{name.inspect} (#{HASH_FUNCTIONS.keys.map(&:inspect).join(' or ')})"
    end
    raise ArgumentError, "hash: :fnv1a takes no seed" if name == :fnv1a && seed != 0

    kind
  end

  # @api private
  # [m, k] from either positional (m, k) or keyword (capacity:, error_rate:).
  def self.sizing_arguments(m, k, capacity, error_rate) # :nodoc:
    if capacity.nil? && error_rate.nil?
      raise ArgumentError, "give m and k, or capacity: and error_rate:" if m.nil? || k.nil?

      [m, k]
    elsif m || k
      raise ArgumentError, "give either m and k or capacity: and error_rate:, not both"
    elsif capacity.nil? || error_rate.nil?
      raise ArgumentError, "capacity: and error_rate: go together"
    else
      BloomFilter.find_m_k(capacity, error_rate)
    end
  end
end
