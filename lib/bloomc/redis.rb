# frozen_string_literal: true

require "bloomc"
require "digest/sha1"

begin
  require "redis"
rescue LoadError => e
  raise LoadError, "bloomc/redis needs the redis gem (redis-rb 5): add `gem \"redis\"` to your Gemfile " \
                   "(and `gem \"redis-clustering\"` for Redis Cluster) [#{e.message}]"
end

module Bloomc
  # Filters kept in Redis, shared by every process and host that opens them
  # by name: Bloomc::Redis::BloomFilter, CountingBloomFilter and
  # ContinuousBloomFilter. A key's positions are computed here, in C, exactly
  # as for the local filters; each operation is one round trip (a Lua script
  # that does all k cells atomically) and the batch forms are pipelined.
  #
  # +redis+ is a client of the redis gem: a Redis or, for a Redis Cluster, a
  # Redis::Cluster (gem redis-clustering). With +shards: N+ a filter is N
  # Redis keys, and a key's cells all lie in the shard its hash picks, so a
  # large filter spreads over a cluster's nodes and each operation still goes
  # to one of them.
  #
  # The Redis keys of filter NAME: "bloomc:{NAME}:meta" (a hash of its
  # parameters) and, per shard i, "bloomc:{NAME:i}:cells" and
  # "bloomc:{NAME:i}:count" (the continuous filter: "bloomc:{NAME:i}:gen:G",
  # one per clock period). Bit offsets follow Redis' order (bit 0 is the high
  # bit of byte 0), mapped so that the cells string of an unsharded
  # BloomFilter holds the same bytes as the local filter's cells.
  module Redis
    # The Redis server cannot be reached, or the connection broke or timed
    # out during an operation; the operation's outcome is unknown (an add
    # may have landed). A write is never sent twice (see Filter#send_once),
    # so it ran once or not at all.
    class ConnectionError < Bloomc::Error; end

    # Redis refused an operation: a key of the filter's holds another type
    # (WRONGTYPE), the server is out of memory (OOM), ... The redis gem's
    # error is the cause. Nothing of the refused script call was written.
    class CommandError < Bloomc::Error; end

    # Whether an error of redis-rb (or redis-clustering) means that a server
    # could not be reached, rather than that it refused a command.
    # @api private
    def self.connection_error?(error)
      return true if error.is_a?(::Redis::BaseConnectionError) || error.is_a?(::RedisClient::ConnectionError)
      return false unless defined?(::Redis::Cluster::InitialSetupError)

      case error
      when ::Redis::Cluster::InitialSetupError, ::Redis::Cluster::NodeMightBeDown then true
      when ::Redis::Cluster::CommandErrorCollection
        !error.errors.empty? && error.errors.values.all? { |inner| connection_error?(inner) }
      else false
      end
    end

    # Cells per script call in the batch forms (8192 / k keys): bounds how
    # long one call holds the server (a few milliseconds).
    CELLS_PER_CALL = 8192

    # The continuous scripts' clock: the period (of ms) the server's TIME is
    # in, and the bitmap key of a period (KEYS[1] is the shard's prefix).
    GENERATION_LUA = <<~LUA
      local function generation(period)
        local now = redis.call('TIME')
        return math.floor((tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)) / period)
      end
      local function generation_key(gen) return KEYS[1] .. ':' .. string.format('%d', gen) end
    LUA
    private_constant :GENERATION_LUA

    # A write script's first step: every key it writes must be a string (or
    # absent), so that a key of another type fails the call before anything
    # changes (Redis does not undo a script's writes when a later one fails).
    STRINGS_LUA = <<~LUA
      local function not_strings(keys, counters)
        for _, key in ipairs(keys) do
          local t = redis.call('TYPE', key)['ok']
          if t ~= 'string' and t ~= 'none' then return 'WRONGTYPE ' .. key .. ' holds a ' .. t .. ', where a filter keeps a string' end
        end
        for _, counter in ipairs(counters) do
          local n = redis.call('GET', counter)
          if n and not tonumber(n) then return 'ERR ' .. counter .. ' holds no count' end
        end
      end
    LUA
    private_constant :STRINGS_LUA

    # Lua scripts, loaded on first use (EVALSHA; loaded again after a server
    # restart or SCRIPT FLUSH). ARGV[1] is k; cells follow, k per key.
    # The add scripts answer, for each key in order, 1 if it was new (some
    # cell changed; a counter's minimum was 0; not live in any generation)
    # and 0 if it was probably there: add ignores it, add? and add_new
    # return it. A key given twice in one call is new at most once, as the
    # second sees the first's cells. KEYS[2] counts the keys added (size),
    # and for BloomFilter and CountingBloomFilter KEYS[3] those that were
    # new (less those a delete took to 0), for over_capacity?.
    SCRIPTS = {
      # The cells, then the count: a server out of memory refuses the first
      # write. SETBIT answers the bit it replaced.
      bits_add: <<~LUA,
        #{STRINGS_LUA}
        local bad = not_strings(KEYS, {KEYS[2], KEYS[3]})
        if bad then return redis.error_reply(bad) end
        local k, out, fresh = tonumber(ARGV[1]), {}, 0
        for base = 2, #ARGV, k do
          local new = 0
          for i = base, base + k - 1 do
            if redis.call('SETBIT', KEYS[1], ARGV[i], 1) == 0 then new = 1 end
          end
          out[#out + 1] = new
          fresh = fresh + new
        end
        redis.call('INCRBY', KEYS[2], #out)
        if fresh > 0 then redis.call('INCRBY', KEYS[3], fresh) end
        return out
      LUA
      bits_lookup: <<~LUA,
        local k, out = tonumber(ARGV[1]), {}
        for base = 2, #ARGV, k do
          local found = 1
          for i = base, base + k - 1 do
            if redis.call('GETBIT', KEYS[1], ARGV[i]) == 0 then found = 0; break end
          end
          out[#out + 1] = found
        end
        return out
      LUA
      # ARGV[2]: the cell type (u4); saturating, as the local counters. The
      # key was new when one of its cells was 0: an increment that answers
      # 1 (a cell probed twice answers its first increment's 1 first). A
      # cell of one bit saturates at 1: u1 sets it, and SET answers the old
      # value.
      counting_add: <<~LUA,
        #{STRINGS_LUA}
        local bad = not_strings(KEYS, {KEYS[2], KEYS[3]})
        if bad then return redis.error_reply(bad) end
        local k, t, out, fresh = tonumber(ARGV[1]), ARGV[2], {}, 0
        for base = 3, #ARGV, k do
          local new = 0
          for i = base, base + k - 1 do
            local cell = '#' .. ARGV[i]
            if t == 'u1' then
              if redis.call('BITFIELD', KEYS[1], 'SET', t, cell, 1)[1] == 0 then new = 1 end
            elseif redis.call('BITFIELD', KEYS[1], 'OVERFLOW', 'SAT', 'INCRBY', t, cell, 1)[1] == 1 then
              new = 1
            end
          end
          out[#out + 1] = new
          fresh = fresh + new
        end
        redis.call('INCRBY', KEYS[2], #out)
        if fresh > 0 then redis.call('INCRBY', KEYS[3], fresh) end
        return out
      LUA
      counting_count: <<~LUA,
        local k, t, out = tonumber(ARGV[1]), ARGV[2], {}
        for base = 3, #ARGV, k do
          local min
          for i = base, base + k - 1 do
            local v = redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. ARGV[i])[1]
            if min == nil or v < min then min = v end
            if min == 0 then break end
          end
          out[#out + 1] = min
        end
        return out
      LUA
      # ARGV[3]: the cell maximum. A key counted (minimum above 0) loses one
      # from each cell that is neither 0 nor saturated, as locally; when
      # that takes its count (the least of its cells after) to 0, it is no
      # longer one of the keys new to the filter. A cell probed twice is
      # read again after its first decrement, so the least of the values
      # after is the count after.
      counting_delete: <<~LUA,
        #{STRINGS_LUA}
        local bad = not_strings(KEYS, {KEYS[2], KEYS[3]})
        if bad then return redis.error_reply(bad) end
        local k, t, max, out = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), {}
        for base = 4, #ARGV, k do
          local counted = 1
          for i = base, base + k - 1 do
            if redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. ARGV[i])[1] == 0 then counted = 0; break end
          end
          if counted == 1 then
            local least
            for i = base, base + k - 1 do
              local v = redis.call('BITFIELD_RO', KEYS[1], 'GET', t, '#' .. ARGV[i])[1]
              if v ~= 0 and v ~= max then
                redis.call('BITFIELD', KEYS[1], 'INCRBY', t, '#' .. ARGV[i], -1)
                v = v - 1
              end
              if least == nil or v < least then least = v end
            end
            if tonumber(redis.call('GET', KEYS[2]) or '0') > 0 then redis.call('DECR', KEYS[2]) end
            if least == 0 and tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
          end
          out[#out + 1] = counted
        end
        return out
      LUA
      # The clock is the server's: generation G covers [G, G + 1) periods of
      # ARGV[2] ms. A key lives in the bitmap of the generation it was added
      # in and is found while that is one of the last three (at least ttl,
      # two periods; at most 1.5 ttl). A bitmap expires when the third
      # period after its own begins, when no lookup reads it any more, so no
      # stale cell comes back and nothing needs sweeping.
      #
      # A key was live when each of its cells is set in one of those three
      # bitmaps: SETBIT on the current one answers the cell there; the older
      # two are read only for a cell it did not have, and only until one
      # cell is found in none of them.
      continuous_add: <<~LUA,
        #{GENERATION_LUA}
        #{STRINGS_LUA}
        local period = tonumber(ARGV[2])
        local gen = generation(period)
        local key, older, last = generation_key(gen), generation_key(gen - 1), generation_key(gen - 2)
        local bad = not_strings({key, older, last, KEYS[2]}, {KEYS[2]})
        if bad then return redis.error_reply(bad) end
        local k, out = tonumber(ARGV[1]), {}
        for base = 3, #ARGV, k do
          local live = 1
          for i = base, base + k - 1 do
            if redis.call('SETBIT', key, ARGV[i], 1) == 0 and live == 1
               and redis.call('GETBIT', older, ARGV[i]) == 0 and redis.call('GETBIT', last, ARGV[i]) == 0 then
              live = 0
            end
          end
          out[#out + 1] = 1 - live
        end
        redis.call('PEXPIREAT', key, (gen + 3) * period)
        redis.call('INCRBY', KEYS[2], #out)
        return out
      LUA
      continuous_lookup: <<~LUA,
        #{GENERATION_LUA}
        local k, out = tonumber(ARGV[1]), {}
        local gen = generation(tonumber(ARGV[2]))
        local live = {}
        for age = 0, 2 do live[#live + 1] = generation_key(gen - age) end
        for base = 3, #ARGV, k do
          local found = 1
          for i = base, base + k - 1 do
            local any = 0
            for _, key in ipairs(live) do
              if redis.call('GETBIT', key, ARGV[i]) == 1 then any = 1; break end
            end
            if any == 0 then found = 0; break end
          end
          out[#out + 1] = found
        end
        return out
      LUA
      # The bits set in any live generation (KEYS[2]: a scratch key of the
      # shard's, written and deleted within the call), for the estimate of
      # the live keys.
      continuous_live_bits: <<~LUA,
        #{GENERATION_LUA}
        local gen = generation(tonumber(ARGV[1]))
        redis.call('BITOP', 'OR', KEYS[2], generation_key(gen), generation_key(gen - 1), generation_key(gen - 2))
        local set = redis.call('BITCOUNT', KEYS[2])
        redis.call('DEL', KEYS[2])
        return set
      LUA
      continuous_clear: <<~LUA,
        #{GENERATION_LUA}
        local gen = generation(tonumber(ARGV[1]))
        for g = gen - 4, gen + 1 do redis.call('DEL', generation_key(g)) end
        return redis.call('DEL', KEYS[2])
      LUA
      # The clock of the node holding KEYS[1].
      time: "return redis.call('TIME')",
      # KEYS[1] renamed to KEYS[2], to expire at ARGV[1] (ms): both deleted
      # if that time has passed (PEXPIREAT would delete KEYS[1] and leave
      # KEYS[2] as it was).
      install_expiring: <<~LUA,
        local now = redis.call('TIME')
        if tonumber(ARGV[1]) <= tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) then
          return redis.call('DEL', KEYS[1], KEYS[2])
        end
        redis.call('PEXPIREAT', KEYS[1], ARGV[1])
        redis.call('RENAME', KEYS[1], KEYS[2])
        return 1
      LUA
      # Creates the meta hash, or returns the one there.
      meta: <<~LUA
        if redis.call('EXISTS', KEYS[1]) == 0 then
          redis.call('HSET', KEYS[1], unpack(ARGV))
          return {}
        end
        return redis.call('HGETALL', KEYS[1])
      LUA
    }.transform_values(&:freeze).freeze
    SHAS = SCRIPTS.transform_values { |source| Digest::SHA1.hexdigest(source) }.freeze
    private_constant :SCRIPTS, :SHAS

    # What the three classes share: naming, parameters, scripts, batches.
    class Filter
      # Parameters stored in the meta hash, in this order.
      META = %w[kind m k seed hash shards width period_ms].freeze
      # Stored beside them when the filter was created from capacity: and
      # error_rate: (earlier bloomc versions did not store them).
      LIMITS = %w[capacity error_rate].freeze
      private_constant :META, :LIMITS

      # @return [Redis, Redis::Cluster] the client
      attr_reader :redis
      # @return [String] the filter's name
      attr_reader :name
      # @return [Integer] Redis keys the cells are spread over
      attr_reader :shards

      # @return [Integer] cells over all shards (each shard has m / shards,
      #   rounded up)
      attr_reader :m

      # @return [Integer] cells per key
      def k = @layout.k

      # @return [Integer, Float, nil] the capacity: the filter was created
      #   with; nil for one created from m: and k:, or by an earlier bloomc
      attr_reader :capacity

      # @return [Float, nil] the error_rate: the filter was created with;
      #   nil as capacity
      attr_reader :error_rate

      # Whether more keys new to the filter have been added than its
      # capacity, so that lookups now answer falsely more often than its
      # error_rate; false when capacity is nil. The add scripts count the
      # keys that were new (those add? calls new) exactly, beside the size;
      # a counting delete that takes a key's count to 0 uncounts it. A key
      # that was a false positive when added is not counted, and writers of
      # earlier bloomc versions count nothing; from_local starts the count
      # at an estimate. (ContinuousBloomFilter: an estimate of the live keys.)
      # @return [Boolean]
      def over_capacity?
        return false unless capacity

        counter_sum("distinct") > capacity
      end

      # Adds +key+ (a String, Symbol or Integer).
      # @return [self] so that adds chain: filter << a << b
      def add(key)
        writable!
        shard, cells = @layout.locate(key)
        script(add_script, add_keys(shard), [k, *add_argv, *cells], once: true)
        self
      end
      alias << add

      # Whether +key+ was added (false positives at the filter's rate).
      # @return [Boolean]
      def include?(key)
        shard, cells = @layout.locate(key)
        present?(script(lookup_script, lookup_keys(shard), [k, *lookup_argv, *cells]).first)
      end
      alias [] include?

      # Adds +key+, as add, and says whether it was new, as Set#add? does:
      # for a BloomFilter, whether a cell changed; for a CountingBloomFilter,
      # whether the key's count was 0; for a ContinuousBloomFilter, whether
      # it was not live (the add refreshes a live key either way). One round
      # trip, one script, one pass over the cells.
      # @return [self, nil] self when the key was new, nil when it was
      #   probably present (false positives at the filter's rate)
      def add?(key)
        writable!
        shard, cells = @layout.locate(key)
        script(add_script, add_keys(shard), [k, *add_argv, *cells], once: true).first == 1 ? self : nil
      end

      # Adds every key of +keys+ (any Enumerable), pipelined.
      # @return [self]
      def add_all(keys)
        writable!
        each_call(keys, add_script, method(:add_keys), add_argv, once: true) { nil }
        self
      end

      # Adds every key of +keys+ (any Enumerable), pipelined as add_all, and
      # returns those that were new, as add? says: the same objects, in
      # their order. A key given more than once is new at most once, at its
      # first occurrence.
      # @return [Array<String, Symbol, Integer>]
      def add_new(keys)
        writable!
        new = []
        given = each_call(keys, add_script, method(:add_keys), add_argv, once: true, keep: true) do |indexes, result|
          indexes.each_with_index { |at, i| new << at if result[i] == 1 }
        end
        new.sort!.map! { |at| given[at] }
      end

      # @return [Array<Boolean>] include? of each key, in order
      def include_all(keys)
        found = []
        each_call(keys, lookup_script, method(:lookup_keys), lookup_argv) do |indexes, result|
          indexes.each_with_index { |at, i| found[at] = present?(result[i]) }
        end
        found
      end

      # @return [Integer] how many of +keys+ are included
      def count_included(keys) = include_all(keys).count(true)

      # @return [Boolean] whether every key of +keys+ is included
      def all_include?(keys) = include_all(keys).all?

      # @return [Boolean] whether any key of +keys+ is included
      def any_include?(keys) = include_all(keys).any?

      # @return [Integer] keys added (less deleted, for a counting filter)
      def size = counter_sum("count")

      # Removes every cell and the counts; the parameters stay.
      # @return [self]
      def clear
        writable!
        write_all(Array.new(shards) { |i| clear_command(i) })
        self
      end

      # Removes the filter from Redis, parameters included.
      # @return [nil]
      def destroy
        writable!
        clear
        write("DEL", meta_key)
        nil
      end

      def inspect = "#<#{self.class} #{name.inspect} m=#{m} k=#{k} shards=#{shards}#{inspect_extra}>"

      # @return [String] to_local's dump (Bloomc.load reads it; unsharded only)
      def dump(compress: false) = to_local.dump(compress: compress)

      # A filter opened from +shape+, which may record limits (from_local).
      def self.opened(redis, name, shards: nil, **shape) = allocate.tap { |filter| filter.send(:open, redis, name, shape, shards) }

      # [capacity, error_rate] of a local filter that has them (nil when it
      # has none: built from m and k, or by a bloomc without them).
      def self.limits_of(filter)
        limits = %i[capacity error_rate].map { |reader| filter.public_send(reader) if filter.respond_to?(reader) }
        limits.all? ? limits : nil
      end

      # The keys new to a local filter: the exact count a sized local filter
      # keeps (Sizing), otherwise as far as its fill tells: the keys that fill
      # implies, at most the keys it counted.
      def self.distinct_of(filter)
        return filter.send(:distinct_count) if filter.capacity

        [filter.size, filter.estimated_count].min.round
      end

      private_class_method :opened, :limits_of, :distinct_of

      private

      # Gives a local copy the limits this filter has, and its count of keys
      # new to it where the local kind keeps one.
      def carry_limits_to(local)
        return local unless capacity

        local.send(:remember_sizing, capacity, error_rate)
        local.send(:distinct_count=, counter_sum("distinct")) if local.respond_to?(:distinct=, true)
        local
      end

      # A frozen filter object refuses writes, as a local filter does (the
      # filter in Redis stays writable through other objects).
      def writable!
        raise FrozenError.new("can't modify frozen #{self.class}: #{inspect}", receiver: self) if frozen?
      end

      # to_local needs the local filter's layout: one shard.
      def unsharded!
        raise ArgumentError, "a sharded filter has no local equivalent" unless shards == 1
      end

      # Resolves the shape (or reads it from Redis when none is given),
      # checks it against the stored one and builds the layout. shape[:limits]
      # ([capacity, error_rate]) records limits beside an m and k given.
      def open(redis, name, shape, shards)
        raise TypeError, "redis must be a client of the redis gem (Redis or Redis::Cluster), not #{redis.class}" unless redis.is_a?(::Redis)
        unless name.is_a?(String) && !name.empty? && !name.match?(/[{}]/)
          raise ArgumentError, "name must be a non-empty String without braces, not #{name.inspect}"
        end

        @redis = redis
        @name = name.dup.freeze
        asked = shape.compact.empty? && shards.nil? ? nil : meta_for(shape, shards || 1)
        stored = stored_meta(asked)
        raise ArgumentError, "no filter named #{name.inspect} in Redis: give its shape to create it" unless stored

        unless stored["kind"] == kind
          raise ArgumentError, "the filter #{name.inspect} in Redis is a #{stored['kind']}, not a #{kind}"
        end
        check_asked(asked, stored, shape) if asked
        adopt(stored)
      end

      # The stored parameters must be those asked for. An m and k from
      # capacity: and error_rate: may be those Bloomc.sizing_arguments picks
      # or those BloomHelper.find_m_k does, as bloomc sized filters before
      # (a filter an earlier version created has them and no capacity or
      # error_rate in its meta); capacity and error_rate are compared when
      # both sides have them (a filter opened by m: and k: keeps its own).
      def check_asked(asked, stored, shape)
        if shape[:capacity] && sizings(shape).include?(stored.values_at("m", "k").map { |v| Integer(v, 10, exception: false) })
          asked = asked.merge("m" => stored["m"], "k" => stored["k"])
        end
        diff = META.find { |field| asked[field] != stored[field] } ||
               LIMITS.find { |field| asked.key?(field) && stored.key?(field) && asked[field] != stored[field] }
        return unless diff

        raise ArgumentError, "the filter #{name.inspect} in Redis has a different #{diff} " \
                             "(#{stored[diff]}, asked for #{asked[diff]})"
      end

      # The [m, k] that capacity: and error_rate: may have given.
      def sizings(shape)
        capacity, error_rate = shape.values_at(:capacity, :error_rate)
        [Bloomc.sizing_arguments(nil, nil, capacity, error_rate), BloomHelper.find_m_k(capacity, error_rate)]
      end

      # The limits to store: capacity: and error_rate: as given (a whole
      # capacity as an Integer), or shape[:limits].
      def limits_meta(shape)
        capacity, error_rate = shape[:capacity] ? shape.values_at(:capacity, :error_rate) : shape[:limits]
        return {} unless capacity && error_rate

        capacity = capacity.is_a?(Integer) || (capacity.finite? && capacity == capacity.round) ? capacity.round : Float(capacity)
        { "capacity" => capacity.to_s, "error_rate" => Float(error_rate).to_s }
      end

      # The sum of a counter over the shards.
      def counter_sum(part)
        counts = guarded { redis.pipelined { |pipe| Array.new(shards) { |i| pipe.get(shard_key(i, part)) } } }
        counts.sum(&:to_i)
      end

      def adopt(meta)
        @m, k, seed, hash, @shards, width, period = META.drop(1).map { |field| Integer(meta[field], 10) }
        raise ArgumentError, "shards #{@shards}" unless @shards.between?(1, 65_536)
        raise ArgumentError, "width #{width}" unless width.between?(1, 32)
        raise ArgumentError, "period #{period}" if period.negative?

        checked_m(@m, @shards, width)
        # Bit cells (bloom, continuous) at bit offsets; counters at indexes.
        @layout = RedisLayout.new(-(-@m / @shards), k, seed, hash, @shards, kind != "counting")
        adopt_limits(*meta.values_at(*LIMITS))
        adopt_extra(meta)
      rescue ArgumentError, TypeError, RangeError => e
        raise FormatError, "the filter #{name.inspect} in Redis has unusable parameters (#{e.message})"
      end

      def adopt_extra(_meta) = nil

      def adopt_limits(capacity, error_rate)
        if capacity
          @capacity = capacity.match?(/\A\d+\z/) ? Integer(capacity, 10) : Float(capacity, exception: false)
          raise ArgumentError, "capacity #{capacity}" unless @capacity&.positive? && @capacity.finite?
        end
        return unless error_rate

        @error_rate = Float(error_rate, exception: false)
        raise ArgumentError, "error_rate #{error_rate}" unless @error_rate&.positive? && @error_rate < 1
      end

      # The stored parameters (Strings, as Redis returns them), created from
      # +asked+ when there are none; nil when there are none and no +asked+.
      def stored_meta(asked)
        return guarded { redis.hgetall(meta_key) }.then { |h| h.empty? ? nil : h } unless asked

        pairs = script(:meta, [meta_key], asked.flat_map { |field, value| [field, value] }, once: true)
        pairs.empty? ? asked : pairs.each_slice(2).to_h
      rescue CommandError => e
        raise unless e.message.include?("WRONGTYPE")

        raise FormatError, "#{meta_key} holds no filter's parameters (#{e.message})"
      end

      # m, once its shards are known to fit Redis' 512 MB strings.
      def checked_m(m, shards, bits_per_cell)
        raise ArgumentError, "shards must be an Integer in 1..65536" unless shards.is_a?(Integer) && shards.between?(1, 65_536)

        per_shard = -(-m / shards)
        if per_shard * bits_per_cell > 2**32
          raise ArgumentError, "#{per_shard} cells of #{bits_per_cell} bits exceed a Redis string (512 MB): use more shards"
        end

        m
      end

      def meta_key = "bloomc:{#{name}}:meta"

      def shard_key(shard, part) = "bloomc:{#{name}:#{shard}}:#{part}"

      def add_keys(shard) = [shard_key(shard, "cells"), shard_key(shard, "count"), shard_key(shard, "distinct")]

      def lookup_keys(shard) = [shard_key(shard, "cells")]

      def add_argv = []

      def lookup_argv = []

      def inspect_extra = ""

      # A lookup script's answer for one key.
      def present?(answer) = answer == 1

      def clear_command(shard) = ["DEL", shard_key(shard, "cells"), shard_key(shard, "count"), shard_key(shard, "distinct")]

      # Groups keys by shard, CELLS_PER_CALL to a script call, all calls in
      # one pipeline; yields each call's key indexes and result. Every key
      # is located before anything is sent, so a bad one writes nothing.
      # With +keep+, returns the keys in their order (an Enumerable may be
      # gone through only once). +once+: the calls write (see send_once).
      def each_call(keys, name, keys_of, argv, once: false, keep: false, &block)
        raise TypeError, "keys must be Enumerable, not #{keys.class}" unless keys.is_a?(Enumerable)

        groups = Hash.new { |h, shard| h[shard] = [[], []] }
        given = [] if keep
        keys.each_with_index do |key, at|
          shard, cells = @layout.locate(key)
          given << key if keep
          group = groups[shard]
          group[0] << at
          group[1].concat(cells)
        end
        per_call = [CELLS_PER_CALL / k, 1].max
        calls = groups.flat_map do |shard, (indexes, cells)|
          indexes.each_slice(per_call).with_index.map do |slice, i|
            [slice, keys_of.call(shard), [k, *argv, *cells[i * per_call * k, slice.size * k]]]
          end
        end
        pipelined_scripts(name, calls, once: once).each_with_index { |result, i| block.call(calls[i][0], result) }
        given
      end

      CHUNK = 1 << 20 # bytes per SETRANGE or GETRANGE: no command holds Redis long

      # An unsharded filter's cells string and counts, replaced by +bytes+
      # (the cells as Redis keeps them), +count+ (the size) and +distinct+
      # (the keys new to it).
      def write_cells(bytes, count, distinct)
        replace_string(shard_key(0, "cells"), bytes)
        write_all([["SET", shard_key(0, "count"), count], ["SET", shard_key(0, "distinct"), distinct]])
      end

      # An unsharded filter's cells string, +width+ bits a cell.
      def read_cells(width) = read_string(shard_key(0, "cells"), ((m * width) + 7) / 8)

      # Replaces key's string by +bytes+: written in chunks to a key beside
      # it (the same hash slot), then renamed, so that a reader sees the old
      # cells or the new, never a part.
      # +expire_at+ (ms on the server's clock): when the key expires; if that
      # has passed by the end of the writing, the key is deleted instead.
      def replace_string(key, bytes, expire_at: nil)
        staging = "#{key}:loading"
        write("DEL", staging)
        (0...bytes.bytesize).step(CHUNK) { |at| write("SETRANGE", staging, at, bytes.byteslice(at, CHUNK)) }
        return write("RENAME", staging, key) unless expire_at

        script(:install_expiring, [staging, key], [expire_at], once: true)
      end

      # The first +length+ bytes of key's string, each chunk padded to its
      # length (a string ends at its last written byte, and may grow while
      # it is read).
      def read_string(key, length)
        guarded do
          (0...length).step(CHUNK).map do |at|
            size = [CHUNK, length - at].min
            (redis.getrange(key, at, at + size - 1) || "").b.ljust(size, "\0")
          end.join
        end
      end

      # One script call (EVALSHA, loading the script when the server lacks
      # it); a write (+once+) is sent at most once (see send_once).
      def script(name, keys, argv, once: false)
        if once
          command = ["EVALSHA", SHAS.fetch(name), keys.size, *keys, *argv]
          result = send_once([command], exception: false).first
          if no_script?(result) # it did not run
            guarded { redis.script(:load, SCRIPTS.fetch(name)) }
            result = send_once([command], exception: false).first
          end
          return result.is_a?(StandardError) ? guarded { raise result } : result
        end

        guarded do
          redis.evalsha(SHAS.fetch(name), keys: keys, argv: argv)
        rescue ::Redis::CommandError, ::RedisClient::CommandError => e
          raise unless no_script?(e)

          redis.script(:load, SCRIPTS.fetch(name))
          redis.evalsha(SHAS.fetch(name), keys: keys, argv: argv)
        end
      end

      # Script calls in one pipeline; the calls a server refused for lack of
      # the script (they did not run) run again once it is loaded. Writes
      # (+once+) are sent at most once each.
      def pipelined_scripts(name, calls, once: false)
        sha = SHAS.fetch(name)
        run = lambda do |list|
          if once
            send_once(list.map { |_, keys, argv| ["EVALSHA", sha, keys.size, *keys, *argv] }, exception: false)
          else
            guarded { redis.pipelined(exception: false) { |pipe| list.each { |_, keys, argv| pipe.evalsha(sha, keys: keys, argv: argv) } } }
          end
        end
        results = run.call(calls)
        missing = results.each_index.select { |i| no_script?(results[i]) }
        unless missing.empty?
          guarded { redis.script(:load, SCRIPTS.fetch(name)) }
          again = run.call(missing.map { |i| calls[i] })
          missing.each_with_index { |i, j| results[i] = again[j] }
        end
        guarded { results.each { |result| raise result if result.is_a?(StandardError) } }
        results
      end

      # A command that changes the filter, sent at most once; its answer.
      def write(*command) = send_once([command]).first

      # Commands that change the filter, in one pipeline, each sent at most
      # once.
      def write_all(commands) = send_once(commands)

      # Sends +commands+ (Arrays) in one pipeline that the client sends at
      # most once: after a timeout or a broken connection the caller gets
      # ConnectionError (the write may or may not have run), and the command
      # is never sent again. redis-rb 5 (through redis-client) reconnects and
      # sends a command again after a read timeout, by default once
      # (reconnect_attempts); a command that did reach a server that was
      # only slow then runs twice: a counting delete took a count of 2 to 0,
      # adds inflated counts and told add? that a new key was present. A
      # script of ours is not idempotent, and a token per call that a script
      # records and checks would cost a key of memory per write for as long
      # as a retry might come (which the client's settings decide, not us),
      # so writes go as redis-client's call_once, its own mark for a command
      # not to retry, in a pipeline: a Redis::Cluster's router sends a
      # single command again after a timeout even as call_once, but its
      # pipelines, like redis-client's, do not retry a call_once. The
      # client's own lock (redis-rb's Redis#synchronize) is held, as for
      # every command redis-rb sends. Reads are sent as usual and may be
      # retried.
      def send_once(commands, exception: true)
        guarded do
          redis.send(:synchronize) do |client|
            client.pipelined(exception: exception) { |pipe| commands.each { |command| pipe.call_once_v(command) } }
          end
        end
      end

      # The server lacks the script (a restart, SCRIPT FLUSH, a new node).
      def no_script?(error) = error.is_a?(StandardError) && error.message.start_with?("NOSCRIPT")

      def guarded
        yield
      rescue ::Redis::BaseError, ::RedisClient::Error => e
        raise ConnectionError, "Redis unreachable for filter #{name.inspect}: #{e.message} (#{e.class})" if Redis.connection_error?(e)

        raise CommandError, "Redis refused an operation on filter #{name.inspect}: #{e.message} (#{e.class})"
      end
    end
    private_constant :Filter

    # A Bloom filter of m bits in Redis, answering exactly as
    # Bloomc::BloomFilter.new(m, k, seed:, hash:) would.
    class BloomFilter < Filter
      # @overload initialize(redis, name, m:, k:, seed: 0, hash: :murmur3, shards: 1)
      # @overload initialize(redis, name, capacity:, error_rate:, seed: 0, hash: :murmur3, shards: 1)
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

        local = Bloomc::BloomFilter.new(@layout.m, k, seed: @seed, hash: HASH_FUNCTIONS.key(@hash))
        fields, body = local.send(:export_core)
        cells = read_cells(1)
        fields[4] = size
        local.send(:import_core, fields, cells.ljust(body.bytesize, "\0"))
        carry_limits_to(local)
      end

      private

      def kind = "bloom"

      def add_script = :bits_add

      def lookup_script = :bits_lookup

      def meta_for(shape, shards)
        m, k = Bloomc.sizing_arguments(shape[:m], shape[:k], shape[:capacity], shape[:error_rate])
        seed = shape[:seed] || 0
        hash = Bloomc.hash_kind(shape[:hash] || :murmur3, seed)
        RedisLayout.new(m, k, seed, hash, 1, true) # checks m, k and seed
        { "kind" => kind, "m" => checked_m(m, shards, 1).to_s, "k" => k.to_s, "seed" => seed.to_s,
          "hash" => hash.to_s, "shards" => shards.to_s, "width" => "1", "period_ms" => "0", **limits_meta(shape) }
      end

      def adopt_extra(meta)
        @seed = Integer(meta["seed"])
        @hash = Integer(meta["hash"])
      end
    end

    # A counting filter in Redis: cells of +width+ bits (BITFIELD), adds
    # that saturate, deletes and counts, as Bloomc::CountingBloomFilter.
    class CountingBloomFilter < Filter
      # @overload initialize(redis, name, m:, k:, width: 4, seed: 0, shards: 1)
      # @overload initialize(redis, name, capacity:, error_rate:, width: 4, seed: 0, shards: 1)
      # @overload initialize(redis, name)
      def initialize(redis, name, m: nil, k: nil, capacity: nil, error_rate: nil, width: nil, seed: nil, shards: nil)
        super()
        open(redis, name, { m: m, k: k, capacity: capacity, error_rate: error_rate, width: width, seed: seed }, shards)
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

        copy = opened(redis, name, m: filter.m, k: filter.k, width: filter.width, seed: filter.seed, limits: limits_of(filter))
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

        local = Bloomc::CountingBloomFilter.new(@layout.m, k, width: width, seed: @seed)
        fields, body = local.send(:export_core)
        cells, saturated = RedisLayout.cells_from_redis(read_cells(width), @layout.m, width)
        fields[4] = size
        fields[5] = saturated
        local.send(:import_core, fields, cells.ljust(body.bytesize, "\0"))
        carry_limits_to(local)
      end

      private

      def kind = "counting"

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
        RedisLayout.new(m, k, seed, 0, 1, false) # checks m, k and seed
        { "kind" => kind, "m" => checked_m(m, shards, width).to_s, "k" => k.to_s, "seed" => seed.to_s,
          "hash" => "0", "shards" => shards.to_s, "width" => width.to_s, "period_ms" => "0", **limits_meta(shape) }
      end

      def adopt_extra(meta)
        @width = Integer(meta["width"])
        @seed = Integer(meta["seed"])
      end

      # The lookup script answers counts: a key is included above 0.
      def present?(answer) = answer.positive?
    end

    # A filter whose keys expire, on the Redis server's clock: every client
    # agrees on the time without a timer of its own. A key is found for at
    # least +ttl+ seconds after its add and not after 1.5 * ttl, as with
    # Bloomc::ContinuousBloomFilter (a key copied by from_local: up to
    # 2.5 * ttl); see SCRIPTS for how.
    class ContinuousBloomFilter < Filter
      # @overload initialize(redis, name, m:, k:, ttl:, seed: 0, hash: :murmur3, shards: 1)
      # @overload initialize(redis, name, capacity:, error_rate:, ttl:, seed: 0, hash: :murmur3, shards: 1)
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

        calls = Array.new(shards) { |i| [nil, [shard_key(i, "gen"), shard_key(i, "live")], [@period_ms]] }
        pipelined_scripts(:continuous_live_bits, calls).sum { |set| Stats.estimate(set, @layout.m, k) } > capacity
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

        local = Bloomc::ContinuousBloomFilter.new(m, k, ttl, seed: @seed, hash: HASH_FUNCTIONS.key(@hash))
        fields, body = local.send(:export_core)
        gen = server_generation
        offset = guarded { redis.get(shard_key(0, "slot")).to_i }
        ages = (0..2).map { |age| read_string(generation_key(gen - age), (m + 7) / 8) }
        fields[4] = ((gen + offset) % 15) + 1
        cells = RedisLayout.continuous_from_redis(*ages, m, fields[4])
        local.send(:import_core, fields, cells.ljust(body.bytesize, "\0"), false)
        carry_limits_to(local)
      end

      private

      def kind = "continuous"

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
        hash = Bloomc.hash_kind(shape[:hash] || :murmur3, seed)
        RedisLayout.new(m, k, seed, hash, 1, true)
        { "kind" => kind, "m" => checked_m(m, shards, 1).to_s, "k" => k.to_s, "seed" => seed.to_s,
          "hash" => hash.to_s, "shards" => shards.to_s, "width" => "1", "period_ms" => period_ms.to_s, **limits_meta(shape) }
      end

      def adopt_extra(meta)
        @period_ms = Integer(meta["period_ms"])
        raise ArgumentError, "period_ms #{@period_ms}" unless @period_ms.positive?

        @seed = Integer(meta["seed"])
        @hash = Integer(meta["hash"])
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
