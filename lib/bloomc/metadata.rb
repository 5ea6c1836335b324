# frozen_string_literal: true

require "json"

module Bloomc
  # A small document a filter carries with it (where its keys came from, the
  # period it covers, a description), as DCSO's `bloom` keeps with
  # set-data/get-data. It is saved in the binary format (version 3,
  # docs/FORMAT.md) as JSON text, shown by `bloomc info` and served in the
  # JSON representation. It is not part of the set: #== and #hash ignore it.
  module Metadata
    # The most JSON text a filter carries: small beside any filter, and read
    # whole with the header.
    MAX_BYTES = 65_536
    # The most Arrays and Hashes metadata nests, one in another (a Hash of
    # Strings is 1 deep): JSON's own limit (its max_nesting), so that every
    # value this takes is one the JSON library writes and reads back, and a
    # deep or self-containing value is refused with ArgumentError before the
    # stack runs out (SystemStackError, which `rescue => e` does not catch).
    MAX_DEPTH = 100

    # Returns:: (String, Hash, nil) the filter's metadata, frozen (a Hash has
    #     String keys, as JSON gives them back), or nil when it has none
    def metadata
      @metadata
    end

    # Sets (or, with nil, removes) the filter's metadata. The value is kept
    # as it will load back: symbols become strings, and it is frozen, so a
    # later change to the Hash given does not reach the filter.
    #
    # value:: (String, Hash, nil) a String, or a Hash of JSON values
    #     (String, Integer, finite Float, true, false, nil, Array, Hash; Symbol
    #     keys and values are taken as Strings)
    # Raises:: TypeError for another type anywhere in it
    # Raises:: ArgumentError above 64 KiB of JSON, for Arrays and Hashes
    #     nested more than MAX_DEPTH (100) deep or holding themselves, or for
    #     a String that is not valid in its encoding
    # Raises:: FrozenError on a frozen filter
    # Raises:: Bloomc::UnsupportedError on a mapped filter, whose header has
    #     no room to grow in place
    # On an error the filter keeps the metadata it had.
    def metadata=(value)
      raise FrozenError.new("can't modify frozen #{self.class}: #{inspect}", receiver: self) if frozen?
      if instance_variable_defined?(:@mapped) && @mapped
        raise UnsupportedError, "a mapped filter's metadata is fixed by its file: load_file, set it, and save"
      end

      json = Metadata.encode(value)
      if json
        import_metadata(json)
      elsif instance_variable_defined?(:@metadata_json) # none: set to nil, not removed (see Mapped::Copy)
        @metadata_json = @metadata = nil
      end
      value # as `filter.metadata = value` gives, for send(:metadata=, value) too
    end

    private

    # The JSON text that the format saves (nil: none).
    def metadata_json
      @metadata_json
    end

    # From a file's metadata block (nil: none), already checked by Format.
    # Nothing is set without one: instance variables on a T_DATA object cost
    # a table of their own, which ObjectSpace.memsize_of counts.
    def import_metadata(json)
      return unless json

      @metadata_json = json
      @metadata = Metadata.decode(json)
    end

    class << self
      # @api private
      # The JSON text of +value+, checked (nil for nil).
      def encode(value) # :nodoc:
        return nil if value.nil?
        raise TypeError, "metadata is a String or a Hash, not #{value.class}" unless value.is_a?(String) || value.is_a?(Hash)

        json = JSON.generate(plain(value))
        raise ArgumentError, "metadata of #{json.bytesize} bytes of JSON: at most #{MAX_BYTES}" if json.bytesize > MAX_BYTES

        json.b.freeze
      end

      # @api private
      # The value of checked JSON text, deeply frozen.
      def decode(json) # :nodoc:
        JSON.parse(json.dup.force_encoding(Encoding::UTF_8), freeze: true, max_nesting: MAX_DEPTH)
      end

      # @api private
      # The metadata of a file's block, or a FormatError saying why not.
      def check_block(json) # :nodoc:
        text = json.dup.force_encoding(Encoding::UTF_8)
        raise FormatError, "the metadata is not UTF-8 text" unless text.valid_encoding?

        value = JSON.parse(text, max_nesting: MAX_DEPTH)
        raise FormatError, "the metadata is a JSON #{value.class}, not a string or an object" unless value.is_a?(String) || value.is_a?(Hash)

        plain(value) # what metadata= would refuse (1e400 parses as Infinity), a file may not hold either
        json
      rescue ArgumentError, TypeError => e
        raise FormatError, "the metadata holds what JSON cannot give back: #{e.message}"
      rescue JSON::ParserError => e
        raise FormatError, "the metadata is not JSON (#{e.message[0, 80]})"
      end

      private

      # +value+ with Symbols as Strings, refusing anything JSON cannot hold
      # as the same value (JSON.generate would write any object's to_s).
      # +within+: the Arrays and Hashes it lies in (their number its depth).
      def plain(value, within = {}.compare_by_identity)
        return container(value, within) if value.is_a?(Array) || value.is_a?(Hash)

        case value
        when String then valid(value)
        when Symbol then valid(value.name)
        when Integer, true, false, nil then value
        when Float
          raise ArgumentError, "metadata cannot hold #{value}: JSON has no such number" unless value.finite?

          value
        else raise TypeError, "metadata cannot hold a #{value.class} (#{value.inspect[0, 40]}): give JSON values"
        end
      end

      def container(value, within)
        if within.key?(value)
          raise ArgumentError, "metadata cannot hold #{value.is_a?(Array) ? 'an Array' : 'a Hash'} that contains itself: JSON has no such value"
        end
        raise ArgumentError, "metadata nests Arrays and Hashes more than #{MAX_DEPTH} deep" if within.size >= MAX_DEPTH

        within[value] = true
        begin
          value.is_a?(Array) ? value.map { |item| plain(item, within) } : value.to_h { |key, item| [hash_key(key), plain(item, within)] }
        ensure
          within.delete(value) # the same Array twice side by side is no cycle
        end
      end

      def hash_key(key)
        raise TypeError, "metadata keys are Strings or Symbols, not #{key.class}" unless key.is_a?(String) || key.is_a?(Symbol)

        valid(key.to_s)
      end

      def valid(string)
        raise ArgumentError, "metadata text is not valid #{string.encoding}: #{string.inspect[0, 40]}" unless string.valid_encoding?

        string.encode(Encoding::UTF_8)
      rescue EncodingError => e
        raise ArgumentError, "metadata text cannot be UTF-8: #{e.message}"
      end
    end
  end
end
