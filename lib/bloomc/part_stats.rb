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
      m.zero? ? 0.0 : part_fills.sum { |set, _, _| set }.fdiv(m)
    end

    # The distinct keys the parts' fill implies, each part by Swamidass and
    # Baldi's estimate (Stats#estimated_count): a key in two parts counts
    # twice; Infinity once a part's bits are all set.
    #
    # Returns:: (Float)
    def estimated_count
      part_fills.sum(0.0) { |set, bits, k| Stats.estimate(set, bits, k) }
    end

    # The chance that a key never added is found now, in any part:
    # 1 - prod(1 - fill**k) over the parts. A sparse part's rate can be too
    # small for 1 - rate to differ from 1: those are summed instead (their
    # product is 1 - their sum, to within its square), so no rate rounds to 0.
    #
    # Returns:: (Float)
    def false_positive_rate
      kept = 1.0
      tiny = 0.0
      part_fills.each do |set, bits, k|
        rate = set.fdiv(bits)**k
        rate < 1e-9 ? tiny += rate : kept *= 1 - rate
      end
      (1 - kept) + (kept * tiny)
    end
  end
end
