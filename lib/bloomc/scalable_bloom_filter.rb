# frozen_string_literal: true

module Bloomc
  # A Bloom filter for when the number of keys is not known in advance
  # (Almeida, Baquero, Preguiça and Hutchison, "Scalable Bloom Filters",
  # 2007): a chain of plain Bloom filters, the layers. Keys go into the newest
  # layer; once it has taken its capacity of keys new to the filter, a layer
  # +growth+ times larger follows, sized for a lower error rate, so that all
  # layers together never err above +error_rate+, however many keys come.
  #
  # The error rate is a budget the layers share: the first +even_layers+ take
  # equal shares, and each later one +tightening+ times the share before it
  # (the paper shrinks every layer's share from the first; bloomc's schedule
  # takes fewer bits a key for every filter up to 2**even_layers times its
  # initial capacity: see docs/FILTERS.md). With a +max_capacity+, the budget is
  # spread evenly over just the layers that reach it, the last one cut to end
  # there, and an add of a key past it raises Bloomc::CapacityError.
  #
  # A key is hashed once, with MurmurHash3, for every layer.
  #
  # Example:
  #
  #   seen = Bloomc::ScalableBloomFilter.new(error_rate: 0.001)
  #   stream.each { |id| handle(id) if seen.add?(id) } # each id once, however many
  #   seen.layers.size  # => 4
  #
  # The methods every kind shares are Bloomc::Filter's; here m counts the
  # bits of all layers together and there is no k, add puts a key in no
  # layer when one holds it already (and changes nothing when it raises
  # Bloomc::CapacityError), include? errs at most at error_rate unless a
  # union overfilled a layer, == compares the layers (shapes, counts and
  # bits) and the add count too, and clear leaves one empty first layer.
  class ScalableBloomFilter < Filter
    include HashFunction
    include PartStats

    # Defaults measured in docs/FILTERS.md: the keys of the first layer.
    DEFAULT_INITIAL_CAPACITY = 8192
    # Each layer's capacity over the one before it.
    DEFAULT_GROWTH = 2
    # Each later layer's rate over the one before it.
    DEFAULT_TIGHTENING = 0.8
    # The first layers, which share the rate evenly.
    DEFAULT_EVEN_LAYERS = 10
    # The most layers a filter has (growth 2 reaches 2**60 bits far sooner).
    MAX_LAYERS = 64

    # A layer: its bits m, probes k, the keys it takes (capacity) and took
    # (count), the error rate it was sized for and its fill.
    Layer = Struct.new(:m, :k, :capacity, :count, :error_rate, :fill_ratio, keyword_init: true)

    # error_rate:: (Float) the most all layers together may err, 0 < error_rate < 1
    # initial_capacity:: (Integer) keys the first layer takes, >= 1
    # growth:: (Numeric) each layer's capacity over the one before,
    #     1.25..64 (slower growth would run out of the 64 layers too soon)
    # tightening:: (Float) each later layer's share of the error rate
    #     over the one before, 0 < tightening < 1
    # even_layers:: (Integer) the first layers, which share the error
    #     rate evenly, 0..64 (0 with tightening 0.85: the paper's schedule)
    # max_capacity:: (Integer, nil) the most keys it takes
    # seed:: (Integer) MurmurHash3 seed, 0..2**32-1
    # hash:: (Symbol) :murmur3_mixed (the default: each probe remixed, each
    #     layer sized by the rate it will really have) or :murmur3 (the
    #     unmixed probes and formula-sized layers of filters made before)
    # Raises:: ArgumentError, TypeError for parameters out of range
    def initialize(error_rate:, initial_capacity: DEFAULT_INITIAL_CAPACITY, growth: DEFAULT_GROWTH,
                   tightening: DEFAULT_TIGHTENING, even_layers: DEFAULT_EVEN_LAYERS, max_capacity: nil, seed: 0,
                   hash: :murmur3_mixed)
      ScalableBloomFilter.check(error_rate: error_rate, initial_capacity: initial_capacity, growth: growth,
                                tightening: tightening, even_layers: even_layers, max_capacity: max_capacity)
      setup(error_rate, initial_capacity, growth, tightening, even_layers, max_capacity || 0, seed,
            HashFunction.murmur3_kind(hash, "scalable filter"))
    end

    # @api private
    def self.check(error_rate:, initial_capacity:, growth:, tightening:, even_layers:, max_capacity:) # :nodoc:
      real = ->(v) { v.is_a?(Numeric) && v.real? }
      whole = lambda do |name, v, range|
        raise TypeError, "#{name} must be an Integer, not #{v.class}" unless v.is_a?(Integer)
        raise ArgumentError, "#{name} must be in #{range}, got #{v}" unless range.cover?(v)
      end
      BloomHelper.send(:check_error_rate, error_rate)

      whole["initial_capacity", initial_capacity, 1..(2**60)]
      raise TypeError, "growth must be a number, not #{growth.class}" unless real[growth]
      raise ArgumentError, "growth must be in 1.25..64, got #{growth}" unless growth >= 1.25 && growth <= 64 # NaN too
      raise TypeError, "tightening must be a number, not #{tightening.class}" unless real[tightening]
      raise ArgumentError, "tightening must be in (0, 1), got #{tightening}" unless tightening.positive? && tightening < 1

      whole["even_layers", even_layers, 0..MAX_LAYERS]
      whole["max_capacity", max_capacity, 1..(2**60)] unless max_capacity.nil?
    end

    # Returns:: (Integer, nil) max_capacity: the most keys it takes, or nil
    def capacity = max_capacity

    # Whether the layers' rates at their key counts add up to more than
    # error_rate: never from adds (a full layer is followed by a new one),
    # only after a union put more keys in a layer than it was sized for.
    #
    # Returns:: (Boolean)
    def over_capacity?
      design_fpr > error_rate
    end

    # Returns:: (Array<Layer>) the layers, oldest first
    def layers
      layer_table.map do |m, k, capacity, count, set, rate|
        Layer.new(m: m, k: k, capacity: capacity, count: count, error_rate: rate, fill_ratio: set.fdiv(m))
      end
    end

    # Scalable filters have no exact intersection (a key in both may sit in
    # different layers of each).
    #
    # Raises:: Bloomc::UnsupportedError always
    def &(_other)
      raise UnsupportedError, "scalable filters have no exact intersection: a key in both may sit in different layers"
    end

    # Always 2: the kind is new in format version 2.
    private def format_version = 2

    # The layers, for PartStats.
    private def part_fills
      layer_table.map { |m, k, _, _, set, _| [set, m, k] }
    end

    private def shape
      { error_rate: error_rate, initial_capacity: initial_capacity, growth: growth, tightening: tightening,
        even_layers: even_layers, max_capacity: max_capacity, seed: seed, hash_function: hash_function }
    end

    private def inspect_fields
      rows = layer_table
      shown = rows.map { |_, _, capacity, count, _, _| count < capacity ? "#{count}/#{capacity}" : count.to_s }
      shown = [*shown.first(2), "...", *shown.last(2)] if shown.size > 5
      "error_rate=#{error_rate} size=#{size} layers=#{rows.size} (#{shown.join(' ')})"
    end

    # inspect's statistics: the compound rate (each layer's fill: #layers).
    private def stats_fields
      rate = false_positive_rate
      " fpr~#{rate < 1e-12 ? 0 : format('%.2g', rate)}"
    end
  end
end
