# frozen_string_literal: true

require "bloomc"
require "json"

module Bloomc
  module Format
    # The names of each kind's parameters, in the order docs/FORMAT.md's
    # table gives them (snake_case). A name in DOUBLE_PARAMETERS holds the
    # bits of an IEEE 754 double, shown as the number.
    PARAMETER_NAMES = {
      1 => %w[m k seed hash count],
      2 => %w[blocks k seed count],
      3 => %w[m k seed hash slot ticks adds_this_tick adds_1_tick_ago adds_2_ticks_ago ttl],
      4 => %w[m k width seed count saturated],
      5 => %w[algorithm m k width seed count saturated secondary_m secondary_count secondary_saturated],
      6 => %w[m k width seed count levels],
      7 => %w[m k d width seed generator_state count],
      8 => %w[half_bits k seed capacity active_half keys_in_active_half count swaps],
      9 => %w[seed error_rate initial_capacity growth tightening even_layers max_capacity count layers],
      10 => %w[buckets fingerprint_bits seed count],
      11 => %w[fingerprint_bits seed build_seed segment_length segment_count keys],
      12 => %w[seed error_rate ttl generations first_size count live_generations layers]
    }.freeze
    DOUBLE_PARAMETERS = %w[ttl error_rate growth tightening age seconds_since wall_time].freeze
    # A scalable filter's header ends with these four per layer, oldest first.
    LAYER_PARAMETERS = %w[m k capacity count].freeze
    # A sliding filter's header goes on with these three per generation,
    # oldest first, then its layers' four, then SLIDING_TIMES.
    GENERATION_PARAMETERS = %w[age layers initial_capacity].freeze
    SLIDING_TIMES = %w[seconds_since wall_time].freeze
    BIT_ORDER = "bit i is bit (i mod 8) of byte floor(i / 8); each byte is two hex digits, high nibble first"

    module_function

    # The JSON representation of a filter (docs/HTTP.md), as a Hash ready for
    # JSON.generate: kind, format version, the kind's parameters by name, its
    # sizing, its metadata, and its cells (the body as the format stores it,
    # inflated) as one lowercase hex string, byte 0 first.
    #
    # source:: (String, Object) a #dump (checked as Bloomc.load checks
    #     it) or a filter
    # Returns:: (Hash{String => Object})
    # Raises:: Bloomc::FormatError for bytes that are not a filter
    def json_representation(source)
      if source.is_a?(String)
        bytes = source.b
        filter = load(bytes) # every check, and the metadata
      else
        filter = source
        bytes = filter.dump
      end
      _klass, flags, fields, stored, raw, _crc, at, sizing = parse_header(bytes)
      body = bytes.byteslice(at, stored)
      body = inflate(body, raw) if flags.anybits?(FLAG_DEFLATE)
      version, kind = bytes.unpack("S<S<", offset: 8)
      {
        "kind" => KINDS.fetch(kind).to_s,
        "kind_number" => kind,
        "format_version" => version,
        "parameters" => named_parameters(kind, fields),
        "sizing" => json_sizing(sizing),
        "metadata" => filter.respond_to?(:metadata) ? filter.metadata : nil,
        "bit_order" => BIT_ORDER,
        "cells" => body.unpack1("H*")
      }
    end

    # Kinds 4 to 9 keep their hash id in the seed parameter's bits 32 and up
    # (docs/FORMAT.md): shown apart, as "seed" and "hash", as kinds 1 and 3
    # show theirs.
    SEED_WITH_HASH = [*4..9, 12].freeze

    def named_parameters(kind, fields)
      names = PARAMETER_NAMES.fetch(kind)
      named = by_name(names, fields)
      if SEED_WITH_HASH.include?(kind)
        named = named.flat_map { |name, value| name == "seed" ? [["seed", value & 0xffff_ffff], ["hash", value >> 32]] : [[name, value]] }.to_h
      end
      rest = fields.drop(names.size)
      if kind == 12 # the generations (their count in "live_generations"), then every layer, then the two times
        generations = rest.shift(named["live_generations"] * GENERATION_PARAMETERS.size)
        named["generation_parameters"] = generations.each_slice(GENERATION_PARAMETERS.size).map { |row| by_name(GENERATION_PARAMETERS, row) }
        named.merge!(by_name(SLIDING_TIMES, rest.pop(SLIDING_TIMES.size)))
      end
      # The layers (a scalable filter's count in "layers"), each one's shape.
      named["layer_parameters"] = rest.each_slice(LAYER_PARAMETERS.size).map { |layer| by_name(LAYER_PARAMETERS, layer) } if [9, 12].include?(kind)
      named
    end

    # names paired with the fields, each a double's bits shown as the number.
    def by_name(names, fields)
      names.zip(fields).to_h { |name, value| [name, DOUBLE_PARAMETERS.include?(name) ? json_double(value) : value] }
    end

    # The three sizing parameters, or nil when the header has none (or says
    # "none" with capacity 0 and error rate 0).
    def json_sizing(sizing)
      return nil unless sizing

      capacity, error_rate = sizing.first(2).map { |bits| json_double(bits) }
      return nil if capacity.zero? && error_rate.zero?

      { "capacity" => capacity.zero? ? nil : capacity, "error_rate" => error_rate, "keys_new" => sizing[2] }
    end

    # The double whose bits +bits+ are; an integral one as an Integer
    # (3000, not 3000.0).
    def json_double(bits)
      value = [bits].pack("Q<").unpack1("E")
      value.finite? && value == value.round && value.abs < 2**53 ? value.to_i : value
    end
  end
end
