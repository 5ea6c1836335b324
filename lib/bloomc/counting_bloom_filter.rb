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
    # +m+ cells of +width+ bits (1..32), +k+ of them a key's; or sized as BloomFilter.new sizes its bits,
    # a cell in use counting as a set bit. capacity:, error_rate:, seed: and
    # hash: are BloomFilter.new's (hash: :murmur3_mixed or :murmur3).
    #
    # Raises:: ArgumentError, TypeError for sizes or rates out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, width: 4, seed: 0, hash: :murmur3_mixed)
      hash = HashFunction.murmur3_kind(hash, "counting filter")
      m, k = sized(m, k, capacity, error_rate)
      setup(m, k, width, seed, hash)
    end

    # The number of cells above 0.
    def cells_in_use = occupied

    private def shape
      { m: m, k: k, width: width, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} width=#{width} size=#{size} saturated=#{saturated}"
    end
  end
end
