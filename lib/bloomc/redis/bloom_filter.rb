# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis").

module Bloomc
  module Redis
    # A Bloom filter of m bits in Redis, answering exactly as
    # Bloomc::BloomFilter.new(m, k, seed:, hash:) would.
    class BloomFilter < Filter
      # @overload initialize(redis, name, m:, k:, seed: 0, hash: :murmur3_mixed, shards: 1)
      # @overload initialize(redis, name, capacity:, error_rate:, seed: 0, hash: :murmur3_mixed, shards: 1)
      # @overload initialize(redis, name)
      #   Opens an existing filter with the parameters stored beside it.
      # @raise [ArgumentError] when the stored filter has other parameters
      # @raise [Bloomc::Redis::ConnectionError] when Redis cannot be reached
      def initialize(redis, name, m: nil, k: nil, capacity: nil, error_rate: nil, seed: nil, hash: nil, shards: nil)
        super()
        open(redis, name, { m: m, k: k, capacity: capacity, error_rate: error_rate, seed: seed, hash: hash }, shards)
      end

      # A Redis filter holding a local Bloomc::BloomFilter's bits (an
      # unsharded filter: its cells string is the local filter's bytes), its
      # size, its capacity and error_rate if it has them, and as the count
      # of keys new to it (over_capacity?) the number its fill implies (the
      # local filter does not keep one), at most its size.
      # @return [Bloomc::Redis::BloomFilter]
      def self.from_local(redis, name, filter)
        raise TypeError, "a Bloomc::BloomFilter, not #{filter.class}" unless filter.instance_of?(Bloomc::BloomFilter)

        copy = opened(redis, name, m: filter.m, k: filter.k, seed: filter.seed, hash: filter.hash_function, limits: limits_of(filter))
        fields, body = filter.send(:export_core)
        copy.send(:write_cells, body.byteslice(0, (filter.m + 7) / 8), fields[4], distinct_of(filter))
        copy
      end

      # A local Bloomc::BloomFilter with this filter's bits and size, and its
      # capacity, error_rate and count of new keys when it has them (unsharded
      # only).
      # @return [Bloomc::BloomFilter]
      def to_local
        unsharded!

        local = Bloomc::BloomFilter.new(@layout.m, k, seed: @seed, hash: hash_function)
        fields, body = local.send(:export_core)
        cells = read_cells(1)
        fields[4] = size
        local.send(:import_core, fields, cells.ljust(body.bytesize, "\0"))
        carry_limits_to(local)
      end

      private

      def kind = "bloom"

      def occupied_shards = bit_counts

      # BITOP per shard, with the size, atomically (bits_combine).
      def combine_shards(other, op)
        operator = op == :union ? "OR" : "AND"
        calls = Array.new(shards) do |i|
          [nil, [shard_key(i, "cells"), shard_key(i, "count"), other.send(:shard_key, i, "cells"), other.send(:shard_key, i, "count")],
           [operator]]
        end
        pipelined_scripts(:bits_combine, calls, once: true)
      end

      def add_script = :bits_add

      def lookup_script = :bits_lookup

      def meta_for(shape, shards)
        m, k = Bloomc.sizing_arguments(shape[:m], shape[:k], shape[:capacity], shape[:error_rate])
        seed = shape[:seed] || 0
        hash = Bloomc.hash_kind(shape[:hash] || :murmur3_mixed, seed)
        RedisLayout.new(m, k, seed, hash, 1, true) # checks m, k and seed
        { "kind" => kind, "m" => checked_m(m, shards, 1).to_s, "k" => k.to_s, "seed" => seed.to_s,
          "hash" => hash.to_s, "shards" => shards.to_s, "width" => "1", "period_ms" => "0", **limits_meta(shape) }
      end
    end
  end
end
