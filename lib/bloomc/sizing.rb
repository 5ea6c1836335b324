# frozen_string_literal: true

module Bloomc
  # What a filter was sized for (capacity: and error_rate:), and whether it
  # now holds more than that: the signal that its false-positive rate is past
  # the one asked for. Both are kept through dup, Marshal, dump and load and
  # in mapped files (as three parameters at the end of a version 2 header,
  # docs/FORMAT.md); a filter built from m and k has neither.
  module Sizing
    # Returns:: (Integer, Float, nil) the keys the filter was sized for
    #     (capacity:), nil for a filter built from m and k
    def capacity
      @sizing&.first
    end

    # Returns:: (Float, nil) the false-positive rate it was sized for
    #     (error_rate:), nil for a filter built from m and k
    def error_rate
      @sizing&.last
    end

    # Whether more keys new to the filter have been added than its capacity
    # (always false without one). A key is new when its add changed a cell
    # (for the counting kinds: found a count of 0; a delete that takes a key's
    # count back to 0 takes it off again), which is exact: a key added twice
    # counts once, and a merged filter counts the keys its cells imply.
    #
    # Returns:: (Boolean)
    def over_capacity?
      !capacity.nil? && distinct > capacity
    end

    private

    # [m, k] from the constructor's arguments, remembering capacity and
    # error_rate when they were given.
    def sized(m, k, capacity, error_rate)
      m, k = Bloomc.sizing_arguments(m, k, capacity, error_rate)
      remember_sizing(capacity, error_rate)
      [m, k]
    end

    def remember_sizing(capacity, error_rate)
      @sizing = capacity || error_rate ? [Sizing.whole(capacity), error_rate.to_f].freeze : nil
    end

    # The three parameters a version 2 header ends with: capacity and error
    # rate as the bits of IEEE 754 doubles, and the keys new to the filter.
    def export_sizing
      return [] unless @sizing

      [Sizing.double_bits(capacity || 0), Sizing.double_bits(error_rate), distinct_count]
    end

    def format_version
      @sizing ? 2 : 1
    end

    # The inverse of export_sizing (nil: the header had none).
    def import_sizing(fields)
      return @sizing = nil unless fields

      capacity, error_rate = fields.first(2).map { |bits| [bits].pack("Q<").unpack1("E") }
      unless capacity.finite? && capacity >= 0 && error_rate.finite? && error_rate >= 0 && error_rate < 1
        raise FormatError, "capacity #{capacity} and error rate #{error_rate} are no filter's sizing"
      end

      capacity = capacity.zero? ? nil : Sizing.whole(capacity)
      # Version 3 (metadata) writes a filter without sizing as 0 and 0.
      @sizing = capacity || error_rate.positive? ? [capacity, error_rate].freeze : nil
      self.distinct_count = fields[2]
    end

    # Keys new to the filter; 0 for the kinds that do not count them.
    def distinct_count
      respond_to?(:distinct, true) ? distinct : 0
    end

    def distinct_count=(n)
      send(:distinct=, n) if respond_to?(:distinct=, true)
    end

    # After a union or intersection: the keys the merged cells imply.
    def recount_distinct
      estimate = estimated_count
      self.distinct_count = estimate.finite? ? estimate.round : size if @sizing
    end

    class << self
      # @api private
      def double_bits(value) # :nodoc:
        [value.to_f].pack("E").unpack1("Q<")
      end

      # @api private
      # The inverse of double_bits: a saved field's Float.
      def float(bits) # :nodoc:
        [bits].pack("Q<").unpack1("E")
      end

      # @api private
      # An integral capacity as an Integer (capacity: 1e6 is 1_000_000).
      def whole(value) # :nodoc:
        value.is_a?(Float) && value.finite? && value == value.floor && value.abs < 2**53 ? value.to_i : value
      end
    end
  end
end
