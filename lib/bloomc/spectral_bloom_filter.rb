# frozen_string_literal: true

module Bloomc
  # A counting filter with sharper counts for skewed streams (Cohen and
  # Matias' spectral Bloom filter), by one of two algorithms:
  #
  # - +:mi+ (minimum increase): an add raises only the key's smallest cells.
  #   Fewer increments mean fewer inflated counts, but a delete could take
  #   from other keys, so MI refuses delete (Bloomc::UnsupportedError).
  # - +:rm+ (recurring minimum): counts as a counting filter does, and keeps
  #   the keys whose minimum sits in a single cell (the ones likely inflated
  #   by a collision) in a secondary filter as well, which answers for them.
  #   Supports delete.
  #
  # Both answer include? from the primary cells, so a key added (and, for RM,
  # not deleted) is always found. Their counts are at least as accurate as a
  # counting filter's minimum on skewed (Zipf) streams; RM's can, rarely, fall
  # below the true count when the secondary answers for a key it never held,
  # or when a delete finds the deleted key in the secondary by a false
  # positive and takes from the keys it collides with there (the algorithm's
  # own limit: the secondary cannot tell whose counts it holds).
  #
  # Example:
  #
  #   filter = Bloomc::SpectralBloomFilter.new(capacity: 100_000, error_rate: 0.01, algorithm: :mi)
  #   words.each { |w| filter << w }
  #   filter.count("the") # => about how often "the" came
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts the
  # primary cells (k of them a key's), add counts one more of a key by the
  # algorithm (MI raises only the key's smallest cells, RM raises them all),
  # add? finds a key new when its estimated count was 0, include? asks
  # whether all its primary cells are above 0, size is adds less successful
  # deletes (never below 0), and clear empties both of RM's filters.
  class SpectralBloomFilter < Filter
    include HashFunction
    include Stats
    include Sizing

    # algorithm: takes :mi (minimum increase, the default) or :rm
    # (recurring minimum, with a secondary filter).
    ALGORITHMS = %i[mi rm].freeze

    # call-seq:
    #   new(m, k, algorithm: :mi, width: 4, secondary_m: nil, seed: 0, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, algorithm: :mi, width: 4, secondary_m: nil, seed: 0, hash: :murmur3_mixed)
    #
    # m:: (Integer) number of primary cells, > 0
    # k:: (Integer) cells per key, 1..MAX_K
    #
    # <tt>new(capacity:, error_rate:, algorithm: :mi, width: 4, secondary_m: nil, seed: 0)</tt>:
    # m and k by BloomFilter.find_m_k: the fewest cells whose expected rate
    # at +capacity+ keys is at most +error_rate+ (a cell in use is a set bit)
    #
    # capacity:: (Integer) expected number of distinct keys, > 0
    # error_rate:: (Float) target false-positive rate, 0 < error_rate < 1
    # algorithm:: (Symbol) :mi or :rm
    # width:: (Integer) bits per cell, 1..32
    # secondary_m:: (Integer, nil) RM's secondary cells (default m / 2,
    #     at least 1); must be nil for MI
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default: each probe remixed, so
    #     that a key's probes are independent at any m) or :murmur3 (the
    #     unmixed probes of filters made before it)
    # Raises:: ArgumentError, TypeError for sizes, rates or algorithms out of range
    def initialize(m = nil, k = nil, capacity: nil, error_rate: nil, algorithm: :mi, width: 4, secondary_m: nil, seed: 0,
                   hash: :murmur3_mixed)
      unless ALGORITHMS.include?(algorithm)
        raise ArgumentError, "unknown algorithm #{algorithm.inspect} (:mi or :rm)"
      end
      raise ArgumentError, "secondary_m: is for algorithm: :rm only" if algorithm == :mi && !secondary_m.nil?

      m, k = sized(m, k, capacity, error_rate)
      if algorithm == :rm && secondary_m.nil? && m.is_a?(Integer) && m.positive?
        secondary_m = [(m + 1) / 2, 1].max
      end
      setup(m, k, width, seed, algorithm == :rm, secondary_m, HashFunction.murmur3_kind(hash, "spectral filter"))
    end

    # Returns:: (Symbol) :mi or :rm
    def algorithm = ALGORITHMS[export_fields[0]]

    # The number of cells of RM's secondary filter; nil for MI.
    def secondary_m = algorithm == :rm ? export_fields[7] : nil

    private def shape
      { algorithm: algorithm, m: m, secondary_m: secondary_m, k: k, width: width, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} algorithm=#{algorithm} width=#{width} size=#{size}"
    end
  end
end
