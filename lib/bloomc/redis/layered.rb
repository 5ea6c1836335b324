# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis").

module Bloomc
  module Redis
    # The key methods the Redis filters of layers share (ScalableBloomFilter,
    # SlidingBloomFilter): each key's positions go with its script, the
    # class's add_script or lookup_script, by its run_all, which learns of
    # layers another writer added and sends the key again.
    module Layered
      # @return [Boolean] whether a layer holds +key+
      def include?(key)
        run_all(lookup_script, checked([key])).first == 1
      end
      alias [] include?

      # @return [self]
      def add_all(keys)
        writable!
        run_all(add_script, checked(keys), once: true)
        self
      end

      # @return [Array<String, Symbol, Integer>] the keys that were new, in order
      def add_new(keys)
        writable!
        given = checked(keys)
        results = run_all(add_script, given, once: true)
        given.each_index.select { |i| results[i] == 1 }.map { |i| given[i] }
      end

      # @return [Array<Boolean>] include? of each key, in order
      def include_all(keys)
        run_all(lookup_script, checked(keys)).map { |found| found == 1 }
      end

      private

      # Opening an existing filter: its own parameters (own_parameters, in
      # the meta hash) must be the ones asked for, as every filter's are.
      def check_asked(asked, stored, shape)
        super
        diff = own_parameters.find { |field| asked[field] != stored[field] }
        raise ArgumentError, "the filter #{name.inspect} in Redis has a different #{diff} (#{stored[diff]}, asked for #{asked[diff]})" if diff
      end
    end
  end
end
