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
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts
  # counters (k of them a key's), add counts one more of a key, add? finds a
  # key new when its count was 0, include? is count(key) above 0, and size is
  # adds less successful deletes (never below 0: a delete that finds
  # saturated cells succeeds without a matching add).
  class CountingBloomFilter < Filter
    include HashFunction
    include Stats
    include Sizing
    include Mapped

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

    private def shape
      { m: m, k: k, width: width, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} width=#{width} size=#{size} saturated=#{saturated}"
    end
  end
end
