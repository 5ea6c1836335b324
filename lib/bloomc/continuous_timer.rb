# frozen_string_literal: true

module Bloomc
  # The timer thread of a ContinuousBloomFilter's clock (the clock itself,
  # its ticks and their schedule, are in C: ext/bloomc/continuous_clock.c).
  class ContinuousBloomFilter < Filter
    # The shortest ttl the timer thread keeps (it ticks every ttl / 2): below
    # it the thread would do little but wake up. Call inc_time_slot yourself
    # for a faster clock.
    MIN_TIMER_TTL = 0.02

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
        RUNNING.each_key(&:restarted)
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
    private_constant :Timer
  end
end
