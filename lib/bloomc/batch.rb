# frozen_string_literal: true

require "etc"

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
  # A large batch runs on several cores: +threads:+ (every batch method
  # takes it) is the most native threads it uses; nil, the default, is
  # automatic: one per core for 100,000 keys or more on a filter of 64 MiB
  # or more (past the caches, where the threads gain), else one.
  # The calling thread keeps the GVL while they run, so other Ruby threads
  # wait for the batch as they do for a serial one (and a Ruby thread that
  # adds to the same filter at once cannot lose a key); the result is the
  # serial one, cell for cell. Keys are hashed on those threads when they are
  # Strings or Integers that fit a Fixnum (a batch holding a Symbol or a
  # larger Integer runs on one thread). Adds run on several threads for the
  # BloomFilter, BlockedBloomFilter and ContinuousBloomFilter, lookups for
  # every class (a mapped ContinuousBloomFilter's on one).
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

    # The cores this process may run on, read once (a Ractor reads it too).
    CORES = Etc.nprocessors
    private_constant :CORES

    # Adds every key.
    #
    # keys:: (Array, Enumerable) Strings, Symbols or Integers
    # threads:: (Integer, nil) the most native threads to use (see Batch)
    # Returns:: (self)
    # Raises:: TypeError when keys is not Enumerable or a key is of another type
    # Raises:: FrozenError when the filter is frozen
    def add_all(keys, threads: nil)
      keys = Batch.keys_array(keys)
      batch_add(keys, false, Batch.threads_for(threads))
      self
    end

    # Adds every key, as add? does one by one: the batch form of add?.
    #
    # keys:: (Array, Enumerable) Strings, Symbols or Integers
    # Returns:: (Array) the keys (the same objects) that were new, in order; a
    #     key repeated in +keys+ is new at most once, at its first place
    # Raises:: TypeError when keys is not Enumerable or a key is of another type
    # Raises:: FrozenError when the filter is frozen
    # Raises:: ArgumentError when threads is below 1
    def add_new(keys, threads: nil)
      keys = Batch.keys_array(keys)
      batch_add(keys, true, Batch.threads_for(threads))
    end

    # keys:: (Array, Enumerable)
    # threads:: (Integer, nil) the most native threads to use (see Batch)
    # Returns:: (Array<Boolean>) include?(key) for each key, in order
    def include_all(keys, threads: nil)
      keys = Batch.keys_array(keys)
      batch_lookup(keys, LOOKUP_MODES[:results], Batch.threads_for(threads))
    end

    # keys:: (Array, Enumerable)
    # threads:: (Integer, nil) the most native threads to use (see Batch)
    # Returns:: (Integer) how many of the keys include? finds
    def count_included(keys, threads: nil)
      keys = Batch.keys_array(keys)
      batch_lookup(keys, LOOKUP_MODES[:count], Batch.threads_for(threads))
    end

    # keys:: (Array, Enumerable)
    # threads:: (Integer, nil) the most native threads to use (see Batch)
    # Returns:: (Boolean) whether include? finds every key (true for none);
    #     stops at the first group of 64 keys with one missing
    def all_include?(keys, threads: nil)
      keys = Batch.keys_array(keys)
      batch_lookup(keys, LOOKUP_MODES[:all], Batch.threads_for(threads))
    end

    # keys:: (Array, Enumerable)
    # threads:: (Integer, nil) the most native threads to use (see Batch)
    # Returns:: (Boolean) whether include? finds any key (false for none);
    #     stops at the first group of 64 keys with one found
    def any_include?(keys, threads: nil)
      keys = Batch.keys_array(keys)
      batch_lookup(keys, LOOKUP_MODES[:any], Batch.threads_for(threads))
    end

    # @api private
    # The threads for a batch (batch.c): +threads+, checked, or for nil
    # -CORES, which batch.c reads as automatic.
    def self.threads_for(threads) # :nodoc:
      return -CORES if threads.nil?
      raise TypeError, "threads must be an Integer or nil, not #{threads.class}" unless threads.is_a?(Integer)
      raise ArgumentError, "threads must be at least 1, not #{threads}" if threads < 1

      [threads, 64].min
    end

    # @api private
    def self.keys_array(keys) # :nodoc:
      return keys if keys.is_a?(Array)
      return keys.to_a if keys.is_a?(Enumerable)

      raise TypeError, "keys must be an Array or Enumerable, not #{keys.class}"
    end
  end
end
