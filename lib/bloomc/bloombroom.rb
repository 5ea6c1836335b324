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
  # The bloombroom release whose API this reproduces.
  VERSION = "1.2.0"

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

    # bloombroom's add returns the number of keys added so far (Bloomc's
    # returns self, to chain).
    alias add add_counting
    alias << add_counting
    public :add, :<<
  end

  # bloombroom's continuous filter, with bloomc's timer and expiry.
  class ContinuousBloomFilter < Bloomc::ContinuousBloomFilter
    FIELD_CLASS = BitBucketField
    private_constant :FIELD_CLASS

    def initialize(*args, hash: :fnv1a, **options)
      super
    end

    # bloombroom returns the timer's Thread, and its users stop the timer by
    # killing it: killing it stops the clock too.
    def start_timer
      super
      timer = send(:timer)
      thread = timer.instance_variable_get(:@thread)
      thread.singleton_class.prepend(StopsClockOnKill)
      thread.instance_variable_set(:@bloomc_timer, timer) # the timer holds the clock, not the filter
      thread
    end

    # Thread#kill and its aliases on a timer's thread: the clock stands still
    # from then on, even if the thread had not run yet; unless the thread is
    # no longer its filter's timer (stopped, and another started since).
    module StopsClockOnKill
      %i[kill exit terminate].each do |name|
        define_method(name) do
          @bloomc_timer.killed if alive? && @bloomc_timer&.thread?(self)
          super()
        end
      end
    end
    private_constant :StopsClockOnKill
  end

  # bloombroom's sizing and its FNV-1a based multi_hash.
  class BloomHelper
    # See:: Bloomc::BloomHelper.find_m_k
    def self.find_m_k(capacity, error)
      Bloomc::BloomHelper.find_m_k(capacity, error)
    end

    # bloombroom's k hash values of key: a + b * (i + 1), a and b the upper and
    # lower 32 bits of its FNV-1a 64-bit hash.
    def self.multi_hash(key, k)
      Bloomc::BloomHelper.multi_hash(key, k, hash: :fnv1a)
    end
  end

  # bloombroom's FNV functions (over every byte of the String), and the C
  # functions it attaches with FFI, which hash the first +length+ bytes.
  class FNVFFI
    def self.fnv1_32(data)
      Bloomc::FNV.fnv1_32(data)
    end

    def self.fnv1a_32(data)
      Bloomc::FNV.fnv1a_32(data)
    end

    def self.fnv1_64(data)
      Bloomc::FNV.fnv1_64(data)
    end

    def self.fnv1a_64(data)
      Bloomc::FNV.fnv1a_64(data)
    end

    def self.c_fnv1_32(data, length)
      Bloomc::FNV.fnv1_32(prefix(data, length))
    end

    def self.c_fnv1a_32(data, length)
      Bloomc::FNV.fnv1a_32(prefix(data, length))
    end

    def self.c_fnv1_64(data, length)
      Bloomc::FNV.fnv1_64(prefix(data, length))
    end

    def self.c_fnv1a_64(data, length)
      Bloomc::FNV.fnv1a_64(prefix(data, length))
    end

    def self.prefix(data, length)
      raise TypeError, "length must be an Integer, not #{length.class}" unless length.is_a?(Integer)
      raise ArgumentError, "length #{length} outside 0..#{data.bytesize}" unless length.between?(0, data.bytesize)

      data.byteslice(0, length)
    end
    private_class_method :prefix
  end

  # The bloombroom gem loaded after this file would reopen these classes and
  # put its Ruby methods over bloomc's. Its lib/bloombroom.rb starts with
  # `class FNVFFI; extend FFI::Library`: refused there, before any method of
  # its replaces one of ours. A file of the gem required on its own is
  # refused at its first method, which is taken back first.
  GEM_FILE = %r{/bloombroom-\d[^/]*/lib/}
  private_constant :GEM_FILE

  module RefuseFFI
    def extend(*modules)
      if modules.any? { |mod| mod.name == "FFI::Library" }
        raise LoadError, "bloomc/bloombroom is loaded: the bloombroom gem cannot load beside it"
      end

      super
    end
  end
  private_constant :RefuseFFI
  FNVFFI.singleton_class.prepend(RefuseFFI)

  module RealGemGuard
    def method_added(name)
      where = caller_locations(1, 1).first&.path.to_s
      if where.match?(GEM_FILE)
        remove_method(name)
        raise LoadError, "bloomc/bloombroom is loaded: the bloombroom gem cannot load beside it (#{where})"
      end
      super
    end
  end
  private_constant :RealGemGuard
  [BitField, BitBucketField, BloomFilter, ContinuousBloomFilter].each { |klass| klass.singleton_class.prepend(RealGemGuard) }
end
