# frozen_string_literal: true

# The bloombroom drop-in: `require "bloomc/bloombroom"` defines the Bloombroom
# namespace on top of bloomc, so an application written for the pure-Ruby gem
# bloombroom 1.2.0 runs unchanged, with the same names, arguments, return
# values and constants. Filters here default to hash: :fnv1a, bloombroom's
# exact bit layout, so their bits match bloombroom's for the same keys.
#
# One deliberate difference: bloombroom hashes only String#size bytes of a key
# (characters, not bytes), so multibyte keys are cut short there ("日本" and
# "日月" are one key); here every byte is hashed.

require "bloomc"

if defined?(Bloombroom::BloomFilter) && !(Bloombroom::BloomFilter < Bloomc::BloomFilter)
  raise LoadError, "the bloombroom gem is already loaded; bloomc/bloombroom replaces it and cannot load beside it"
end

module Bloombroom
  # bloombroom's bit field (position 0 first in to_s).
  class BitField < Bloomc::BitField
    ELEMENT_WIDTH = 32
  end

  # bloombroom's bucket field, with working inc and dec.
  class BitBucketField < Bloomc::BitBucketField
    ELEMENT_WIDTH = 32
  end

  # bloombroom's plain filter: add returns the number of keys added.
  class BloomFilter < Bloomc::BloomFilter
    FIELD_CLASS = BitField
    private_constant :FIELD_CLASS

    def initialize(m = nil, k = nil, hash: :fnv1a, **options)
      super
    end
  end

  # bloombroom's continuous filter, with bloomc's timer and expiry.
  class ContinuousBloomFilter < Bloomc::ContinuousBloomFilter
    FIELD_CLASS = BitBucketField
    private_constant :FIELD_CLASS

    def initialize(*args, hash: :fnv1a, **options)
      super
    end

    # bloombroom returns the timer's Thread.
    def start_timer
      super
      @timer.instance_variable_get(:@thread)
    end
  end

  # bloombroom's sizing and its FNV-1a based multi_hash.
  class BloomHelper
    # @see Bloomc::BloomHelper.find_m_k
    def self.find_m_k(capacity, error)
      Bloomc::BloomHelper.find_m_k(capacity, error)
    end

    # bloombroom's k hash values of key: a + b * (i + 1), a and b the upper and
    # lower 32 bits of its FNV-1a 64-bit hash.
    def self.multi_hash(key, k)
      Bloomc::BloomHelper.multi_hash(key, k, hash: :fnv1a)
    end
  end

  # bloombroom's FNV functions (over every byte of the String).
  class FNVFFI
    def self.fnv1_32(data) = Bloomc::FNV.fnv1_32(data)
    def self.fnv1a_32(data) = Bloomc::FNV.fnv1a_32(data)
    def self.fnv1_64(data) = Bloomc::FNV.fnv1_64(data)
    def self.fnv1a_64(data) = Bloomc::FNV.fnv1a_64(data)
  end
end
