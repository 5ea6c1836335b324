# frozen_string_literal: true

module Bloomc
  # Batch forms of add and include?, shared by every filter class. A batch
  # hashes its keys a group at a time and fetches the filter's memory for the
  # keys ahead while it probes the ones at hand, so on a large filter it runs
  # several times faster per key than a loop of single calls.
  #
  # +keys+ is an Array, or any Enumerable (read into an Array first). Every key
  # is checked before the first is looked up or added: a key of the wrong type
  # raises TypeError and leaves the filter as it was. A batch holds the GVL from start
  # to end, so another thread's add never lands in the middle of one.
  #
  # Example:
  #
  #   filter.add_all(%w[a b c])
  #   filter.include_all(%w[a z])     # => [true, false]
  #   filter.count_included(%w[a b z]) # => 2
  module Batch
    # What batch_lookup returns (see batch.c).
    LOOKUP_MODES = { results: 0, count: 1, all: 2, any: 3 }.freeze
    private_constant :LOOKUP_MODES

    # Adds every key.
    #
    # keys:: (Array, Enumerable) Strings, Symbols or Integers
    # Returns:: (self)
    # Raises:: TypeError when keys is not Enumerable or a key is of another type
    # Raises:: FrozenError when the filter is frozen
    def add_all(keys)
      batch_add(Batch.keys_array(keys), false)
      self
    end

    # Adds every key, as add? does one by one: the batch form of add?.
    #
    # keys:: (Array, Enumerable) Strings, Symbols or Integers
    # Returns:: (Array) the keys (the same objects) that were new, in order; a
    #     key repeated in +keys+ is new at most once, at its first place
    # Raises:: TypeError when keys is not Enumerable or a key is of another type
    # Raises:: FrozenError when the filter is frozen
    def add_new(keys)
      batch_add(Batch.keys_array(keys), true)
    end

    # keys:: (Array, Enumerable)
    # Returns:: (Array<Boolean>) include?(key) for each key, in order
    def include_all(keys)
      batch_lookup(Batch.keys_array(keys), LOOKUP_MODES[:results])
    end

    # keys:: (Array, Enumerable)
    # Returns:: (Integer) how many of the keys include? finds
    def count_included(keys)
      batch_lookup(Batch.keys_array(keys), LOOKUP_MODES[:count])
    end

    # keys:: (Array, Enumerable)
    # Returns:: (Boolean) whether include? finds every key (true for none);
    #     stops at the first group of 64 keys with one missing
    def all_include?(keys)
      batch_lookup(Batch.keys_array(keys), LOOKUP_MODES[:all])
    end

    # keys:: (Array, Enumerable)
    # Returns:: (Boolean) whether include? finds any key (false for none);
    #     stops at the first group of 64 keys with one found
    def any_include?(keys)
      batch_lookup(Batch.keys_array(keys), LOOKUP_MODES[:any])
    end

    # @api private
    def self.keys_array(keys) # :nodoc:
      return keys if keys.is_a?(Array)
      return keys.to_a if keys.is_a?(Enumerable)

      raise TypeError, "keys must be an Array or Enumerable, not #{keys.class}"
    end
  end
end
