# frozen_string_literal: true

module Bloomc
  # Stats of a filter made of plain Bloom filters, its parts: an
  # A2BloomFilter's two halves, a ScalableBloomFilter's layers. Each part is
  # read on its own, since one fill and one k over all of them would say
  # nothing true.
  module PartStats
    include Stats

    # The share of all the parts' bits that are set, 0.0..1.0.
    #
    # Returns:: (Float)
    def fill_ratio
      part_fills.sum { |set, _, _| set }.fdiv(m)
    end

    # The distinct keys the parts' fill implies, each part by Swamidass and
    # Baldi's estimate (Stats#estimated_count): a key in two parts counts
    # twice; Infinity once a part's bits are all set.
    #
    # Returns:: (Float)
    def estimated_count
      part_fills.sum { |set, bits, k| Stats.estimate(set, bits, k) }
    end

    # The chance that a key never added is found now, in any part:
    # 1 - prod(1 - fill**k) over the parts.
    #
    # Returns:: (Float)
    def false_positive_rate
      1 - part_fills.map { |set, bits, k| 1 - set.fdiv(bits)**k }.inject(:*)
    end
  end
end
