# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis"): the base class of its filters.

module Bloomc
  module Redis
    # What the Redis classes share: naming, parameters, scripts, batches.
    # With the local filters (Bloomc::Filter) they share #inspect's frame
    # (Bloomc::Inspect) and #hash_function (Bloomc::HashFunction), whose
    # meaning is the same on both sides.
    class Filter
      include Inspect
      include HashFunction

      # Parameters stored in the meta hash, in this order.
      META = %w[kind m k seed hash shards width period_ms].freeze
      # Stored beside them when the filter was created from capacity: and
      # error_rate: (earlier bloomc versions did not store them).
      LIMITS = %w[capacity error_rate].freeze
      private_constant :META, :LIMITS

      # @return [Object] the client the filter was given: a Redis,
      #   Redis::Cluster, RedisClient, RedisClient::Cluster, or a pool of one
      #   of those (see Bloomc::Redis)
      def redis = connection.given
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
      include Membership # member? and ===

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
        connection = Connection.new(redis) # TypeError for anything but a client or a pool of clients
        unless name.is_a?(String) && !name.empty? && !name.match?(/[{}]/)
          raise ArgumentError, "name must be a non-empty String without braces, not #{name.inspect}"
        end

        @connection = connection
        @name = name.dup.freeze
        asked = shape.compact.empty? && shards.nil? ? nil : meta_for(shape, shards || 1)
        stored = stored_meta(asked)
        raise ArgumentError, "no filter named #{name.inspect} in Redis: give its shape to create it" unless stored

        unless stored["kind"] == kind
          raise ArgumentError, "the filter #{name.inspect} in Redis is a #{stored['kind']}, not a #{kind}"
        end

        # Opened without hash:, a filter made before :murmur3_mixed keeps its
        # :murmur3 (and the layer shapes that go with it).
        asked = meta_for(shape.merge(hash: :murmur3), shards || 1) if asked && shape.key?(:hash) && shape[:hash].nil? && stored["hash"] == "0"
        check_asked(asked, stored, shape) if asked
        adopt(stored)
      end

      # The stored parameters must be those asked for. An m and k from
      # capacity: and error_rate: may be those Bloomc.sizing_arguments picks,
      # or those bloomc picked before: by the formula, or by
      # BloomHelper.find_m_k (a filter an earlier version created has them
      # and no capacity or error_rate in its meta); capacity and error_rate
      # are compared when both sides have them (a filter opened by m: and k:
      # keeps its own).
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
        [Bloomc.sizing_arguments(nil, nil, capacity, error_rate), BloomHelper.send(:formula_m_k, capacity, error_rate),
         BloomHelper.find_m_k(capacity, error_rate)]
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
        counts = read_all(Array.new(shards) { |i| ["GET", shard_key(i, part)] })
        counts.each_with_index.sum { |count, i| stored_count(count, shard_key(i, part)) }
      end

      # A counter as Redis returned it (nil: absent, 0), checked: a whole
      # number from 0 (up to +max+), as the scripts write it. Anything else
      # was not written by bloomc (a SET by hand, another program's key):
      # FormatError, rather than a count of 0 ("many".to_i) or a negative
      # one that would hide the keys added.
      def stored_count(text, key, max: nil)
        return 0 if text.nil?

        count = Integer(text, 10) if text.is_a?(String) && text.match?(/\A\d{1,20}\z/)
        return count if count && (max.nil? || count <= max)

        raise FormatError, "the filter #{name.inspect} in Redis has an unusable #{key} (#{text.inspect[0, 40]}: " \
                           "not a whole number#{max ? " in 0..#{max}" : ' from 0'})"
      end

      def adopt(meta)
        @m, k, @seed, @hash, @shards, width, period = META.drop(1).map { |field| Integer(meta[field], 10) }
        raise ArgumentError, "shards #{@shards}" unless @shards.between?(1, 65_536)
        raise ArgumentError, "width #{width}" unless width.between?(1, 32)
        raise ArgumentError, "period #{period}" if period.negative?

        checked_m(@m, @shards, width)
        @stored_meta = meta.slice(*shape_fields, *LIMITS).freeze
        # Bit cells (bloom, continuous) at bit offsets; counters at indexes.
        @layout = RedisLayout.new(-(-@m / @shards), k, @seed, @hash, @shards, kind != "counting")
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
        return read_hash(meta_key).then { |h| h.empty? ? nil : h } unless asked

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

      # What inspect shows between the class and the ">" (Bloomc::Inspect).
      def inspect_fields = "#{name.inspect} m=#{m} k=#{k} shards=#{shards}#{inspect_extra}"

      def inspect_extra = ""

      # The hash's number in HASH_FUNCTIONS, for hash_function (Bloomc::HashFunction).
      def hash_kind = @hash

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
        on_one_connection do
          write("DEL", staging)
          (0...bytes.bytesize).step(CHUNK) { |at| write("SETRANGE", staging, at, bytes.byteslice(at, CHUNK)) }
          next write("RENAME", staging, key) unless expire_at

          script(:install_expiring, [staging, key], [expire_at], once: true)
        end
      end

      # The first +length+ bytes of key's string, each chunk padded to its
      # length (a string ends at its last written byte, and may grow while
      # it is read).
      def read_string(key, length)
        guarded do
          connection.with do |client|
            (0...length).step(CHUNK).map do |at|
              size = [CHUNK, length - at].min
              (client.call_v(["GETRANGE", key, at, at + size - 1]) || "").b.ljust(size, "\0")
            end.join
          end
        end
      end

      # One script call (EVALSHA, loading the script when the server lacks
      # it, on the same connection); a write (+once+) is sent at most once
      # (see send_once).
      def script(name, keys, argv, once: false) = pipelined_scripts(name, [[nil, keys, argv]], once: once).first

      # Script calls in one pipeline; the calls a server refused for lack of
      # the script (they did not run) run again once it is loaded, all on
      # one connection. Writes (+once+) are sent at most once each.
      def pipelined_scripts(name, calls, once: false)
        sha = SHAS.fetch(name)
        guarded do
          connection.with do |client|
            run = lambda do |list|
              commands = list.map { |_, keys, argv| ["EVALSHA", sha, keys.size, *keys, *argv] }
              once ? pipeline_once(client, commands, exception: false) : pipeline(client, commands, exception: false)
            end
            results = run.call(calls)
            missing = results.each_index.select { |i| no_script?(results[i]) }
            unless missing.empty?
              client.call_v(["SCRIPT", "LOAD", SCRIPTS.fetch(name)])
              again = run.call(missing.map { |i| calls[i] })
              missing.each_with_index { |i, j| results[i] = again[j] }
            end
            results.each { |result| raise result if result.is_a?(StandardError) }
          end
        end
      end

      # A read (the client may send it again after a timeout); its answer.
      def read(*command) = guarded { connection.with { |client| client.call_v(command) } }

      # Reads in one pipeline; their answers.
      def read_all(commands) = guarded { connection.with { |client| pipeline(client, commands) } }

      # A hash's fields and values: HGETALL answers a Hash under RESP3 (a
      # RedisClient's default), a flat Array under RESP2 (redis-rb's).
      def read_hash(key) = read("HGETALL", key).then { |answer| answer.is_a?(Hash) ? answer : answer.each_slice(2).to_h }

      # A command that changes the filter, sent at most once; its answer.
      def write(*command) = send_once([command]).first

      # Commands that change the filter, in one pipeline, each sent at most
      # once.
      def write_all(commands) = send_once(commands)

      # Runs the block's commands on one connection (one checkout of a pool).
      def on_one_connection(&block) = guarded { connection.with { block.call } }

      # The adapter of the client the filter was given (Connection).
      attr_reader :connection

      # Sends +commands+ (Arrays) in one pipeline that the client sends at
      # most once: after a timeout or a broken connection the caller gets
      # ConnectionError (the write may or may not have run), and the command
      # is never sent again. redis-client (under redis-rb 5 too) reconnects
      # and sends a command again after a read timeout, by default once
      # (reconnect_attempts); a command that did reach a server that was
      # only slow then runs twice: a counting delete took a count of 2 to 0,
      # adds inflated counts and told add? that a new key was present. A
      # script of ours is not idempotent, and a token per call that a script
      # records and checks would cost a key of memory per write for as long
      # as a retry might come (which the client's settings decide, not us),
      # so writes go as redis-client's call_once, its own mark for a command
      # not to retry, in a pipeline: a cluster client's router
      # (RedisClient::Cluster, which Redis::Cluster holds) sends a single
      # command again after a timeout even as call_once, but its pipelines,
      # like redis-client's, do not retry a call_once. Every client form
      # ends in one of those two (Connection); a redis-rb client's own lock
      # is held, as for every command redis-rb sends. Reads are sent as
      # usual and may be retried.
      def send_once(commands, exception: true)
        guarded { connection.with { |client| pipeline_once(client, commands, exception: exception) } }
      end

      def pipeline_once(client, commands, exception: true)
        client.pipelined(exception: exception) { |pipe| commands.each { |command| pipe.call_once_v(command) } }
      end

      def pipeline(client, commands, exception: true)
        client.pipelined(exception: exception) { |pipe| commands.each { |command| pipe.call_v(command) } }
      end

      # The server lacks the script (a restart, SCRIPT FLUSH, a new node).
      def no_script?(error) = error.is_a?(StandardError) && error.message.start_with?("NOSCRIPT")

      # Errors of the client (and of a pool: no connection free in time) as
      # ours. A script's CORRUPT reply is a value in Redis that bloomc did
      # not write (a layer count of 0): FormatError.
      def guarded
        yield
      rescue *Redis.client_errors => e
        if Redis.command_error?(e)
          corrupt = e.message[%r{\ACORRUPT (.*?)(?: \(\w+://[^()]*\))?\z}m, 1] # without the client's " (redis://HOST:PORT)"
          raise FormatError, "the filter #{name.inspect} in Redis is unusable: #{corrupt}" if corrupt
        end
        raise ConnectionError, "Redis unreachable for filter #{name.inspect}: #{e.message} (#{e.class})" if Redis.connection_error?(e)

        raise CommandError, "Redis refused an operation on filter #{name.inspect}: #{e.message} (#{e.class})"
      end
    end
    private_constant :Filter
  end
end
