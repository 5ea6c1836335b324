# frozen_string_literal: true

module Bloomc
  # In Ruby, every kind has batches (Batch), #inspect, set operations
  # (SetOps), saving and loading (Persistence, with Metadata) and committed
  # pages (Pages). The modules only some kinds have, each kind includes
  # itself: HashFunction (a choice of hash), Stats (statistics from the
  # cells' fill), Sizing (capacity: and error_rate:) and Mapped (a filter in
  # a memory-mapped file).
  class Filter
    include Batch
    include Inspect
    include SetOps
    include Persistence
    include Pages
    singleton_class.prepend(Pages::New)

    private

    # The kind this filter is: its class, or for a subclass (bloombroom's)
    # the Bloomc class it comes from, which it merges and compares with.
    def filter_kind
      self.class.ancestors.find { |c| c.is_a?(Class) && c.superclass.equal?(Filter) }
    end

    # +count+ for expected_false_positive_rate, checked, and capped where
    # the rate is 1 long before (a larger Integer is no Float).
    def checked_count(count)
      raise TypeError, "count must be a number, not #{count.class}" unless count.is_a?(Numeric) && count.real?
      raise ArgumentError, "count must be >= 0, got #{count.inspect}" unless count >= 0

      [count, 2**64].min
    end
  end
end
