# frozen_string_literal: true

module Bloomc
  # The hash a filter places its probes with, for every kind that has a
  # choice (hash_kind, its number in HASH_FUNCTIONS, is the C core's).
  module HashFunction
    # Returns:: (Symbol) :murmur3_mixed (the default), :murmur3 (the
    #     unmixed probes of filters made before it) or, for the plain and
    #     continuous filters, :fnv1a
    def hash_function
      HASH_FUNCTIONS.key(hash_kind)
    end

    # @api private
    # The number of +name+ for a kind that takes :murmur3_mixed or :murmur3.
    def self.murmur3_kind(name, kind) # :nodoc:
      return HASH_FUNCTIONS.fetch(name) if %i[murmur3_mixed murmur3].include?(name)

      raise ArgumentError, "a #{kind} hashes with :murmur3_mixed or :murmur3, not #{name.inspect}"
    end
  end
end
