# frozen_string_literal: true

module Bloomc
  # A Bloom filter for an unbounded stream whose keys expire: a key is present
  # for at least +ttl+ seconds after its last add and gone by 1.5 x +ttl+.
  #
  # Each bucket holds 4 bits: the slot (1..15) of a ring clock that ticks every
  # ttl / 2 (RESOLUTION_DIVISOR). A bucket written more than 2 ticks ago is
  # expired, and every tick clears the buckets it expires, so a key never comes
  # back when the ring wraps. The buckets and every per-key step are in C.
  #
  # Example (deduplicating a stream over the last minute):
  #
  #   seen = Bloomc::ContinuousBloomFilter.new(capacity: 100_000, error_rate: 0.001, ttl: 60)
  #   seen.start_timer
  #   stream.each { |event| emit(event) unless seen.include?(event.id); seen << event.id }
  #
  # The methods every kind shares are Bloomc::Filter's (it has no size);
  # here m counts buckets, k the buckets of a key, add also renews a key
  # already there, == compares the clocks too, and clear leaves the clock
  # (ticks, slot, timer) running on.
  class ContinuousBloomFilter < Filter
    include HashFunction
    include Stats
    include Sizing
    include Mapped

    # The class of #buckets.
    FIELD_CLASS = BitBucketField
    private_constant :FIELD_CLASS

    # The longest ttl (about 136 years): the timer must be able to sleep ttl / 2.
    MAX_TTL = 2**32

    # Returns:: (Numeric) the key lifetime in seconds
    attr_reader :ttl

    # call-seq:
    #   new(m, k, ttl, seed: 0, hash: :murmur3_mixed)
    #   new(capacity:, error_rate:, ttl:, seed: 0, hash: :murmur3_mixed)
    #
    # m:: (Integer) number of 4-bit buckets
    # k:: (Integer) buckets per key, 1..MAX_K
    # ttl:: (Numeric) seconds a key lives; 0 for a clock that only
    #     inc_time_slot advances
    #
    # <tt>new(capacity:, error_rate:, ttl:, seed: 0, hash: :murmur3_mixed)</tt>:
    # Sized by BloomHelper::find_m_k for +capacity+ keys alive at once.
    #
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default: each probe remixed),
    #         :murmur3 (unmixed, as filters made before it), or :fnv1a for
    #         bloombroom's exact layout
    # Raises:: ArgumentError, TypeError for sizes, rates or ttls out of range
    def initialize(*args, capacity: nil, error_rate: nil, ttl: nil, seed: 0, hash: :murmur3_mixed)
      case args.size
      when 3 then m, k, ttl_arg = args
      when 0 then m = k = ttl_arg = nil
      else raise ArgumentError, "wrong number of arguments (given #{args.size}, expected 0 or 3)"
      end
      raise ArgumentError, "give ttl once, as an argument or as ttl:" if ttl_arg && ttl

      ttl = ttl_arg || ttl
      raise ArgumentError, "ttl is required" if ttl.nil?

      # Check everything before changing anything (initialize may run again).
      m, k = Bloomc.sizing_arguments(m, k, capacity, error_rate)
      ttl = check_ttl(ttl)
      setup(m, k, seed, Bloomc.hash_kind(hash, seed))
      remember_sizing(capacity, error_rate)
      stop_timer if @ttl # re-initialized: the old clock's thread goes
      @ttl = ttl
    end

    # Whether the live keys, estimated from the live buckets' fill (a key's
    # renewals and expiry leave no exact count), exceed capacity.
    #
    # Returns:: (Boolean)
    def over_capacity?
      !capacity.nil? && estimated_count > capacity
    end

    # A deep copy, with no timer (timers are kept by filter, in TIMERS).
    def initialize_copy(orig) # :nodoc:
      copy_state(orig)
    end

    # open(path, m:, k:, ttl:) describes new(m, k, ttl): the one-bucket
    # template of Mapped::ClassMethods#mapped_template.
    def self.template(k, shape)
      new(1, k, shape[:ttl], **shape.except(:ttl))
    end
    private_class_method :template

    private

    def check_ttl(ttl)
      raise TypeError, "ttl must be a number of seconds, not #{ttl.class}" unless ttl.is_a?(Numeric) && ttl.real?
      raise ArgumentError, "ttl must be finite and >= 0, got #{ttl.inspect}" unless ttl.finite? && ttl >= 0
      raise ArgumentError, "ttl #{ttl} is longer than MAX_TTL (#{MAX_TTL} s)" if ttl > MAX_TTL

      ttl
    end

    # The ttl, which only the Ruby layer holds, as a tenth parameter of the
    # binary format: the bits of an IEEE 754 double.
    def export_extra
      [Sizing.double_bits(ttl)]
    end

    def import_state(fields, body, open = false)
      ttl = saved_ttl(fields)
      import_core(fields.first(9), body, open)
      @ttl = ttl
    end

    def map_state(fields, fd, body_offset, length, writable, recovering)
      ttl = saved_ttl(fields)
      map_core(fields.first(9), fd, body_offset, length, writable, recovering)
      @ttl = ttl
    end

    def saved_ttl(fields)
      raise FormatError, "#{fields.size} parameters where a continuous filter has 10" unless fields.size == 10

      ttl = [fields[9]].pack("Q<").unpack1("E")
      check_ttl(ttl == ttl.to_i ? ttl.to_i : ttl)
    rescue ArgumentError, TypeError, FloatDomainError => e
      raise FormatError, "ttl: #{e.message}"
    end

    def shape
      { m: m, k: k, ttl: ttl, seed: seed, hash_function: hash_function }
    end

    def inspect_fields
      "m=#{m} k=#{k} ttl=#{ttl} slot=#{current_slot} timer=#{timer_running? ? 'running' : 'stopped'}"
    end

    # bloombroom's ring arithmetic: ticks from start_slot to current_slot.
    def elapsed(start_slot, current_slot)
      current_slot >= start_slot ? current_slot - start_slot : (current_slot + 15) - start_slot
    end

    private_constant :Clock
  end
end

require_relative "continuous_timer"
