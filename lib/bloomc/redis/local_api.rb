# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis"): what the local filters have
# beside adds and lookups (Bloomc::Stats, Bloomc::SetOps), computed on the
# server: no filter's cells are copied to the client.

module Bloomc
  module Redis
    class Filter
      # @return [Integer] the seed of the hash functions
      attr_reader :seed

      # The share of cells that are not 0, 0.0..1.0, over all shards: bits
      # counted by BITCOUNT (BloomFilter), counters that are not 0 counted
      # by a script (CountingBloomFilter), bits set in a live generation
      # (ContinuousBloomFilter). One pipeline; the cells stay on the server.
      # @return [Float]
      def fill_ratio = occupied.sum.fdiv(@layout.m * shards)

      # The number of distinct keys the fill implies, as
      # Bloomc::Stats#estimated_count: n = -(m / k) ln(1 - X / m) for each
      # shard's X cells set of its m, summed over the shards (a key's cells
      # all lie in one). Infinity once a shard is full.
      # @return [Float]
      def estimated_count = occupied.sum { |set| Stats.estimate(set, @layout.m, k) }

      # The chance that a key never added is found now: a shard's fill to
      # the power k, averaged over the shards (a key picks one at random).
      # @return [Float]
      def false_positive_rate = occupied.sum { |set| set.fdiv(@layout.m)**k } / shards

      # Whether no cell is set: nothing added since creation or #clear (or,
      # for a ContinuousBloomFilter, every key has expired).
      # @return [Boolean]
      def empty? = occupied.all?(&:zero?)

      # Adds the keys of +other+, a Redis filter of the same class and shape
      # on the same server, to this one, on the server: shard by shard,
      # BITOP OR (BloomFilter, and each live generation of a
      # ContinuousBloomFilter) or a script adding the counters, saturating
      # (CountingBloomFilter). The size becomes the sum of the two sizes, as
      # locally.
      # @return [self]
      # @raise [ArgumentError] for a filter of another kind or shape
      # @raise [Bloomc::UnsupportedError] when the two are on different
      #   servers, or on a Redis Cluster with a pair of shards in different
      #   hash slots (Redis combines keys only within one slot)
      # @raise [FrozenError] when this object is frozen
      def merge!(other)
        combine!(other, :union)
      end

      # A new filter in Redis, named +into+, holding the keys of both this
      # filter and +other+ (see merge!). +into+ is created with this
      # filter's shape, or must have it; its cells and counts are replaced.
      # +into+ may name this filter or +other+, which then takes the keys of
      # the other one.
      # @return [Bloomc::Redis::Filter] the filter named +into+
      # @raise (as merge!; ArgumentError when +into+ has another shape)
      def union(other, into:) = combined(other, into, :union)

      # A new filter in Redis, named +into+, that finds a key only where
      # both this filter and +other+ do: the bits both have (BITOP AND), the
      # lesser of two counters, a continuous filter's cells live in both (at
      # the older of their two ages). The size becomes the lesser size, as
      # locally. +into+ as for #union.
      # @return [Bloomc::Redis::Filter] the filter named +into+
      def intersection(other, into:) = combined(other, into, :intersection)

      # A filter in Redis holding the keys of both, as a local filter's |:
      # union(other, into: "NAME|OTHER"), named after the two filters, on
      # their server. Calling it again replaces that filter's cells and
      # counts, so it takes no more keys in Redis however often it runs;
      # destroy it when done. On a Redis Cluster the derived name's shards
      # mostly lie in other hash slots than the operands': then
      # Bloomc::UnsupportedError, nothing written (use merge!, or union
      # with a name whose slots match, or to_local).
      # @return [Bloomc::Redis::Filter] the filter named "NAME|OTHER"
      # @raise (as #union)
      def |(other)
        check_combinable(other)
        combined(other, "#{name}|#{other.name}", :union, operator: "|")
      end

      # A filter in Redis that finds a key only where both do, as a local
      # filter's &: intersection(other, into: "NAME&OTHER"), named, replaced
      # and refused on a cluster as #| is.
      # @return [Bloomc::Redis::Filter] the filter named "NAME&OTHER"
      # @raise (as #intersection)
      def &(other)
        check_combinable(other)
        combined(other, "#{name}&#{other.name}", :intersection, operator: "&")
      end

      private

      # The cells that are not 0, per shard (each kind's occupied_shards). A
      # shard has @layout.m cells: more set means a string longer than the
      # scripts write (bits set by hand), a fill above 1.
      def occupied
        occupied_shards.each_with_index do |set, i|
          next if set <= @layout.m

          raise FormatError, "the filter #{name.inspect} in Redis is unusable: #{shard_key(i, 'cells')} has #{set} cells set, " \
                             "beyond the #{@layout.m} of a shard"
        end
      end

      # Bits set per shard: BITCOUNT of each cells string, in one pipeline.
      def bit_counts = read_all(Array.new(shards) { |i| ["BITCOUNT", shard_key(i, "cells")] })

      # The parameters two filters must share to be combined.
      def shape = @stored_meta.slice(*shape_fields)

      # The stored parameters that make a filter's shape.
      def shape_fields = META

      # Every check comes before the first write: a refused call creates
      # nothing in Redis. +operator+: the | or & that named +into+.
      def combined(other, into, op, operator: nil)
        raise TypeError, "into: must be the name (a String) of the filter to create, not #{into.inspect}" unless into.is_a?(String)
        raise ArgumentError, "into: must be a non-empty name without braces, not #{into.inspect}" unless into.match?(/\A[^{}]+\z/)

        check_combinable(other)
        return combine!(other, op) if into == name
        return other.send(:combine!, self, op) if into == other.name

        check_slots([name, other.name, into], op: op, operator: operator)
        target = self.class.allocate
        target.send(:open_like, connection, into, @stored_meta)
        target.send(:combine_from, self, other, op)
      end

      # This filter (new or replaced) becomes +first+ combined with +second+.
      def combine_from(first, second, op) = clear.send(:combine!, first, :union).send(:combine!, second, op)

      # Combines +other+ into this filter, shard by shard (each kind's
      # combine_shards), then counts again the keys new to it, as a local
      # filter does after a set operation (recount_distinct).
      def combine!(other, op)
        writable!
        check_combinable(other)
        check_slots([name, other.name])
        combine_shards(other, op)
        recount_distinct if capacity
        self
      end

      def check_combinable(other)
        unless other.instance_of?(self.class)
          raise ArgumentError, "cannot combine a #{self.class} with #{other.is_a?(Filter) ? "a #{other.class}" : other.class}"
        end

        mine = shape
        theirs = other.send(:shape)
        diff = mine.keys.find { |field| mine[field] != theirs[field] }
        raise ArgumentError, "cannot combine filters of different #{diff} (#{mine[diff] || 'none'} and #{theirs[diff] || 'none'})" if diff
        return if same_server?(other)

        raise UnsupportedError, "#{name.inspect} and #{other.name.inspect} are on different Redis servers " \
                                "(#{connection.server}, #{other.send(:connection).server}): Redis combines keys on one server only"
      end

      # Whether +other+ is on this filter's server, as far as the clients
      # tell, whatever their forms (a Redis, a RedisClient, a pool's): the
      # same URL (host, port and database) for standalone servers; for a
      # cluster, both on one (the hash slots decide, check_slots).
      def same_server?(other)
        return cluster? == other.send(:cluster?) if cluster? || other.send(:cluster?)

        connection.server == other.send(:connection).server
      end

      # On a Redis Cluster, each shard i of the filters +names+ must lie in one hash
      # slot: Redis runs a multi-key command or script within one slot only
      # (CROSSSLOT). The slots follow from the names (the hash tag
      # "{NAME:i}"), so two filters of different names share them only by
      # chance. The error says what would work instead: names[2] is the
      # result's, of the operation +op+ (+operator+: the | or & that
      # derived its name).
      def check_slots(names, op: nil, operator: nil)
        return unless cluster?

        shards.times do |i|
          slots = names.map { |name| ::RedisClient::Cluster::KeySlotConverter.convert("{#{name}:#{i}}") }
          next if slots.uniq.size == 1

          held = names.zip(slots).map { |name, slot| "#{name.inspect} in slot #{slot}" }.join(", ")
          raise UnsupportedError, "cannot combine Redis filters on a cluster whose shards #{i} lie in different hash slots " \
                                  "(#{held}): Redis combines keys within one slot only; #{slot_advice(names, slots, op, operator)}"
        end
      end

      # What to do instead, when the slots of +names+ differ: +op+ the
      # operation that was asked for (nil: merge!).
      def slot_advice(names, slots, op, operator)
        local = "or combine local copies (to_local)"
        return "keep the keys in one filter, #{local}" if slots[0] != slots[1]

        said = "#{names[2].inspect} lies elsewhere"
        said = "#{names[0].inspect} #{operator} #{names[1].inspect} names its result #{names[2].inspect}, whose shards lie elsewhere" if operator
        "#{said}: #{'merge! one into the other, or ' if op == :union}#{op}(other, into: NAME) with a NAME whose shards " \
          "share the two's slots (one of the two's names does), #{local}"
      end

      # Whether the client is a cluster's: a Redis::Cluster or a
      # RedisClient::Cluster, or a pool of them.
      def cluster? = connection.cluster?

      # After a set operation, as a local filter: the keys new to the filter
      # are those its cells imply (each shard's estimate; its size where a
      # shard is full).
      def recount_distinct
        sizes = read_all(Array.new(shards) { |i| ["GET", shard_key(i, "count")] })
        counts = occupied.each_with_index.map do |set, i|
          estimate = Stats.estimate(set, @layout.m, k)
          estimate.finite? ? estimate.round : stored_count(sizes[i], shard_key(i, "count"))
        end
        write_all(counts.each_with_index.map { |n, i| ["SET", shard_key(i, "distinct"), n] })
      end

      # Opens (creating it when absent) the filter +name+ with the stored
      # parameters +meta+ of another, through that one's +connection+.
      def open_like(connection, name, meta)
        @connection = connection
        @name = name.dup.freeze
        stored = stored_meta(meta)
        diff = shape_fields.find { |field| stored[field] != meta[field] }
        raise ArgumentError, "the filter #{name.inspect} in Redis has a different #{diff} (#{stored[diff]}, asked for #{meta[diff]})" if diff

        adopt(stored)
      end
    end
  end
end
