# frozen_string_literal: true

module Bloomc
  # A cuckoo filter (Fan, Andersen, Kaminsky and Mitzenmacher, 2014): each key
  # is stored as a short fingerprint in one of two buckets of 4 slots, so it
  # can be deleted, in about a quarter of a CountingBloomFilter's memory at
  # the same error rate. Lookups read two buckets.
  #
  # When both buckets of a new key are full, stored fingerprints move to
  # their other bucket to make room, up to 500 moves. A filter that still
  # finds no room raises Bloomc::CapacityError and is left exactly as it was:
  # no key it held is lost. Sized by capacity, it holds +capacity+ keys at 95%
  # of its slots.
  #
  # Deleting a key that was never added is the caller's error: if the key is
  # a false positive, the fingerprint it removes belongs to another key,
  # which is then no longer found. Delete only keys you added.
  #
  # Example:
  #
  #   seen = Bloomc::CuckooFilter.new(capacity: 1_000_000, error_rate: 0.001)
  #   seen << "alice"
  #   seen.include?("alice")  # => true
  #   seen.delete("alice")    # => true
  #   seen.include?("alice")  # => false (unless a false positive)
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts slots
  # (buckets * SLOTS) and there is no k. add stores one more copy of a key's
  # fingerprint (a key added twice must be deleted twice), add? stores none
  # when the key is (probably) there already, size counts the fingerprints
  # stored, and == asks for the same ones in the same slots.
  class CuckooFilter < Filter
    include Sizing

    # The share of slots a filter sized by capacity fills at capacity.
    LOAD = 0.95

    # call-seq:
    #   new(capacity:, error_rate:, seed: 0)
    #   new(buckets:, fingerprint_bits:, seed: 0)
    #
    # <tt>new(capacity:, error_rate:, seed: 0)</tt>:
    # Fingerprints of ceil(log2(8 / error_rate)) bits (8..32), and the
    # fewest buckets that hold +capacity+ keys at 95% of their slots.
    #
    # capacity:: (Integer) keys, > 0
    # error_rate:: (Float) target false-positive rate at capacity,
    #     0 < error_rate < 1 (below about 1.9e-9 the 32-bit fingerprint's
    #     rate is the floor)
    # buckets:: (Integer) buckets of SLOTS slots, > 0
    # fingerprint_bits:: (Integer) 8..32
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # Raises:: ArgumentError, TypeError for sizes or rates out of range
    def initialize(capacity: nil, error_rate: nil, buckets: nil, fingerprint_bits: nil, seed: 0)
      if buckets || fingerprint_bits
        unless buckets && fingerprint_bits && !capacity && !error_rate
          raise ArgumentError, "give buckets: and fingerprint_bits:, or capacity: and error_rate:"
        end
      else
        raise ArgumentError, "give capacity: and error_rate:, or buckets: and fingerprint_bits:" unless capacity && error_rate

        buckets, fingerprint_bits = self.class.send(:shape_for, capacity, error_rate)
      end
      setup(buckets, fingerprint_bits, seed)
      remember_sizing(capacity, error_rate)
    end

    # [buckets, fingerprint bits] for +capacity+ keys at +error_rate+: a
    # lookup compares 2 * SLOTS slots, each a match with chance 1 / (2**f - 1).
    # Up to SLOTS keys take one bucket (both of a key's buckets are it).
    # Beyond, two limits, the larger wins:
    # - A small table fills less far than LOAD before a key finds no room:
    #   at LOAD, 1-8% of seeds at capacities 10 to 100 raised CapacityError
    #   short of their capacity; they are sized for LOAD - 1.8 / sqrt(capacity).
    # - A key's two buckets are one with chance 1 / buckets, and five such
    #   keys on one bucket make any table refuse the fifth: about
    #   capacity^5 / (120 buckets^9), 1 in 20,000 at capacity 5 in 3
    #   buckets. Enough buckets keep that under one in a million (none in
    #   200,000 seeds at any capacity from 5 to 200).
    # @api private
    def self.shape_for(capacity, error_rate) # :nodoc:
      BloomHelper.find_m_k(capacity, error_rate) # the checks and errors every kind gives
      bits = Math.log2(2 * SLOTS * LOAD / error_rate).ceil.clamp(8, 32)
      return [1, bits] if capacity <= SLOTS

      load = (LOAD - 1.8 / Math.sqrt(capacity)).clamp(0.45, LOAD)
      confined = Math.exp((5 * Math.log(capacity) - Math.log(1.2e-4)) / 9) # in logs: capacity**5 passes a Float's range
      [[(capacity / (SLOTS * load)).ceil, confined.ceil].max, bits]
    end
    private_class_method :shape_for

    # The share of slots in use.
    #
    # Returns:: (Float)
    def load_factor
      size.fdiv(m)
    end

    # The Stats name of #load_factor.
    alias fill_ratio load_factor

    # The keys stored, exactly (a key added twice counts twice).
    #
    # Returns:: (Integer)
    def estimated_count
      size
    end

    # The chance that a key never added is found now: 1 - (1 - 1/(2**f - 1))
    # to the power of the fingerprints in a key's two buckets, on average
    # 2 * SLOTS * load_factor.
    #
    # Returns:: (Float)
    def false_positive_rate
      expected_false_positive_rate(size)
    end

    # The same with +count+ keys stored (by default the capacity, or every
    # slot of a filter sized by buckets).
    #
    # count:: (Numeric) >= 0
    # Returns:: (Float)
    def expected_false_positive_rate(count = capacity || m)
      load = [checked_count(count).fdiv(m), 1].min
      1 - ((1 - 1.0 / ((2**fingerprint_bits) - 1))**(2 * SLOTS * load))
    end

    # Raises:: Bloomc::UnsupportedError always: cuckoo filters have no exact
    #     intersection (a key in both may sit in different buckets of each,
    #     and its copies differ in number)
    def &(_other)
      raise UnsupportedError, "cuckoo filters have no exact intersection: a key in both may sit in different buckets"
    end

    # Whether it holds more keys than the capacity it was sized for.
    #
    # Returns:: (Boolean)
    def over_capacity?
      !capacity.nil? && size > capacity
    end

    private def shape
      { buckets: buckets, fingerprint_bits: fingerprint_bits, seed: seed }
    end

    private def inspect_fields
      "buckets=#{buckets} fingerprint_bits=#{fingerprint_bits} size=#{size} load=#{(load_factor * 100).round(1)}%"
    end
  end
end
