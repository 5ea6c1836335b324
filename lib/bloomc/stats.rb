# frozen_string_literal: true

module Bloomc
  # Live statistics, read from the cells as they are now: how full the filter
  # is, how many distinct keys that fill implies, and the false-positive rate
  # a never-added key meets now. Each call scans the cells once (2.4 ms for
  # 100 million bits, 2 ms for 10 million 4-bit cells).
  module Stats
    # The share of cells (bits) that are not zero, 0.0..1.0. For a
    # ContinuousBloomFilter only live buckets count, for a spectral filter
    # the primary cells, for a bitwise filter the first level.
    #
    # Returns:: (Float)
    def fill_ratio
      occupied.fdiv(m)
    end

    # The number of distinct keys the fill implies, by Swamidass and Baldi's
    # estimate n = -(m / k) ln(1 - X / m) for X cells set: unlike #size it
    # counts a key added twice once, and it holds for a filter loaded from
    # elsewhere or merged. Infinity once every cell is set.
    #
    # Returns:: (Float)
    def estimated_count
      Stats.estimate(occupied, m, k)
    end

    # The chance that a key never added is found now: the fill to the
    # power k.
    #
    # Returns:: (Float)
    def false_positive_rate
      fill_ratio**k
    end

    # @api private
    def self.estimate(set, cells, k) # :nodoc:
      return Float::INFINITY if set >= cells

      -(cells.to_f / k) * Math.log(1 - set.fdiv(cells))
    end

    # "fill=6.7% fpr~0.0001" for inspect; left out above 2**28 cells, where
    # the scan would make inspect slow.
    # @api private
    def stats_fields # :nodoc:
      return "" if m > 2**28

      rate = false_positive_rate
      " fill=#{(fill_ratio * 100).round(1)}% fpr~#{rate < 1e-12 ? 0 : format('%.2g', rate)}"
    end
    private :stats_fields
  end
end
