# frozen_string_literal: true

module Bloomc
  # A counting filter whose counts have no upper bound: levels of counters,
  # a key's adds carried into the next level once its cells in the last one
  # are full. Level 0 has cells of +width+ bits; each new level has as many
  # cells, twice as wide (up to 32 bits), and is created only when a key
  # first needs it, so a stream of light keys costs one level.
  #
  # Unlike the libBf manual's bitwise filter, an overflow does not take the
  # key out of the level below (that would decrement cells other keys share
  # and undercount them): full cells stay full, and a key's count is the sum
  # of its minima over the levels it reached, never below its true count.
  #
  # Example:
  #
  #   filter = Bloomc::BitwiseBloomFilter.new(capacity: 100_000, error_rate: 0.01)
  #   1_000.times { filter << "hot" }
  #   filter.count("hot") # => 1000
  #   filter.levels       # => 3
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts the
  # cells of a level (k of them a key's), add counts one more of a key (in a
  # new level when its count outgrows the last one), add? finds a key new
  # when its count was 0, include? is count(key) above 0, and clear forgets
  # every level but the first.
  class BitwiseBloomFilter < Filter
    include HashFunction
    include Stats
    include Sizing

    # call-seq:
    #   new(m, k, width: 4, seed: 0, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, width: 4, seed: 0, hash: :murmur3_mixed)
    #
    # +m+ cells a level, +k+ of them a key's in each, of +width+ bits at
    # level 0 (1..32); or sized as BloomFilter.new sizes its bits,
    # a cell in use counting as a set bit. capacity:, error_rate:, seed: and
    # hash: are BloomFilter.new's (hash: :murmur3_mixed or :murmur3).
    #
    # Raises:: ArgumentError, TypeError for sizes or rates out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, width: 4, seed: 0, hash: :murmur3_mixed)
      hash = HashFunction.murmur3_kind(hash, "bitwise filter")
      m, k = sized(m, k, capacity, error_rate)
      setup(m, k, width, seed, hash)
    end

    # The number of levels so far (1 until some key outgrows level 0).
    def levels = export_fields[5]

    private def shape
      { m: m, k: k, width: width, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} width=#{width} levels=#{levels} size=#{size}"
    end
  end
end
