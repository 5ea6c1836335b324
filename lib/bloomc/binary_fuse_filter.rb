# frozen_string_literal: true

module Bloomc
  # A binary fuse filter (Graf and Lemire, 2022): a set built once from all
  # its keys and then only read, within 1.13x of the information-theoretic
  # bound: about 9 bits a key for a false-positive rate of 1/256 (8-bit
  # fingerprints), 18 for 1/65536 (16-bit), where a BloomFilter needs about
  # 11.5 and 23. For a list published to clients that never changes between
  # builds (revoked, breached or blocked items): rebuild it to change it.
  #
  # A lookup reads three fingerprints and compares their XOR with the key's.
  # It cannot add, delete or be combined: build one from all the keys.
  #
  # Example:
  #
  #   revoked = Bloomc::BinaryFuseFilter.build(File.foreach("revoked.txt", chomp: true))
  #   revoked.include?(serial)
  #   revoked.save("revoked.bloom")
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts the
  # fingerprint slots (about 1.125 a key for large sets), size the distinct
  # keys it was built from, and there is no k. == asks for the same
  # fingerprints: built from the same keys, bits and seed.
  class BinaryFuseFilter < Filter
    # Builds the filter of +keys+; repeated keys count once. Construction
    # always ends: a seed whose equations do not solve (rare, and rarer the
    # larger the set) is followed by the next.
    #
    # keys:: (Enumerable<String, Symbol, Integer>) every key of the set
    # fingerprint_bits:: (Integer) 8 (rate about 1/256) or 16 (1/65536)
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # Returns:: (BinaryFuseFilter)
    # Raises:: TypeError for keys that are not Strings, Symbols or Integers,
    #     or +keys+ not Enumerable
    def self.build(keys, fingerprint_bits: 8, seed: 0)
      new(keys, fingerprint_bits: fingerprint_bits, seed: seed)
    end

    # Same as ::build.
    def initialize(keys, fingerprint_bits: 8, seed: 0)
      raise TypeError, "fingerprint_bits must be an Integer, not #{fingerprint_bits.class}" unless fingerprint_bits.is_a?(Integer)

      setup(Batch.keys_array(keys), fingerprint_bits, seed)
    end

    # call-seq:
    #   add(key)
    #   self << key
    #   add?(key)
    #   add_all(keys)
    #   add_new(keys)
    #   delete(key)
    #   remove(key)
    #   clear
    #   merge!(other)
    #   self | other
    #   self & other
    #
    # Each raises Bloomc::UnsupportedError: the filter is built once, from
    # all its keys (::build), and never changes or combines.
    def add(*)
      raise UnsupportedError, "#{self.class} is built once from all its keys (#{self.class}.build(keys)): it cannot #{__callee__}"
    end
    alias << add
    alias add? add
    alias add_all add
    alias add_new add
    alias delete add
    alias remove add
    alias clear add
    alias merge! add
    alias | add
    alias & add

    # Same as ::build's rate for 8 or 16 bits: 2**-fingerprint_bits.
    #
    # Returns:: (Float)
    def false_positive_rate
      size.zero? ? 0.0 : 2.0**-fingerprint_bits
    end

    # The share of slots whose fingerprint is not 0 (about 1 - 2**-bits of
    # a built filter's).
    #
    # Returns:: (Float)
    def fill_ratio
      m.zero? ? 0.0 : occupied.fdiv(m)
    end

    # The keys it was built from.
    #
    # Returns:: (Integer)
    def estimated_count
      size
    end

    # Whether it was built from no key (it then finds none).
    def empty?
      size.zero?
    end

    # Bits a key: the fingerprints' bits over the keys.
    #
    # Returns:: (Float)
    def bits_per_key
      size.zero? ? 0.0 : (m * fingerprint_bits).fdiv(size)
    end

    # nil: it holds exactly the keys it was built from.
    def capacity
      nil
    end

    # nil, as for a filter built from a shape (see #false_positive_rate).
    def error_rate
      nil
    end

    # Always false: it is sized for its keys.
    def over_capacity?
      false
    end

    private def shape
      { fingerprint_bits: fingerprint_bits, seed: seed }
    end

    private def inspect_fields
      "fingerprint_bits=#{fingerprint_bits} size=#{size} bits_per_key=#{bits_per_key.round(2)}"
    end
  end
end
