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
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts the
  # bits of both halves together. add puts a key in the active half unless
  # it is there already, and when that half already holds +capacity+ keys,
  # clears the other half first and makes it the active one; add? finds a
  # key new when neither half holds it (a key found only in the older half
  # is copied into the active one all the same); include? asks either half,
  # and is always true for the last +capacity+ distinct keys added. clear
  # also sets swaps to 0.
  class A2BloomFilter < Filter
    include HashFunction
    include PartStats
    include Sizing

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
      self.class.send(:model_fpr, m, k, checked_count(count))
    end

    # Always false: the halves swap before either holds more than capacity
    # keys, so the rate stays at most error_rate however many keys arrive.
    #
    # Returns:: (false)
    def over_capacity?
      false
    end

    # The number of distinct keys a half takes before the halves swap.
    def capacity = export_fields[3]

    # The distinct keys counted toward the next swap, which comes when it
    # reaches capacity: those added to the active half (after a union, the
    # emptier input's count, though the half holds both inputs' keys).
    def active_size = export_fields[5]

    # How many times the halves have swapped (each swap forgets the keys of
    # the older half).
    def swaps = export_fields[7]

    private def shape
      { m: m, k: k, capacity: capacity, seed: seed, hash_function: hash_function }
    end

    # The halves, for PartStats.
    private def part_fills
      occupied_halves.map { |set| [set, m / 2, k] }
    end

    private def inspect_fields
      "m=#{m} k=#{k} capacity=#{capacity} size=#{size} swaps=#{swaps}"
    end
  end
end
