# frozen_string_literal: true

module Bloomc
  # A Bloom filter for an unbounded stream whose keys expire: a key is present
  # for at least +ttl+ seconds after its last add and gone by 1.5 x +ttl+.
  #
  # Each bucket holds 4 bits: the slot (1..15) of a ring clock that ticks every
  # ttl / 2 (RESOLUTION_DIVISOR). A bucket written more than 2 ticks ago is
  # expired, and every tick clears the buckets it expires, so a key never comes
  # back when the ring wraps. The buckets and every per-key step are in C; this
  # file holds the clock's timer thread.
  #
  # Example (deduplicating a stream over the last minute):
  #
  #   seen = Bloomc::ContinuousBloomFilter.new(capacity: 100_000, error_rate: 0.001, ttl: 60)
  #   seen.start_timer
  #   stream.each { |event| emit(event) unless seen.include?(event.id); seen << event.id }
  class ContinuousBloomFilter
    include HashFunction
    include Inspect
    include Stats
    include SetOps
    include Persistence
    include Sizing
    include Mapped

    # Whether the live keys, estimated from the live buckets' fill (a key's
    # renewals and expiry leave no exact count), exceed capacity.
    #
    # Returns:: (Boolean)
    def over_capacity?
      !capacity.nil? && estimated_count > capacity
    end

    class << self
      private

      # open(path, m:, k:, ttl:) describes new(m, k, ttl); the template has
      # one bucket (see Mapped::ClassMethods#mapped_template).
      def mapped_template(shape)
        shape = shape.dup
        capacity = shape.delete(:capacity)
        error_rate = shape.delete(:error_rate)
        m, k = Bloomc.sizing_arguments(shape.delete(:m), shape.delete(:k), capacity, error_rate)
        [new(1, k, shape.delete(:ttl), **shape).tap { |t| t.send(:remember_sizing, capacity, error_rate) }, m]
      end
    end

    private def shape
      { m: m, k: k, ttl: ttl, seed: seed, hash_function: hash_function }
    end
    include Batch

    # The class of #buckets.
    FIELD_CLASS = BitBucketField
    private_constant :FIELD_CLASS

    # Defined in C for every kind (ext/bloomc/filter.c), documented here for
    # RDoc (:method:) and for YARD (@!method):

    ##
    # :method: m
    # call-seq: m -> Integer
    #
    # The number of buckets.

    # @!method m
    #   The number of buckets.
    #   @return [Integer]

    ##
    # :method: k
    # call-seq: k -> Integer
    #
    # The number of buckets written per key.

    # @!method k
    #   The number of buckets written per key.
    #   @return [Integer]

    ##
    # :method: seed
    # call-seq: seed -> Integer
    #
    # The MurmurHash3 seed of the key hash.

    # @!method seed
    #   The MurmurHash3 seed of the key hash.
    #   @return [Integer]

    ##
    # :method: clear
    # call-seq: clear -> self
    #
    # Forgets every key; the clock (ticks, slot, timer) runs on.

    # @!method clear
    #   Forgets every key; the clock (ticks, slot, timer) runs on.
    #   @return [self]

    # Defined in C for this kind (ext/bloomc/continuous_bloom_filter.c),
    # documented here:

    ##
    # :method: ==
    # call-seq: self == other -> true or false
    #
    # Equal when +other+ is a ContinuousBloomFilter of the same shape, hash and
    # clock with the same buckets.

    # @!method ==
    #   Equal when +other+ is a ContinuousBloomFilter of the same shape, hash and
    #   clock with the same buckets.

    ##
    # :method: eql?
    # call-seq: eql?(other) -> true or false
    #
    # Same as #==.

    # @!method eql?(other)
    #   Same as #==.

    ##
    # :method: hash
    # call-seq: hash -> Integer
    #
    # A hash consistent with ==.

    # @!method hash
    #   A hash consistent with ==.
    #   @return [Integer]

    # The shortest ttl the timer thread keeps (it ticks every ttl / 2): below
    # it the thread would do little but wake up. Call inc_time_slot yourself
    # for a faster clock.
    MIN_TIMER_TTL = 0.02

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

    # The running timers, by filter, kept outside the filters: a filter then
    # holds nothing that cannot be shared (a Mutex, a Thread), which a copy
    # into a Ractor needs (Ruby 3.3 refuses to copy a T_DATA object that
    # refers to one). Keys are weak: a timer holds only its filter's clock,
    # so an unreferenced filter is still collected. Main Ractor only, as
    # timers are.
    TIMERS = ObjectSpace::WeakMap.new
    TIMERS_LOCK = Mutex.new
    private_constant :TIMERS, :TIMERS_LOCK

    # Starts the thread that ticks the clock every ttl / 2, on the monotonic
    # clock: a late wake-up catches up by the ticks really elapsed, and ticks do
    # not drift. The thread holds the filter's clock, not the filter (an
    # unreferenced filter is collected and its thread ends), and is restarted
    # in a forked child.
    # Starting a running timer does nothing.
    #
    # Returns:: (self)
    # Raises:: ArgumentError when ttl is below MIN_TIMER_TTL
    # Raises:: Bloomc::Error outside the main Ractor
    # Raises:: FrozenError on a frozen filter (its clock cannot move)
    def start_timer
      raise FrozenError.new("can't start the timer of a frozen #{self.class}", receiver: self) if frozen?
      raise Bloomc::Error, "the timer thread runs only in the main Ractor" unless Ractor.current == Ractor.main

      raise TypeError, "uninitialized #{self.class}" unless @ttl
      if ttl < MIN_TIMER_TTL
        raise ArgumentError, "ttl #{ttl} is too short for the timer (at least #{MIN_TIMER_TTL}); " \
                             "advance the clock with inc_time_slot"
      end
      TIMERS_LOCK.synchronize do
        raise FrozenError.new("can't start the timer of a frozen #{self.class}", receiver: self) if frozen?

        TIMERS[self] = Timer.new(self, ttl.fdiv(RESOLUTION_DIVISOR)).start unless timer&.running?
      end
      self
    end

    # Stops the timer thread; the clock then stands still. A frozen filter's
    # timer stopped when it was frozen.
    #
    # Returns:: (self)
    def stop_timer
      return self if frozen?
      raise TypeError, "uninitialized #{self.class}" unless @ttl
      return self unless main_ractor? # where no timer runs

      TIMERS_LOCK.synchronize { stop_timer_locked }
      self
    end

    # Returns:: (Boolean) whether the timer thread is running
    def timer_running?
      timer&.running? || false
    end

    # Freezing stops the timer: a frozen filter's clock stands still, and its
    # lookups expire nothing, so Ractors can share it
    # (Ractor.make_shareable(filter.freeze)). Under the timers' lock, so
    # that no timer starts between the stop and the freeze.
    #
    # Returns:: (self)
    def freeze
      return super if frozen?

      unless main_ractor? # where no timer runs
        stop_clocks
        return super
      end

      TIMERS_LOCK.synchronize do
        stop_timer_locked
        stop_clocks
        super
      end
    end

    # A deep copy, with no timer (timers are kept by filter, in TIMERS).
    def initialize_copy(orig) # :nodoc:
      copy_state(orig)
    end

    private

    def main_ractor?
      Ractor.current == Ractor.main
    end

    # This filter's timer, running or not, if it has one.
    def timer
      TIMERS[self] if main_ractor?
    end

    def stop_timer_locked
      timer&.stop
      TIMERS[self] = nil if TIMERS.key?(self)
    end

    def check_ttl(ttl)
      raise TypeError, "ttl must be a number of seconds, not #{ttl.class}" unless ttl.is_a?(Numeric) && ttl.real?
      raise ArgumentError, "ttl must be finite and >= 0, got #{ttl.inspect}" unless ttl.finite? && ttl >= 0
      raise ArgumentError, "ttl #{ttl} is longer than MAX_TTL (#{MAX_TTL} s)" if ttl > MAX_TTL

      ttl
    end

    # The ttl, which only the Ruby layer holds, as a tenth parameter of the
    # binary format: the bits of an IEEE 754 double.
    def export_extra
      [[ttl.to_f].pack("E").unpack1("Q<")]
    end

    def import_state(fields, body, open = false)
      ttl = saved_ttl(fields)
      import_core(fields.first(9), body, open)
      restore_ruby_state(ttl)
    end

    def map_state(fields, fd, body_offset, length, writable, recovering)
      ttl = saved_ttl(fields)
      map_core(fields.first(9), fd, body_offset, length, writable, recovering)
      restore_ruby_state(ttl)
    end

    def saved_ttl(fields)
      raise FormatError, "#{fields.size} parameters where a continuous filter has 10" unless fields.size == 10

      ttl = [fields[9]].pack("Q<").unpack1("E")
      check_ttl(ttl == ttl.to_i ? ttl.to_i : ttl)
    rescue ArgumentError, TypeError, FloatDomainError => e
      raise FormatError, "ttl: #{e.message}"
    end

    def restore_ruby_state(ttl)
      @ttl = ttl
    end

    def inspect_fields
      "m=#{m} k=#{k} ttl=#{ttl} slot=#{current_slot} timer=#{timer_running? ? 'running' : 'stopped'}"
    end

    # bloombroom's ring arithmetic: ticks from start_slot to current_slot.
    def elapsed(start_slot, current_slot)
      current_slot >= start_slot ? current_slot - start_slot : (current_slot + 15) - start_slot
    end

    # The clock's timer. Tick n is due at epoch + n * period on the monotonic
    # clock; the schedule lives in the filter (C), which applies every tick due
    # whenever this thread wakes and, as well, on every add and lookup, so a
    # late wake-up catches up, rounding never accumulates, and no key gets a
    # slot the clock has already left.
    class Timer
      MONOTONIC = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }

      # Schedules the filter's clock from now; a clock other than the monotonic
      # one (the specs' fake) drives only this timer's catch_up.
      def initialize(filter, period, clock: MONOTONIC)
        @handle = filter.send(:clock_handle) # the filter's clock, not the filter
        @clock = clock
        @thread = nil
        filter.send(:schedule_clock, clock.call, period, clock.equal?(MONOTONIC))
      end

      # Timers whose thread runs, so that a forked child can restart them.
      # Held strongly (a timer holds no filter, only its Clock): the fork
      # hook must not look for filters in a weak table, which can hand out
      # one already dead whose instance variables the GC has freed.
      RUNNING = {}.compare_by_identity

      # @api private
      # In a forked child, where the parent's timer threads do not exist.
      def self.restart_all_after_fork # :nodoc:
        RUNNING.keys.each(&:restarted)
      end

      def start
        RUNNING[self] = true
        @thread = Thread.new { run }
        @thread.name = "bloomc timer"
        self
      end

      def stop
        RUNNING.delete(self)
        @thread&.kill
        @thread = nil
        @handle.unschedule
      end

      def running?
        @thread&.alive? || false
      end

      # Whether +thread+ is this timer's (the drop-in's Thread#kill asks).
      def thread?(thread)
        @thread.equal?(thread)
      end

      # The drop-in's Thread#kill of this timer's thread: the schedule ends
      # as with #stop, and the thread by that kill.
      def killed
        RUNNING.delete(self)
        @handle.unschedule
      end

      # The same schedule (already in the filter, copied by fork) in a new thread.
      def restarted
        @thread = nil
        start
      end

      # Applies the ticks due by now; returns how many, or nil when the clock
      # cannot move (the filter was collected or closed, or is mapped
      # read-only here).
      def catch_up
        @handle.catch_up(@clock.call)
      end

      private

      # Holds only the Clock, so the filter can be collected; ends when the
      # clock cannot move.
      def run
        loop do
          wait = next_tick_at&.-(@clock.call)
          break if wait.nil?

          sleep(wait) if wait.positive?
          break if catch_up.nil?
        end
      ensure
        RUNNING.delete(self)
        # Ended without #stop (killed, as bloombroom code stops its timer,
        # or its filter gone): the clock stands still, as it would with no
        # thread. A stopped timer's thread is no longer @thread, and a new
        # timer may hold the schedule by then.
        @handle.unschedule if @thread.equal?(Thread.current)
      end

      def next_tick_at
        @handle.next_tick_at
      end
    end
    private_constant :Timer, :Clock
  end
end
