# frozen_string_literal: true

module Bloomc
  # What a forked child must do before it runs on (Process._fork is the hook
  # every fork path goes through since Ruby 3.1). First the mapped filters
  # turn read-only (mapping.c), since their files stay the parent's; then the
  # timers restart, and a timer of such a filter finds it frozen and stops.
  # Neither step looks for filters in a weak table, which can hand out a
  # filter already dead whose instance variables the GC has freed.
  module ForkHook
    # Forks as Process._fork does; in the child, first hands the mapped
    # filters back, then restarts the timers.
    def _fork
      pid = super
      if pid.zero?
        Mapped.send(:hand_back_after_fork)
        ContinuousBloomFilter.const_get(:Timer).restart_all_after_fork
      end
      pid
    end
  end
  Process.singleton_class.prepend(ForkHook)
end
