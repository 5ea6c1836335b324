# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis").

module Bloomc
  module Redis
    # A filter whose keys expire, on the Redis server's clock: every client
    # agrees on the time without a timer of its own. A key is found for at
    # least +ttl+ seconds after its add and not after 1.5 * ttl, as with
    # Bloomc::ContinuousBloomFilter (a key copied by from_local: up to
    # 2.5 * ttl); see SCRIPTS for how.
    class ContinuousBloomFilter < Filter
      # @overload initialize(redis, name, m:, k:, ttl:, seed: 0, hash: :murmur3_mixed, shards: 1)
      # @overload initialize(redis, name, capacity:, error_rate:, ttl:, seed: 0, hash: :murmur3_mixed, shards: 1)
      # @overload initialize(redis, name)
      # @param ttl [Numeric] seconds, at least 0.002 (the clock ticks every
      #   ttl / 2, in whole milliseconds)
      def initialize(redis, name, m: nil, k: nil, capacity: nil, error_rate: nil, ttl: nil, seed: nil, hash: nil,
                     shards: nil)
        super()
        open(redis, name, { m: m, k: k, capacity: capacity, error_rate: error_rate, ttl: ttl, seed: seed, hash: hash },
             shards)
      end

      # @return [Float] seconds a key lives at least
      def ttl = @period_ms * 2 / 1000.0

      # Whether the live keys exceed capacity; false when capacity is nil.
      # The live keys are an estimate, from the cells set in any live
      # generation (X of a shard's m, ORed on the server in a scratch key
      # that the same script deletes): n = -(m / k) ln(1 - X / m), summed
      # over the shards, as Bloomc::Stats#estimated_count does; a key added
      # twice counts once, an expired one not at all.
      # @return [Boolean]
      def over_capacity?
        return false unless capacity

        estimated_count > capacity
      end

      # Removes every generation and the count, in one pipeline.
      # @return [self]
      def clear
        writable!
        pipelined_scripts(:continuous_clear, Array.new(shards) { |i| [nil, [shard_key(i, "gen"), shard_key(i, "count")], [@period_ms]] },
                          once: true)
        write("DEL", shard_key(0, "slot"))
        self
      end

      # A Redis filter holding a local Bloomc::ContinuousBloomFilter's live
      # buckets: a bucket a ticks old goes to the bitmap of the period a - 1
      # back on the server's clock (the current slot's to the current period
      # and the next), so every key is found for at least ttl after its add,
      # whatever the two clocks' phases; a copied key may be found up to ttl
      # longer than on the local filter (at most 2.5 ttl after its add). The local clock's slot is
      # kept beside, and to_local gives it back.
      # @return [Bloomc::Redis::ContinuousBloomFilter]
      def self.from_local(redis, name, filter)
        raise TypeError, "a Bloomc::ContinuousBloomFilter, not #{filter.class}" unless filter.instance_of?(Bloomc::ContinuousBloomFilter)

        copy = opened(redis, name, m: filter.m, k: filter.k, ttl: filter.ttl, seed: filter.seed, hash: filter.hash_function,
                                   limits: limits_of(filter))
        fields, body = filter.send(:export_core)
        copy.send(:write_generations, RedisLayout.continuous_to_redis(body, filter.m, fields[4]), fields[4])
        copy
      end

      # A local Bloomc::ContinuousBloomFilter with these keys at their ages,
      # its clock stopped (unsharded only). Its slot is the one from_local
      # was given, moved on by the periods passed since.
      # @return [Bloomc::ContinuousBloomFilter]
      def to_local
        unsharded!

        local = Bloomc::ContinuousBloomFilter.new(m, k, ttl, seed: @seed, hash: hash_function)
        fields, body = local.send(:export_core)
        gen = server_generation
        offset = stored_count(read("GET", shard_key(0, "slot")), shard_key(0, "slot"), max: 14)
        ages = (0..2).map { |age| read_string(generation_key(gen - age), (m + 7) / 8) }
        fields[4] = ((gen + offset) % 15) + 1
        cells = RedisLayout.continuous_from_redis(*ages, m, fields[4])
        local.send(:import_core, fields, cells.ljust(body.bytesize, "\0"), false)
        carry_limits_to(local)
      end

      private

      def kind = "continuous"

      # The bits set in any live generation, per shard (continuous_live_bits).
      def occupied_shards
        calls = Array.new(shards) { |i| [nil, [shard_key(i, "gen"), shard_key(i, "live")], [@period_ms]] }
        pipelined_scripts(:continuous_live_bits, calls)
      end

      # Each live generation, per shard, with the size, atomically
      # (continuous_combine; its scratch keys in the shard's slot).
      def combine_shards(other, op)
        calls = Array.new(shards) do |i|
          scratch = %w[mine theirs previous current].map { |part| shard_key(i, "combine:#{part}") }
          [nil, [shard_key(i, "gen"), other.send(:shard_key, i, "gen"), shard_key(i, "count"), other.send(:shard_key, i, "count"), *scratch],
           [@period_ms, op.to_s]]
        end
        pipelined_scripts(:continuous_combine, calls, once: true)
      end

      # The continuous filter keeps no count of new keys: over_capacity?
      # estimates the live ones.
      def recount_distinct = nil

      def add_script = :continuous_add

      def lookup_script = :continuous_lookup

      def add_keys(shard) = [shard_key(shard, "gen"), shard_key(shard, "count")]

      def lookup_keys(shard) = [shard_key(shard, "gen")]

      def add_argv = [@period_ms]

      def lookup_argv = [@period_ms]

      def inspect_extra = " ttl=#{ttl}"

      def meta_for(shape, shards)
        m, k = Bloomc.sizing_arguments(shape[:m], shape[:k], shape[:capacity], shape[:error_rate])
        ttl = shape[:ttl]
        raise ArgumentError, "ttl: is required" if ttl.nil?
        raise TypeError, "ttl must be a number of seconds, not #{ttl.class}" unless ttl.is_a?(Numeric) && ttl.real?

        unless ttl.finite? && ttl.positive? && ttl <= Bloomc::ContinuousBloomFilter::MAX_TTL
          raise ArgumentError, "ttl must be finite, above 0 and at most #{Bloomc::ContinuousBloomFilter::MAX_TTL} s, not #{ttl}"
        end

        # Whole milliseconds, rounded up (keys live at least ttl), from the
        # ttl the caller wrote: 4.014 is 4.01399... as a Float, 4.014 here.
        exact = ttl.is_a?(Float) ? ttl.rationalize(Rational(1, 10**9)) : ttl.to_r
        period_ms = [(exact * 500).ceil, 1].max

        seed = shape[:seed] || 0
        hash = Bloomc.hash_kind(shape[:hash] || :murmur3_mixed, seed)
        RedisLayout.new(m, k, seed, hash, 1, true)
        { "kind" => kind, "m" => checked_m(m, shards, 1).to_s, "k" => k.to_s, "seed" => seed.to_s,
          "hash" => hash.to_s, "shards" => shards.to_s, "width" => "1", "period_ms" => period_ms.to_s, **limits_meta(shape) }
      end

      def adopt_extra(meta)
        @period_ms = Integer(meta["period_ms"])
        raise ArgumentError, "period_ms #{@period_ms}" unless @period_ms.positive?
      end

      # The current period on the clock of the node holding the unsharded
      # filter, as the scripts compute it.
      def server_generation
        seconds, micros = script(:time, [shard_key(0, "gen")], []).map { |part| Integer(part) }
        ((seconds * 1000) + (micros / 1000)) / @period_ms
      end

      def generation_key(gen) = "#{shard_key(0, 'gen')}:#{gen}"

      # Writes the bitmaps of an unsharded filter for the next, current and
      # previous periods (continuous_to_redis), each whole at once
      # (replace_string), and the slot offset that maps the server's periods
      # onto the local clock's slots. A bitmap whose period has ended by the
      # time it is written (a long copy at a short ttl) is dropped: its keys
      # have expired.
      def write_generations(periods, slot)
        gen = server_generation
        write("DEL", generation_key(gen - 2))
        periods.each_with_index do |bytes, back|
          key = generation_key(gen + 1 - back)
          if bytes.count("\0") == bytes.bytesize
            write("DEL", key)
          else
            replace_string(key, bytes, expire_at: (gen + 1 - back + 3) * @period_ms)
          end
        end
        write("SET", shard_key(0, "slot"), (slot - 1 - gen) % 15)
      end
    end
  end
end
