# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis").

module Bloomc
  module Redis
    # A sliding window in Redis, as Bloomc::SlidingBloomFilter is in process:
    # no capacity to give; a key added is found for +ttl+ seconds and is gone
    # (but as a false positive) by ttl * (1 + 1 / generations); the
    # false-positive rate stays at most +error_rate+ at every moment.
    #
    # The clock is the server's TIME (in ms), read by every script, so every
    # client agrees on it. Time is cut into generations of ttl / generations
    # (whole ms, rounded up): the first add after the newest generation's
    # window has passed starts the next, sized (its first layer's capacity)
    # from the keys the newest took, as the local filter predicts it. A
    # generation is a chain of layers, a Bloomc::ScalableBloomFilter's of
    # growth 2, tightening 0.5 and even_layers 1 at error_rate /
    # (generations + 1); each layer is a bitmap that the server itself
    # expires (PEXPIREAT) when the generation ends, ttl + ttl / generations
    # after its start. So at most generations + 1 are alive, and nothing is
    # swept.
    #
    # Keys, all in the hash slot of "{NAME}" (the meta hash's too), so one
    # node of a Redis Cluster holds the whole filter and its clock:
    # "bloomc:{NAME}:gens", a hash of each generation's start (ms) to
    # "initial capacity,adds,count of layer 0,count of layer 1,...", which
    # the add script prunes and which expires with the newest generation;
    # "bloomc:{NAME}:gen:START:LAYER", the bitmaps.
    #
    # The client computes every position (the layers' shapes from the local
    # scalable filter of the generation's initial capacity) and sends, with
    # each key, the generations it knows of with their layers (for an add,
    # the newest one's and AHEAD more). A script that finds a live
    # generation or layer the client was not told of answers with the table
    # and writes nothing of the key; the client sends the key again with it.
    # The script that starts a generation answers so too (it is the server
    # that sizes its first layer, from its counts; the client then learns
    # the new shape). Each add is one script, which Redis runs alone:
    # writers adding at once start a generation or a layer once, and lose no
    # key.
    #
    # An add goes into the newest generation (its newest layer, a new one
    # when that is full) unless one of that generation's layers holds the
    # key; add? says whether any live generation held it. size counts the
    # adds the live generations took. Sliding filters cannot be combined,
    # and there is no to_local or from_local (Bloomc::UnsupportedError).
    class SlidingBloomFilter < Filter
      include Layered

      # Layers sent beyond those known, for an add: a batch that adds two
      # layers needs no second round trip.
      AHEAD = 2
      # Rounds of a call the table changed under: each is a generation or a
      # layer started meanwhile, so this is never reached but by a table
      # that is not bloomc's.
      ROUNDS = 200
      # Keys a round of script calls sends at most (one pipeline).
      CHUNK = 1024
      # The parameters beside those of every filter's, in the meta hash.
      PARAMETERS = %w[sliding_error_rate ttl_ms generations first_size].freeze
      private_constant :AHEAD, :ROUNDS, :CHUNK, :PARAMETERS

      undef_method :k

      # @overload initialize(redis, name, ttl:, error_rate:, generations: 4, first_size: 1024, seed: 0,
      #                      hash: :murmur3_mixed)
      #   The parameters of Bloomc::SlidingBloomFilter.new (no clock: the
      #   server's; no max_bytes).
      # @overload initialize(redis, name)
      #   Opens an existing filter with the parameters stored beside it.
      # @param ttl [Numeric] seconds, 0.01..2**32, kept in whole ms rounded up
      def initialize(redis, name, ttl: nil, error_rate: nil, generations: nil, first_size: nil, seed: nil, hash: nil)
        super()
        shape = { ttl: ttl, sliding_error_rate: error_rate, generations: generations, first_size: first_size, seed: seed, hash: hash }
        open(redis, name, shape, nil) # rubocop:disable Security/Open -- Filter#open, not Kernel#open
      end

      # @return [Float] seconds a key lives at least
      def ttl
        @ttl_ms.fdiv(1000)
      end

      # @return [Float] the most it errs at any moment
      def error_rate
        @params[:error_rate]
      end

      # @return [Integer] windows a ttl
      def generations
        @params[:generations]
      end

      # @return [Integer] keys the first generation's first layer takes
      def first_size
        @params[:first_size]
      end

      # Always nil: there is none to pass.
      # @return [nil]
      def capacity
        nil
      end

      # Always false: a generation grows when its keys outgrow it.
      # @return [false]
      def over_capacity?
        false
      end

      # The live generations, oldest first, on the server's clock (one round
      # trip): age in seconds since the generation started, its layers and
      # the keys new to them.
      # @return [Array<Hash>] [{age:, layers:, keys:}, ...]
      def windows
        now, gens = server_table
        gens.map { |start, _, _, counts| { age: (now - start) / 1000.0, layers: counts.size, keys: counts.sum } }
      end

      # @return [Integer] the bits of every live layer together
      def m
        live_layers.sum { |_, bits_m, _| bits_m }
      end

      # @return [Integer] the adds the live generations took
      def size
        server_table[1].sum { |_, _, adds, _| adds }
      end

      # Adds +key+ to the newest generation unless it holds the key; starts
      # a generation or a layer on the server when one is due.
      # @return [self]
      def add(key)
        writable!
        run_all(:sliding_add, checked([key]), once: true)
        self
      end
      alias << add

      # @return [self, nil] self when no live generation held +key+, nil when
      #   one did (false positives at the filter's rate); added either way
      # rubocop:disable-next Naming/PredicateMethod, Style/ReturnNilInPredicateMethodDefinition -- Set#add?'s answer
      def add?(key)
        writable!
        run_all(:sliding_add, checked([key]), once: true).first == 1 ? self : nil
      end

      # The share of the live layers' bits that are set (BITCOUNT each).
      # @return [Float]
      def fill_ratio
        layers = live_layers
        layers.sum { |set, _, _| set }.fdiv(layers.sum { |_, bits_m, _| bits_m })
      end

      # The keys the live layers' fill implies, each layer by its own
      # estimate (a key added in two generations counts twice).
      # @return [Float]
      def estimated_count
        live_layers.sum { |set, bits_m, k| Stats.estimate(set, bits_m, k) }
      end

      # The chance that a key never added is found now: 1 - prod(1 - fill**k)
      # over the live layers.
      # @return [Float]
      def false_positive_rate
        1 - live_layers.reduce(1.0) { |p, (set, bits_m, k)| p * (1 - (set.fdiv(bits_m)**k)) }
      end

      # @return [Boolean] whether no live layer has a bit set
      def empty?
        live_layers.all? { |set, _, _| set.zero? }
      end

      # Drops every generation; the parameters stay.
      # @return [self]
      def clear
        writable!
        script(:sliding_clear, sliding_keys, [], once: true)
        @state[:gens] = nil
        self
      end

      # @raise [Bloomc::UnsupportedError] sliding filters cannot be combined
      def merge!(_other)
        uncombinable("merge!")
      end

      # @raise [Bloomc::UnsupportedError] as merge!
      def union(_other, into:)
        uncombinable("union (into: #{into.inspect})")
      end

      # @raise [Bloomc::UnsupportedError] as merge!
      def intersection(_other, into:)
        uncombinable("intersection (into: #{into.inspect})")
      end

      # @raise [Bloomc::UnsupportedError] as merge!
      def |(_other)
        uncombinable("|")
      end

      # @raise [Bloomc::UnsupportedError] as merge!
      def &(_other)
        uncombinable("&")
      end

      # @raise [Bloomc::UnsupportedError] not for a Redis sliding filter
      def to_local
        raise(UnsupportedError, "to_local is not supported by Bloomc::Redis::SlidingBloomFilter")
      end

      private

      def add_script = :sliding_add
      def lookup_script = :sliding_lookup
      def own_parameters = PARAMETERS

      def kind = "sliding"

      def inspect_fields = "#{name.inspect} ttl=#{ttl} error_rate=#{error_rate} generations=#{generations}"

      def uncombinable(what)
        raise UnsupportedError, "#{what}: sliding filters cannot be combined: their generations start at other times"
      end

      def sliding_keys = ["bloomc:{#{name}}:gens", "bloomc:{#{name}}:gen"]

      # What every script is told: ttl and window (ms), generations, first_size.
      def params_argv = [@ttl_ms, @window_ms, generations, first_size]

      # Keys as an Array, every one hashed (TypeError before anything is sent).
      def checked(keys)
        raise TypeError, "keys must be Enumerable, not #{keys.class}" unless keys.is_a?(Enumerable)

        keys.to_a.each { |key| @layout.locate(key) }
      end

      # The local scalable filter whose layers a generation of initial
      # capacity +capacity+ has.
      def template(capacity)
        @templates[capacity] ||= Bloomc::ScalableBloomFilter.new(
          error_rate: error_rate / (generations + 1), initial_capacity: capacity, growth: 2, tightening: 0.5, even_layers: 1,
          seed: @seed, hash: hash_function
        )
      end

      # [capacity, m, k] of layer i of a generation of initial capacity
      # +capacity+, or nil past the most layers there are.
      # (Cached: the local filter sizes a layer by its exact rate, which
      # takes a while.)
      def layer_shape(capacity, i)
        (@shapes[[capacity, i]] ||= template(capacity).send(:layer_shape, i) || :none).then { |s| s == :none ? nil : s }
      end

      # A key's bit offsets in layer i of a generation of initial capacity
      # +capacity+.
      def offsets(capacity, i, key)
        (@layouts[[capacity, i]] ||= RedisLayout.new(layer_shape(capacity, i)[1], layer_shape(capacity, i)[2], @seed, @hash, 1, true))
          .locate(key)[1]
      end

      # ARGV describing the known generations for +key+: their number, then
      # per generation its start, initial capacity and layer count, then per
      # layer its k, capacity and k offsets (k 0 past the last layer there
      # is). +ahead+: layers beyond those known, for the newest.
      def described(key, ahead)
        known = @state[:gens]
        gens = known.each_with_index.flat_map do |(start, capacity, layers), g|
          count = g == known.size - 1 ? layers + ahead : layers
          [start, capacity, count, *Array.new(count) do |i|
            shape = layer_shape(capacity, i)
            shape ? [shape[2], shape[0], *offsets(capacity, i, key)] : [0, 0]
          end.flatten]
        end
        [*params_argv, known.size, *gens]
      end

      # Runs +name+ for each key, one script call a key, pipelined in rounds
      # of at most CHUNK keys; the calls that found generations or layers
      # the client did not describe (they wrote nothing of their key) run
      # again with them. A generation started during a round makes the
      # round's later calls run again: while that keeps happening (a round
      # longer than a window) the rounds shrink, down to a key each. Each
      # call's answer (1 new / found, 0 not).
      def run_all(name, keys, once: false)
        learn(*server_table) unless @state[:gens]
        results = Array.new(keys.size)
        pending = keys.each_index.to_a
        ahead = name == :sliding_add ? AHEAD : 0
        idle = 0
        until pending.empty?
          round = pending.shift(@state[:chunk])
          calls = round.map { |i| [i, sliding_keys, described(keys[i], ahead)] }
          stale = []
          pipelined_scripts(name, calls, once: once).each_with_index do |answer, j|
            next results[round[j]] = answered(answer) unless answer[0] == -1

            learn(*parsed_table(answer.drop(1)))
            stale << round[j]
          end
          chunk = @state[:chunk]
          @state[:chunk] = stale.size * 2 > round.size ? [chunk / 2, 1].max : [chunk * 2, CHUNK].min
          idle = stale.size == round.size ? idle + 1 : 0
          raise FormatError, "the filter #{name.inspect} in Redis is unusable: its generations changed under #{ROUNDS} rounds" if idle > ROUNDS

          pending = stale + pending
        end
        results
      end

      # A script's answer for a key: [found or new, server ms, layers of the
      # newest generation (adds)]; the client's table follows it.
      def answered(answer)
        found, now, layers = answer
        newest = forget_ended(now).last
        newest[2] = layers if layers && newest && layers > newest[2]
        found
      end

      # The table a script sent: [now, [[start, initial capacity, adds,
      # [counts of the layers]], ...]], each value checked.
      def parsed_table(flat)
        now = flat.shift
        gens = []
        until flat.empty?
          start, capacity, adds, layers = flat.shift(4)
          fine = [now, start, capacity, adds, layers].all?(Integer) && capacity.positive?
          fine &&= layers.between?(1, Bloomc::ScalableBloomFilter::MAX_LAYERS) && flat.size >= layers
          raise FormatError, "the filter #{name.inspect} in Redis is unusable: #{sliding_keys[0]} holds no generation's table" unless fine

          gens << [start, capacity, adds, flat.shift(layers)]
        end
        [now, gens]
      end

      # Takes the server's table as the generations known.
      def learn(now, gens)
        @state[:gens] = gens.map { |start, capacity, _, counts| [start, capacity, counts.size] }
        live = @state[:gens].map { |_, capacity, _| capacity }
        @templates.select! { |capacity, _| live.include?(capacity) || capacity == first_size }
        [@layouts, @shapes].each { |cache| cache.select! { |(capacity, _), _| live.include?(capacity) || capacity == first_size } }
        forget_ended(now)
      end

      def forget_ended(now) = @state[:gens].tap { |gens| gens.reject! { |start, _, _| now - start >= @ttl_ms + @window_ms } }

      # [server ms, live generations] (one round trip).
      def server_table = parsed_table(script(:sliding_table, sliding_keys, params_argv).drop(1))

      # [bits set, m, k] of every live layer (BITCOUNT each, one pipeline).
      def live_layers
        _, gens = server_table
        layers = gens.flat_map do |start, capacity, _, counts|
          Array.new(counts.size) { |i| ["#{sliding_keys[1]}:#{start}:#{i}", *layer_shape(capacity, i)] }
        end
        bits = read_all(layers.map { |layer| ["BITCOUNT", layer[0]] })
        bits.each_with_index.map do |set, i|
          key, _, bits_m, k = layers[i]
          raise FormatError, "the filter #{name.inspect} in Redis is unusable: #{key} has #{set} bits set, beyond its #{bits_m}" if set > bits_m

          [set, bits_m, k]
        end
      end

      def meta_for(shape, shards)
        raise ArgumentError, "a sliding filter in Redis has one shard" unless shards == 1
        raise ArgumentError, "ttl: is required" if shape[:ttl].nil?
        raise ArgumentError, "error_rate: is required" if shape[:sliding_error_rate].nil?

        ttl, error_rate = shape.values_at(:ttl, :sliding_error_rate)
        generations = shape[:generations] || Bloomc::SlidingBloomFilter::DEFAULT_GENERATIONS
        first_size = shape[:first_size] || Bloomc::SlidingBloomFilter::DEFAULT_FIRST_SIZE
        Bloomc::SlidingBloomFilter.check(ttl, error_rate, generations, first_size, nil)
        # Whole milliseconds, rounded up (keys live at least ttl), from the
        # ttl the caller wrote (4.014 is 4.01399... as a Float).
        exact = ttl.is_a?(Float) ? ttl.rationalize(Rational(1, 10**9)) : ttl.to_r
        ttl_ms = (exact * 1000).ceil
        seed = shape[:seed] || 0
        first = Bloomc::ScalableBloomFilter.new(error_rate: Float(error_rate) / (generations + 1), initial_capacity: first_size,
                                                growth: 2, tightening: 0.5, even_layers: 1, seed: seed,
                                                hash: shape[:hash] || :murmur3_mixed)
        _, m, k = first.send(:layer_shape, 0)
        { "kind" => kind, "m" => m.to_s, "k" => k.to_s, "seed" => seed.to_s, "hash" => first.send(:hash_kind).to_s,
          "shards" => "1", "width" => "1", "period_ms" => (-(-ttl_ms / generations)).to_s,
          "sliding_error_rate" => Float(error_rate).to_s, "ttl_ms" => ttl_ms.to_s, "generations" => generations.to_s,
          "first_size" => first_size.to_s }
      end

      # The parameters, each checked as new checks them, and what follows
      # from them (the first layer's m and k, the window) against what is
      # stored beside them.
      def adopt_extra(meta)
        @params = { error_rate: Float(meta.fetch("sliding_error_rate")), generations: Integer(meta.fetch("generations"), 10),
                    first_size: Integer(meta.fetch("first_size"), 10) }.freeze
        @ttl_ms = Integer(meta.fetch("ttl_ms"), 10)
        Bloomc::SlidingBloomFilter.check(Rational(@ttl_ms, 1000), error_rate, generations, first_size, nil)
        @window_ms = -(-@ttl_ms / generations)
        @templates = {}
        @layouts = {}
        @shapes = {}
        # What the client knows (the generations, oldest first: [start,
        # initial capacity, layers]) and the size of its next round: kept
        # in a Hash, so that a frozen filter object still reads.
        @state = { gens: nil, chunk: CHUNK }
        _, m, k = layer_shape(first_size, 0)
        { "m" => m, "k" => k, "period_ms" => @window_ms, "hash" => template(first_size).send(:hash_kind) }.each do |field, value|
          raise ArgumentError, "#{field} #{meta[field]}, where the parameters give #{value}" unless meta[field] == value.to_s
        end
      rescue KeyError => e
        raise ArgumentError, e.message
      end
    end
  end
end
