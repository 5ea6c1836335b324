# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis").

module Bloomc
  module Redis
    # A filter that grows, as Bloomc::ScalableBloomFilter does: a chain of
    # layers of the shapes the local filter of the same parameters has (layer
    # i holds about initial_capacity * growth**i keys at its share of
    # error_rate), each a bitmap in Redis. A key goes into the newest layer
    # unless a layer holds it; once that layer has taken its capacity of new
    # keys, the add script itself starts the next one, so that a layer is
    # added once and atomically however many writers add at once (each add
    # is one script call, which Redis runs alone). The positions of a key in
    # every layer are computed here, as for the local filter: the client
    # sends those of the layers it knows of and the next two, and a script
    # that finds more layers than it was told of answers so without writing
    # anything, and the client sends the key again with them.
    #
    # One shard: a layer's keys share the hash slot of "{NAME:0}". merge!,
    # union(other, into:) and | combine two filters of the same parameters
    # (max_capacity and seed included) as the local filter's do, in one
    # script; there is no intersection (& raises Bloomc::UnsupportedError,
    # as locally). No to_local or from_local yet (Bloomc::UnsupportedError).
    class ScalableBloomFilter < Filter
      include Layered

      # Layers sent beyond those known: a batch that adds two layers needs no
      # second round trip.
      AHEAD = 2
      # The parameters beside those of every filter's, in the meta hash.
      PARAMETERS = %w[layer_error_rate initial_capacity growth tightening even_layers max_capacity].freeze
      private_constant :AHEAD, :PARAMETERS

      # @overload initialize(redis, name, error_rate:, initial_capacity: 8192, growth: 2, tightening: 0.8,
      #                      even_layers: 10, max_capacity: nil, seed: 0, hash: :murmur3_mixed)
      #   The parameters of Bloomc::ScalableBloomFilter.new.
      # @overload initialize(redis, name)
      #   Opens an existing filter with the parameters stored beside it.
      def initialize(redis, name, error_rate: nil, initial_capacity: nil, growth: nil, tightening: nil, even_layers: nil,
                     max_capacity: nil, seed: nil, hash: nil)
        super()
        shape = { scalable_error_rate: error_rate, initial_capacity: initial_capacity, growth: growth, tightening: tightening,
                  even_layers: even_layers, max_capacity: max_capacity, seed: seed, hash: hash }
        open(redis, name, shape, nil) # rubocop:disable Security/Open -- Filter#open, not Kernel#open
      end

      # @return [Float] the most all layers together err
      def error_rate
        @params[:error_rate]
      end

      # @return [Integer] keys the first layer takes
      def initial_capacity
        @params[:initial_capacity]
      end

      # @return [Float] each layer's capacity over the one before's
      def growth
        @params[:growth]
      end

      # @return [Float] each later layer's share of the error rate over the one before's
      def tightening
        @params[:tightening]
      end

      # @return [Integer] the first layers, which share the error rate evenly
      def even_layers
        @params[:even_layers]
      end

      # @return [Integer, nil] the most keys it takes, or nil
      def max_capacity
        @params[:max_capacity]
      end

      # @return [Integer, nil] max_capacity, as Bloomc::ScalableBloomFilter#capacity
      def capacity
        max_capacity
      end

      # Never true from adds: a full layer is followed by a new one.
      # @return [false]
      def over_capacity?
        false
      end

      # @return [Integer] the layers in Redis now (one round trip)
      def layer_count
        refresh_layers
      end

      # @return [Integer] the bits of all layers together
      def m
        (0...layer_count).sum { |i| layer_shape_of(i)[1] }
      end

      # @return [Array<Bloomc::ScalableBloomFilter::Layer>] the layers,
      #   oldest first (error_rate nil: the rate a layer was sized for is
      #   the local filter's to tell)
      def layers
        bits = layer_bits
        counts = layer_counts(bits.size)
        bits.each_with_index.map do |set, i|
          capacity, m, k = layer_shape_of(i)
          Bloomc::ScalableBloomFilter::Layer.new(m: m, k: k, capacity: capacity, count: counts[i],
                                                 error_rate: nil, fill_ratio: set.fdiv(m))
        end
      end

      # Adds +key+ to the newest layer unless a layer holds it; a full
      # newest layer is followed by a new one, on the server.
      # @return [self]
      # @raise [Bloomc::CapacityError] when the key is new and the filter
      #   holds its max_capacity (nothing changes)
      def add(key)
        add_one(key)
        self
      end
      alias << add

      # @return [self, nil] self when +key+ was new, nil when a layer held it
      # rubocop:disable-next Naming/PredicateMethod, Style/ReturnNilInPredicateMethodDefinition -- Set#add?'s answer
      def add?(key)
        add_one(key) == 1 ? self : nil
      end

      # The share of all layers' bits that are set (BITCOUNT per layer).
      # @return [Float]
      def fill_ratio
        bits = layer_bits
        bits.sum.fdiv((0...bits.size).sum { |i| layer_shape_of(i)[1] })
      end

      # The keys the layers' fill implies, each layer by its own estimate.
      # @return [Float]
      def estimated_count
        layer_bits.each_with_index.sum { |set, i| Stats.estimate(set, layer_shape_of(i)[1], layer_shape_of(i)[2]) }
      end

      # The chance that a key never added is found now: 1 - prod(1 - fill**k)
      # over the layers, as locally.
      # @return [Float]
      def false_positive_rate
        1 - layer_bits.each_with_index.reduce(1.0) { |p, (set, i)| p * (1 - (set.fdiv(layer_shape_of(i)[1])**layer_shape_of(i)[2])) }
      end

      # @return [Boolean] whether no layer has a bit set
      def empty?
        layer_bits.all?(&:zero?)
      end

      # Removes every layer and the count; the parameters stay.
      # @return [self]
      def clear
        writable!
        script(:scalable_clear, scalable_keys, [layer_limit], once: true) # every layer there may be, whatever the count says
        @seen[:layers] = 1
        self
      end

      # @raise [Bloomc::UnsupportedError] not yet for a Redis scalable filter
      def to_local
        unsupported("to_local")
      end

      # Adds the keys of +other+, a Redis scalable filter of the same
      # parameters on the same server (on a cluster, in the same hash slot),
      # as Bloomc::ScalableBloomFilter#merge! does: layer i becomes the OR
      # of both layers i, its count the keys its bits imply, at least the
      # larger of the two counts and at most their sum; a layer only +other+
      # has is copied with its count; the size becomes the sum. One script
      # on the server, atomic against writers adding meanwhile.
      # @return [self]
      # @raise [ArgumentError] for another kind of filter, or one whose
      #   parameters differ (error_rate, initial_capacity, growth,
      #   tightening, even_layers, max_capacity, seed), naming the first
      # @raise [Bloomc::UnsupportedError] when the two are on different
      #   servers or, on a Redis Cluster, in different hash slots
      # @raise [FrozenError] when this object is frozen
      def merge!(other)
        combine!(other, :union)
      end

      # A filter in Redis, named +into+, holding the keys of this filter and
      # +other+ (see merge!), in one script: +into+ is created with these
      # parameters, or must have them, and its layers are replaced; it may
      # name this filter or +other+.
      # @return [Bloomc::Redis::ScalableBloomFilter] the filter named +into+
      # @raise (as merge!; ArgumentError when +into+ has other parameters)
      def union(other, into:) = combined(other, into, :union)

      # @raise [Bloomc::UnsupportedError] a scalable filter has no exact
      #   intersection, as locally
      def intersection(_other, into:)
        no_intersection("intersection (into: #{into.inspect})")
      end

      # @raise [Bloomc::UnsupportedError] a scalable filter has no exact
      #   intersection, as locally
      def &(_other)
        no_intersection("&")
      end

      private

      def add_script = :scalable_add
      def lookup_script = :scalable_lookup
      def own_parameters = PARAMETERS

      # The filter's name and shape for inspect (no round trip to the server).
      def inspect_fields
        "#{name.inspect} error_rate=#{error_rate} initial_capacity=#{initial_capacity} growth=#{growth}"
      end

      def kind
        "scalable"
      end

      def unsupported(what)
        raise(UnsupportedError, "#{what} is not supported by Bloomc::Redis::ScalableBloomFilter yet")
      end

      def no_intersection(what)
        raise UnsupportedError, "#{what}: scalable filters have no exact intersection: a key in both may sit in different layers"
      end

      # The parameters two filters must share to be combined, by the names
      # new takes (the layers' shapes follow from them).
      def shape
        { "error_rate" => error_rate, "initial_capacity" => initial_capacity, "growth" => growth, "tightening" => tightening,
          "even_layers" => even_layers, "max_capacity" => max_capacity, "seed" => seed, "hash" => @hash }
      end

      def shape_fields = [*super, *PARAMETERS]

      # The union into this filter, in one script (there is no intersection:
      # intersection and & raise first).
      def combine!(other, _op)
        writable!
        check_combinable(other)
        check_slots([name, other.name])
        combine_from(self, other, :union)
      end

      # This filter's layers and size become those of +first+ united with
      # +second+ (this filter may be +first+).
      def combine_from(first, second, _op)
        writable!
        keys = [self, first, second].flat_map { |filter| filter.send(:scalable_keys) }
        @seen[:layers] = checked_layers(script(:scalable_combine, keys, layer_shapes, once: true))
        self
      end

      # m and k of each layer these parameters allow, oldest first.
      def layer_shapes
        (0...Bloomc::ScalableBloomFilter::MAX_LAYERS).map { |i| layer_shape_of(i) }.take_while(&:itself).flat_map { |_, m, k| [m, k] }
      end

      def scalable_keys
        [shard_key(0, "layers"), shard_key(0, "count"), shard_key(0, "layer")]
      end

      # [capacity, m, k] of layer i, or nil where the parameters have none.
      def layer_shape_of(i)
        (@shapes[i] ||= @template.send(:layer_shape, i) || :none).then { |s| s == :none ? nil : s }
      end

      def refresh_layers
        text = read("GET", shard_key(0, "layers"))
        return @seen[:layers] = 1 unless text

        @seen[:layers] = checked_layers(text.match?(/\A\d{1,20}\z/) ? Integer(text, 10) : text)
      end

      # The most layers these parameters make (fewer than MAX_LAYERS under a
      # max_capacity).
      def layer_limit
        @seen[:layer_limit] ||= (0...Bloomc::ScalableBloomFilter::MAX_LAYERS).count { |i| layer_shape_of(i) }
      end

      # A layer count read from Redis (the layers key, or a script's answer),
      # checked before it sizes anything: 1 .. layer_limit. A count of 0 or
      # less would hide every layer (include? false for a key added), a huge
      # one would have the client describe that many layers.
      def checked_layers(count)
        return count if count.is_a?(Integer) && count.between?(1, layer_limit)

        raise FormatError, "the filter #{name.inspect} in Redis is unusable: #{shard_key(0, 'layers')} counts " \
                           "#{count.inspect[0, 40]} layers, where its parameters make 1 .. #{layer_limit}"
      end

      # Bits set per layer, in one pipeline; no more than the layer's m.
      def layer_bits
        count = layer_count
        bits = read_all(Array.new(count) { |i| ["BITCOUNT", "#{shard_key(0, 'layer')}:#{i}"] })
        bits.each_with_index do |set, i|
          next if set <= layer_shape_of(i)[1]

          raise FormatError, "the filter #{name.inspect} in Redis is unusable: #{shard_key(0, 'layer')}:#{i} has #{set} bits set, " \
                             "beyond the layer's #{layer_shape_of(i)[1]}"
        end
      end

      def layer_counts(count)
        keys = Array.new(count) { |i| "#{shard_key(0, 'layer')}:#{i}:count" }
        texts = read_all(keys.map { |key| ["GET", key] })
        texts.each_with_index.map { |text, i| stored_count(text, keys[i]) }
      end

      def add_one(key)
        writable!
        run_all(:scalable_add, [key], once: true).first
      end

      # Keys as an Array, every one hashed (TypeError before anything is sent).
      def checked(keys)
        raise TypeError, "keys must be Enumerable, not #{keys.class}" unless keys.is_a?(Enumerable)

        keys.to_a.each { |key| @layouts.first.locate(key) }
      end

      # ARGV describing layers 0...count for +key+: their number, then per
      # layer its k, its capacity and its k bit offsets (k 0 where there is
      # no such layer).
      def described(key, count)
        [count, *Array.new(count) do |i|
          capacity, = layer_shape_of(i)
          next [0, 0] unless capacity

          cells = (@layouts[i] ||= RedisLayout.new(layer_shape_of(i)[1], layer_shape_of(i)[2], @seed, @hash, 1, true)).locate(key)[1]
          [cells.size, capacity, *cells]
        end.flatten]
      end

      # Runs +name+ for each key, in one pipeline; the calls a script found
      # more layers for than it was told of (they wrote nothing) run again,
      # in their order, with those layers. Each call's first answer.
      def run_all(name, keys, once: false)
        results = Array.new(keys.size)
        pending = keys.each_index.to_a
        until pending.empty?
          count = @seen[:layers] + AHEAD
          calls = pending.map { |i| [i, scalable_keys, described(keys[i], count)] }
          answers = capacity_errors { pipelined_scripts(name, calls, once: once) }
          stale = []
          answers.each_with_index do |(answer, layers), j|
            checked_layers(layers) # before it sizes the next round's calls
            answer == -1 ? stale << pending[j] : results[pending[j]] = answer
            @seen[:layers] = layers if layers > @seen[:layers]
          end
          pending = stale
        end
        results
      end

      def capacity_errors
        yield
      rescue CommandError => e
        raise unless e.message.include?("CAPACITY")

        raise CapacityError, "the filter #{name.inspect} holds its max_capacity (#{max_capacity}): a key new to it cannot be added"
      end

      def meta_for(shape, shards)
        raise ArgumentError, "a scalable filter in Redis has one shard" unless shards == 1

        params = { error_rate: shape[:scalable_error_rate], initial_capacity: shape[:initial_capacity] || Bloomc::ScalableBloomFilter::DEFAULT_INITIAL_CAPACITY,
                   growth: shape[:growth] || Bloomc::ScalableBloomFilter::DEFAULT_GROWTH,
                   tightening: shape[:tightening] || Bloomc::ScalableBloomFilter::DEFAULT_TIGHTENING,
                   even_layers: shape[:even_layers] || Bloomc::ScalableBloomFilter::DEFAULT_EVEN_LAYERS, max_capacity: shape[:max_capacity] }
        raise ArgumentError, "error_rate: is required" if params[:error_rate].nil?

        seed = shape[:seed] || 0
        template = Bloomc::ScalableBloomFilter.new(**params, seed: seed, hash: shape[:hash] || :murmur3_mixed) # checks them all
        _, m, k = template.send(:layer_shape, 0)
        { "kind" => kind, "m" => m.to_s, "k" => k.to_s, "seed" => seed.to_s, "hash" => template.send(:hash_kind).to_s,
          "shards" => "1", "width" => "1", "period_ms" => "0", "layer_error_rate" => Float(params[:error_rate]).to_s,
          "initial_capacity" => params[:initial_capacity].to_s, "growth" => Float(params[:growth]).to_s,
          "tightening" => Float(params[:tightening]).to_s, "even_layers" => params[:even_layers].to_s,
          "max_capacity" => (params[:max_capacity] || 0).to_s }
      end

      # The parameters, each checked as new checks them, and the first
      # layer's m and k and the hash, which follow from them, against those
      # stored beside them.
      def adopt_extra(meta)
        max = Integer(meta.fetch("max_capacity"), 10)
        @params = { error_rate: Float(meta.fetch("layer_error_rate")), initial_capacity: Integer(meta.fetch("initial_capacity"), 10),
                    growth: Float(meta.fetch("growth")), tightening: Float(meta.fetch("tightening")),
                    even_layers: Integer(meta.fetch("even_layers"), 10), max_capacity: max.zero? ? nil : max }.freeze
        # :murmur3_mixed or, for a filter made before it, :murmur3 (any other
        # hash id: ArgumentError from new)
        @template = Bloomc::ScalableBloomFilter.new(**@params, seed: @seed, hash: hash_function)
        @shapes = []
        @layouts = [@layout]
        # The layers the client knows of: in a Hash, which a frozen object
        # can still change, so that its reads work (they learn of layers).
        @seen = { layers: 1 }
        check_derived(meta)
      rescue KeyError => e
        raise ArgumentError, e.message
      end

      def check_derived(meta)
        _, m, k = layer_shape_of(0)
        { "m" => m, "k" => k, "hash" => @template.send(:hash_kind) }.each do |field, value|
          raise ArgumentError, "#{field} #{meta[field]}, where the parameters give #{value}" unless meta[field] == value.to_s
        end
      end
    end
  end
end
