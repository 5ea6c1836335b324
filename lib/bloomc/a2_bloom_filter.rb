# frozen_string_literal: true

module Bloomc
  # Active-active buffering (the A² filter): two plain filters of m/2 bits.
  # New keys go into the active half; once it holds +capacity+ distinct
  # keys, the other half is cleared and takes over. The filter therefore
  # always finds the last +capacity+ distinct keys added, and forgets older
  # ones a half at a time: a fixed-memory filter for a sliding window of
  # keys, with no clock.
  #
  # Example:
  #
  #   recent = Bloomc::A2BloomFilter.new(capacity: 50_000, error_rate: 0.01)
  #   stream.each { |id| handle(id) unless recent.include?(id); recent << id }
  class A2BloomFilter
    include Batch

    # Defined in C for every kind (ext/bloomc/filter.c), documented here for
    # RDoc (:method:) and for YARD (@!method):

    ##
    # :method: m
    # call-seq: m -> Integer
    #
    # The number of bits of both halves together.

    # @!method m
    #   The number of bits of both halves together.
    #   @return [Integer]

    ##
    # :method: k
    # call-seq: k -> Integer
    #
    # The number of bits set per key.

    # @!method k
    #   The number of bits set per key.
    #   @return [Integer]

    ##
    # :method: seed
    # call-seq: seed -> Integer
    #
    # The MurmurHash3 seed of the key hash.

    # @!method seed
    #   The MurmurHash3 seed of the key hash.
    #   @return [Integer]

    ##
    # :method: size
    # call-seq: size -> Integer
    #
    # The number of adds.

    # @!method size
    #   The number of adds.
    #   @return [Integer]

    ##
    # :method: ==
    # call-seq: self == other -> true or false
    #
    # Equal when +other+ is an A2BloomFilter of the same shape and seed in the
    # same state.

    # @!method ==
    #   Equal when +other+ is an A2BloomFilter of the same shape and seed in the
    #   same state.

    ##
    # :method: eql?
    # call-seq: eql?(other) -> true or false
    #
    # Same as #==.

    # @!method eql?(other)
    #   Same as #==.

    ##
    # :method: hash
    # call-seq: hash -> Integer
    #
    # Consistent with #==.

    # @!method hash
    #   Consistent with #==.
    #   @return [Integer]

    ##
    # :method: clear
    # call-seq: clear -> self
    #
    # Forgets every key: both halves empty, size and swaps 0.

    # @!method clear
    #   Forgets every key: both halves empty, size and swaps 0.
    #   @return [self]

    # call-seq:
    #   new(m, k = nil, error_rate: nil, capacity: nil, seed: 0, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, seed: 0, hash: :murmur3_mixed)
    #
    # m:: (Integer) bits of both halves, > 0 (rounded up to even)
    # k:: (Integer, nil) bits per key, 1..MAX_K; with error_rate:
    #     instead, the manual's k = -log2(1 - sqrt(1 - error_rate)), rounded
    #     up (the manual rounds down, which can double the rate)
    # capacity:: (Integer, nil) keys per half (default: the manual's
    #     floor(m / (2k) ln 2), at least 1)
    #
    # <tt>new(capacity:, error_rate:, seed: 0)</tt>:
    # The manual's k for +error_rate+, and the manual's 2 * ceil(capacity *
    # k / ln 2) bits, or more where halves that small would err above the
    # rate on average (their expected rate, BloomFilter.find_m_k's model).
    #
    # capacity:: (Integer) keys per half, > 0
    # error_rate:: (Float) target rate with both halves full, 0 < error_rate < 1
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default: each probe remixed, so
    #     that a key's probes are independent at any m) or :murmur3 (the
    #     unmixed probes of filters made before it)
    # Raises:: ArgumentError, TypeError for sizes or rates out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, seed: 0, hash: :murmur3_mixed)
      hash = HashFunction.murmur3_kind(hash, "A² filter")
      m, k, sized_capacity = self.class.send(:sizing, m, k, capacity, error_rate)
      setup(m, k, sized_capacity, seed, hash)
      remember_sizing(error_rate && sized_capacity, error_rate)
    end

    # [m, k, capacity] from the constructor's arguments.
    # @api private
    def self.sizing(m, k, capacity, error_rate) # :nodoc:
      raise ArgumentError, "give k or error_rate:, not both" if k && error_rate
      raise ArgumentError, "give m, or capacity: and error_rate:" if m.nil? && (capacity.nil? || error_rate.nil?)

      if error_rate
        BloomHelper.find_m_k(1, error_rate) # the rate's checks
        k = optimal_k(error_rate)
        if m.nil?
          BloomHelper.find_m_k(capacity, error_rate) # the capacity's checks
          m = sized_bits(capacity, k, error_rate) or
            raise ArgumentError, "capacity #{capacity} at error #{error_rate} needs more bits than a filter can hold"
        end
      end
      raise ArgumentError, "give k or error_rate:" if k.nil?

      if capacity.nil? && m.is_a?(Integer) && k.is_a?(Integer) # else setup raises the TypeError
        capacity = [optimal_capacity(m + (m & 1), k), 1].max # a tiny filter still takes a key per half
      end
      [m, k, capacity]
    end
    private_class_method :sizing

    # The false-positive rate with both halves holding +count+ keys each
    # (by default #capacity, the worst moment: just before a swap),
    # 1 - (1 - p1)**2 for a half's rate p1.
    #
    # count:: (Numeric) >= 0
    # Returns:: (Float)
    def expected_false_positive_rate(count = capacity)
      raise TypeError, "count must be a number, not #{count.class}" unless count.is_a?(Numeric) && count.real?
      raise ArgumentError, "count must be >= 0, got #{count.inspect}" unless count >= 0

      count = [count, 2**64].min # the rate is 1 long before; a larger Integer is no Float
      self.class.send(:model_fpr, m, k, count)
    end

    include HashFunction
    include Inspect
    include Stats
    include SetOps
    include Persistence
    include Sizing

    # Always false: the halves swap before either holds more than capacity
    # keys, so the rate stays at most error_rate however many keys arrive.
    #
    # Returns:: (false)
    def over_capacity?
      false
    end

    private def shape
      { m: m, k: k, capacity: capacity, seed: seed, hash_function: hash_function }
    end

    # Both halves' bits set, over m.
    #
    # Returns:: (Float)
    def fill_ratio
      occupied_halves.sum.fdiv(m)
    end

    # The keys the two halves hold, each half estimated on its own (a key in
    # both counts twice).
    #
    # Returns:: (Float)
    def estimated_count
      occupied_halves.sum { |set| Stats.estimate(set, m / 2, k) }
    end

    # A key is found when either half holds all its bits.
    #
    # Returns:: (Float)
    def false_positive_rate
      1 - occupied_halves.map { |set| 1 - set.fdiv(m / 2)**k }.inject(:*)
    end

    private def inspect_fields
      "m=#{m} k=#{k} capacity=#{capacity} size=#{size} swaps=#{swaps}"
    end
  end
end
