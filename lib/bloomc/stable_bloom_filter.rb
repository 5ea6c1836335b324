# frozen_string_literal: true

module Bloomc
  # A filter for an endless stream that forgets old keys at a steady rate
  # (Deng and Rafiei's stable Bloom filter): each add takes 1 from d random
  # cells and sets the key's k cells to 2**width - 1. However long the
  # stream, the fraction of zero cells settles at #stable_zero_fraction and
  # the false-positive rate at #stable_false_positive_rate. Recent keys are
  # found; a key added long ago may not be (a false negative, by design).
  #
  # Pick it to flag duplicates in a stream too long for any fixed filter when
  # an old duplicate now and then may pass. The random cells come from a
  # generator seeded by +random_seed:+, so a seeded filter is reproducible.
  #
  # Example:
  #
  #   seen = Bloomc::StableBloomFilter.new(capacity: 100_000, error_rate: 0.01)
  #   stream.each { |id| emit(id) unless seen.include?(id); seen << id }
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts cells
  # (k of them a key's). add takes 1 from d random cells, then sets the key's
  # k cells to 2**width - 1; add? finds a key new when include? would have
  # said false; include? asks whether all the key's cells are above 0: true
  # for a key added recently (the last add always is), false for most keys
  # never added and for keys added long ago. == compares the generator's
  # state too, and clear leaves the generator running on.
  class StableBloomFilter < Filter
    include HashFunction
    include Stats
    include Sizing

    # call-seq:
    #   new(m, k, d, width: 3, seed: 0, random_seed: nil, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, width: 3, seed: 0, random_seed: nil, hash: :murmur3_mixed)
    #
    # m:: (Integer) number of cells, > 0
    # k:: (Integer) cells set per key, 1..MAX_K
    # d:: (Integer) cells decremented per add, 1..m
    #
    # <tt>new(capacity:, error_rate:, width: 3, seed: 0, random_seed: nil)</tt>:
    # m and k as a plain filter for +capacity+ keys at +error_rate+ would
    # have them (BloomHelper::find_m_k, in cells), and d from Deng and
    # Rafiei's stable point so that the settled rate is +error_rate+.
    #
    # capacity:: (Integer) number of recent keys to size for, > 0
    # error_rate:: (Float) settled false-positive rate, 0 < error_rate < 1
    # width:: (Integer) bits per cell, 1..32
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # random_seed:: (Integer, nil) the generator's seed, 0...2**64 (nil: random)
    # hash:: (Symbol) :murmur3_mixed (the default: each probe remixed, so
    #     that a key's probes are independent at any m) or :murmur3 (the
    #     unmixed probes of filters made before it)
    # Raises:: ArgumentError, TypeError, RangeError for arguments out of range
    def initialize(m = nil, k = nil, d = nil, capacity: nil, error_rate: nil, width: 3, seed: 0, random_seed: nil,
                   hash: :murmur3_mixed)
      random_seed = Bloomc.random_seed_argument(random_seed)
      hash = HashFunction.murmur3_kind(hash, "stable filter")
      if capacity.nil? && error_rate.nil?
        raise ArgumentError, "give m, k and d, or capacity: and error_rate:" if m.nil? || k.nil? || d.nil?
      else
        raise ArgumentError, "give either m, k and d or capacity: and error_rate:, not both" if m || k || d
        raise ArgumentError, "capacity: and error_rate: go together" if capacity.nil? || error_rate.nil?

        m, k, d = self.class.send(:sizing, capacity, error_rate, width)
      end
      setup(m, k, d, width, seed, random_seed, hash)
      remember_sizing(capacity, error_rate)
    end

    # [m, k, d] for a stable filter sized like a plain one for +capacity+
    # keys, settling at rate +error+.
    # @api private
    def self.sizing(capacity, error, width) # :nodoc:
      m, k = BloomFilter.find_m_k(capacity, error)
      raise TypeError, "width must be an Integer, not #{width.class}" unless width.is_a?(Integer)
      raise ArgumentError, "width must be in 1..32, got #{width}" unless (1..32).cover?(width)

      # A few cells hold no stable point at the rate (capacity 1 at 0.01: 11
      # cells and k 6 have no d): the fewest cells from there that do (71),
      # stepping out by a quarter, then halving back.
      settles = ->(cells) { d_for(cells, k, width, error).positive? }
      bad = m - 1
      good = m
      until settles[good]
        raise ArgumentError, "no stable filter of #{m} to #{m * 64} cells and k=#{k} settles at #{error}" if good > m * 64

        bad = good
        good = (good * 1.25).ceil
      end
      while good - bad > 1
        mid = (good + bad) / 2
        settles[mid] ? good = mid : bad = mid
      end
      [good, k, d_for(good, k, width, error)]
    end
    private_class_method :sizing

    # The fraction of cells at 0 now (1.0 when new; it falls towards
    # stable_zero_fraction as keys stream in).
    def zero_fraction = 1.0 - occupied.fdiv(m)

    # Always false: a stable filter forgets old keys to settle at its rate,
    # however many keys arrive.
    #
    # Returns:: (false)
    def over_capacity?
      false
    end

    private def shape
      { m: m, k: k, d: d, width: width, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      "m=#{m} k=#{k} d=#{d} width=#{width} size=#{size}"
    end
  end

  # @api private
  # A generator seed: an Integer in 0...2**64, or a random one for nil.
  def self.random_seed_argument(seed) # :nodoc:
    return Random.new_seed & (2**64 - 1) if seed.nil?
    raise TypeError, "random_seed must be an Integer, not #{seed.class}" unless seed.is_a?(Integer)
    raise RangeError, "random_seed #{seed} outside 0...2**64" unless (0...(2**64)).cover?(seed)

    seed
  end
end
