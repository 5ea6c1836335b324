# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis").

module Bloomc
  module Redis
    # A counting filter in Redis: cells of +width+ bits (BITFIELD), adds
    # that saturate, deletes and counts, as Bloomc::CountingBloomFilter.
    class CountingBloomFilter < Filter
      # @overload initialize(redis, name, m:, k:, width: 4, seed: 0, hash: :murmur3_mixed, shards: 1)
      # @overload initialize(redis, name, capacity:, error_rate:, width: 4, seed: 0, hash: :murmur3_mixed, shards: 1)
      # @overload initialize(redis, name)
      def initialize(redis, name, m: nil, k: nil, capacity: nil, error_rate: nil, width: nil, seed: nil, hash: nil, shards: nil)
        super()
        open(redis, name, { m: m, k: k, capacity: capacity, error_rate: error_rate, width: width, seed: seed, hash: hash }, shards)
      end

      # @return [Integer] bits per cell
      attr_reader :width

      # Counts one +key+ less: true when it was counted, false (and nothing
      # changes) when its count is 0.
      # @return [Boolean]
      def delete(key)
        writable!
        shard, cells = @layout.locate(key)
        script(:counting_delete, add_keys(shard), [k, "u#{width}", max, *cells], once: true).first == 1
      end
      alias remove delete

      # The key's count: never below the adds less the deletes.
      # @return [Integer]
      def count(key)
        shard, cells = @layout.locate(key)
        script(:counting_count, lookup_keys(shard), [k, "u#{width}", *cells]).first
      end

      # A Redis filter with a local Bloomc::CountingBloomFilter's cells and
      # size; its capacity, error_rate and count of new keys as
      # BloomFilter.from_local.
      # @return [Bloomc::Redis::CountingBloomFilter]
      def self.from_local(redis, name, filter)
        raise TypeError, "a Bloomc::CountingBloomFilter, not #{filter.class}" unless filter.instance_of?(Bloomc::CountingBloomFilter)

        copy = opened(redis, name, m: filter.m, k: filter.k, width: filter.width, seed: filter.seed, hash: filter.hash_function,
                                   limits: limits_of(filter))
        fields, body = filter.send(:export_core)
        copy.send(:write_cells, RedisLayout.cells_to_redis(body.byteslice(0, (filter.m * filter.width + 7) / 8), filter.m, filter.width), fields[4],
                  distinct_of(filter))
        copy
      end

      # A local Bloomc::CountingBloomFilter with these cells and size
      # (unsharded only; as BloomFilter#to_local).
      # @return [Bloomc::CountingBloomFilter]
      def to_local
        unsharded!

        local = Bloomc::CountingBloomFilter.new(@layout.m, k, width: width, seed: @seed, hash: hash_function)
        fields, body = local.send(:export_core)
        cells, saturated = RedisLayout.cells_from_redis(read_cells(width), @layout.m, width)
        fields[4] = size
        fields[5] = saturated
        local.send(:import_core, fields, cells.ljust(body.bytesize, "\0"))
        carry_limits_to(local)
      end

      # Whether no counter is above 0 (BITCOUNT of each shard's cells).
      # @return [Boolean]
      def empty? = bit_counts.all?(&:zero?)

      private

      def kind = "counting"

      # Counters that are not 0, per shard: a script over each range of
      # CELLS_PER_SCAN cells (counting_occupied), all in one pipeline.
      def occupied_shards
        calls = scan_ranges.map { |i, from, to| [i, [shard_key(i, "cells")], [width, from, to]] }
        sums = Array.new(shards, 0)
        pipelined_scripts(:counting_occupied, calls).each_with_index { |n, at| sums[calls[at][0]] += n }
        sums
      end

      # [shard, from, to] for each range of CELLS_PER_SCAN cells of each shard.
      def scan_ranges
        (0...shards).flat_map do |i|
          (0...@layout.m).step(CELLS_PER_SCAN).map { |from| [i, from, [from + CELLS_PER_SCAN, @layout.m].min] }
        end
      end

      # The counters, CELLS_PER_SCAN at a time (each call atomic, the whole
      # not: a concurrent add lands whole, before or after its cells'
      # range), then the sizes, in one pipeline.
      def combine_shards(other, op)
        cells = scan_ranges.map do |i, from, to|
          [nil, [shard_key(i, "cells"), other.send(:shard_key, i, "cells")], [width, op.to_s, from, to]]
        end
        pipelined_scripts(:counting_combine, cells, once: true)
        counts = Array.new(shards) { |i| [nil, [shard_key(i, "count"), other.send(:shard_key, i, "count")], [op.to_s]] }
        pipelined_scripts(:counts_combine, counts, once: true)
      end

      def max = (2**width) - 1

      def add_script = :counting_add

      def lookup_script = :counting_count

      def add_argv = ["u#{width}"]

      def lookup_argv = ["u#{width}"]

      def inspect_extra = " width=#{width}"

      def meta_for(shape, shards)
        m, k = Bloomc.sizing_arguments(shape[:m], shape[:k], shape[:capacity], shape[:error_rate])
        width = shape[:width] || 4
        raise ArgumentError, "width must be an Integer in 1..32, not #{width.inspect}" unless width.is_a?(Integer) && width.between?(1, 32)

        seed = shape[:seed] || 0
        hash = HashFunction.murmur3_kind(shape[:hash] || :murmur3_mixed, "counting filter")
        RedisLayout.new(m, k, seed, hash, 1, false) # checks m, k and seed
        { "kind" => kind, "m" => checked_m(m, shards, width).to_s, "k" => k.to_s, "seed" => seed.to_s,
          "hash" => hash.to_s, "shards" => shards.to_s, "width" => width.to_s, "period_ms" => "0", **limits_meta(shape) }
      end

      def adopt_extra(meta)
        @width = Integer(meta["width"])
        raise ArgumentError, "hash #{@hash}" unless [0, 2].include?(@hash)
      end

      # The lookup script answers counts: a key is included above 0.
      def present?(answer) = answer.positive?
    end
  end
end
