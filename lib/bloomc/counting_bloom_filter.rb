# frozen_string_literal: true

module Bloomc
  # A Bloom filter of counters: keys can be deleted, and count(key) estimates
  # how often a key was added. Each cell is a counter of +width+ bits (4 by
  # default, enough for uniform streams); a counter that reaches
  # 2**width - 1 saturates and stays there, so no key added and not deleted
  # ever reads 0. #saturated says how many cells did.
  #
  # Example:
  #
  #   filter = Bloomc::CountingBloomFilter.new(capacity: 100_000, error_rate: 0.01)
  #   filter << "alice" << "alice" << "bob"
  #   filter.count("alice") # => 2
  #   filter.delete("bob")  # => true
  class CountingBloomFilter
    include Batch

    # Defined in C for every kind (ext/bloomc/filter.c), documented here for
    # RDoc (:method:) and for YARD (@!method):

    ##
    # :method: m
    # call-seq: m -> Integer
    #
    # The number of cells.

    # @!method m
    #   The number of cells.
    #   @return [Integer]

    ##
    # :method: k
    # call-seq: k -> Integer
    #
    # The number of cells per key.

    # @!method k
    #   The number of cells per key.
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
    # Adds less successful deletes (never below 0: a delete that finds
    # saturated cells succeeds without a matching add).

    # @!method size
    #   Adds less successful deletes (never below 0: a delete that finds
    #   saturated cells succeeds without a matching add).
    #   @return [Integer]

    ##
    # :method: ==
    # call-seq: self == other -> true or false
    #
    # Equal when +other+ is a CountingBloomFilter of the same shape and seed
    # with the same cells and counts.

    # @!method ==
    #   Equal when +other+ is a CountingBloomFilter of the same shape and seed
    #   with the same cells and counts.

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
    # Forgets every key: all cells 0, size and saturated 0.

    # @!method clear
    #   Forgets every key: all cells 0, size and saturated 0.
    #   @return [self]

    # call-seq:
    #   new(m, k, width: 4, seed: 0, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, width: 4, seed: 0, hash: :murmur3_mixed)
    #
    # m:: (Integer) number of cells, > 0
    # k:: (Integer) cells per key, 1..MAX_K
    #
    # <tt>new(capacity:, error_rate:, width: 4, seed: 0)</tt>:
    # m and k by BloomFilter.find_m_k: the fewest cells whose expected rate
    # at +capacity+ keys is at most +error_rate+ (a cell in use is a set bit)
    #
    # capacity:: (Integer) expected number of distinct keys, > 0
    # error_rate:: (Float) target false-positive rate, 0 < error_rate < 1
    # width:: (Integer) bits per cell, 1..32
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default: each probe remixed, so
    #     that a key's probes are independent at any m) or :murmur3 (the
    #     unmixed probes of filters made before it)
    # Raises:: ArgumentError, TypeError for sizes or rates out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, width: 4, seed: 0, hash: :murmur3_mixed)
      hash = HashFunction.murmur3_kind(hash, "counting filter")
      m, k = sized(m, k, capacity, error_rate)
      setup(m, k, width, seed, hash)
    end

    include HashFunction
    include Inspect
    include Stats
    include SetOps
    include Persistence
    include Sizing
    include Mapped

    private def shape
      { m: m, k: k, width: width, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} width=#{width} size=#{size} saturated=#{saturated}"
    end
  end
end
