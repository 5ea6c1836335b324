# frozen_string_literal: true

module Bloomc
  # Union and intersection of two filters of the same kind and shape, for
  # filters built apart: shards OR-ed together, a filter fetched and merged
  # into a local one. Each class says what its cells do (bits OR and AND,
  # counters add up or take the smaller, a continuous filter keeps each
  # bucket's more recent slot); its #shape says what must match.
  module SetOps
    # A new filter holding the keys of both.
    #
    # other:: (same class) a filter of the same shape
    # Returns:: (self.class)
    # Raises:: ArgumentError for anything else, naming the difference
    def |(other)
      check_shape(other)
      dup.send(:combined, other, :union)
    end

    # Adds the keys of +other+ to this filter.
    #
    # other:: (same class) a filter of the same shape
    # Returns:: (self)
    # Raises:: ArgumentError for anything else, naming the difference
    # Raises:: FrozenError when this filter is frozen
    def merge!(other)
      check_shape(other)
      combined(other, :union)
    end

    # A new filter that finds a key only where both do (its bits or cells are
    # those both filters have; a key in both is always found, a key in one
    # only may still be, as a false positive of the two together).
    #
    # other:: (same class) a filter of the same shape
    # Returns:: (self.class)
    # Raises:: ArgumentError for anything else, naming the difference
    def &(other)
      check_shape(other)
      dup.send(:combined, other, :intersection)
    end

    # Whether no cell is set: no key was added since creation or #clear
    # (or every one has expired).
    #
    # Returns:: (Boolean)
    def empty?
      fill_ratio.zero?
    end

    private

    # combine, then the keys new to the filter counted again from its cells.
    def combined(other, op)
      combine(other, op)
      send(:recount_distinct) if respond_to?(:recount_distinct, true)
      self
    end

    def check_shape(other)
      kind = filter_kind
      unless other.is_a?(kind)
        raise ArgumentError, "cannot combine a #{kind} with #{other.is_a?(Filter) ? "a #{other.send(:filter_kind)}" : other.class}"
      end

      mine = shape
      theirs = other.send(:shape)
      diff = mine.keys.find { |key| mine[key] != theirs[key] }
      raise ArgumentError, "cannot combine filters of different #{diff} (#{mine[diff].inspect} and #{theirs[diff].inspect})" if diff
    end
  end
end
