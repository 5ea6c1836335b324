# frozen_string_literal: true

# The false-positive rate filters really have, measured over a grid of
# capacities and rates (spec/bloomc/rate_grid_spec.rb, `rake spec:grid`).
#
# A small filter's rate depends on which keys it holds, so a point is the
# mean over many filters, each of other probes (its seed), each holding the
# keys 0...capacity and asked about absent keys. Enough lookups that 4
# standard deviations of that mean are at most a tenth of the rate: sigma is
# taken from the spread of the filters' own rates, so it counts both the
# filters' differences and the draws (and is never below the draws' alone).
module RateGrid
  CAPACITIES = [1, 2, 3, 5, 10, 30, 100, 1_000, 100_000].freeze
  RATES = [0.5, 0.1, 0.01, 0.001, 0.0001, 0.00001].freeze
  # The scalable filter, at 1,000 times its initial capacity.
  SCALABLE_INITIAL = [1, 10, 100, 8192].freeze
  SCALABLE_GROWTH = [1.25, 2, 4].freeze
  SCALABLE_RATES = [0.01, 0.001].freeze
  SCALABLE_FILL = 1000
  # The sliding filter: keys a generation, with five alive.
  SLIDING_KEYS = [1, 5, 100, 3_000].freeze
  SLIDING_RATES = [0.01, 0.001].freeze

  # Lookups per point: rate * lookups >= 2,400 false positives, so that the
  # draws alone put 4 sigma near rate / 12.
  LOOKUP_BUDGET = 2400
  ABSENT_FROM = 2**40 # never among the keys added, 0...capacity
  ABSENT_COUNT = 4_000_000

  Point = Struct.new(:capacity, :rate, :m, :k, :filters, :lookups, :measured, :sigma, :reported, :formula, keyword_init: true)

  module_function

  def absent = @absent ||= Array.new(ABSENT_COUNT) { |i| ABSENT_FROM + i }.freeze

  # Fewer filters as they grow (their rates vary less from keys to keys),
  # and more when one filter's share of lookups would pass ABSENT_COUNT. The
  # lookups are shared out among them: a small filter costs little to make,
  # and many of them take the filters' spread off sigma for the same lookups.
  def filters_for(capacity, rate)
    base = if capacity <= 3 then 16_000
           elsif capacity <= 30 then 6400
           elsif capacity <= 100 then 1600
           elsif capacity <= 100_000 then 16
           else 2
           end
    [base, lookups_for(rate).fdiv(ABSENT_COUNT).ceil].max
  end

  def lookups_for(rate) = (LOOKUP_BUDGET / rate).ceil

  # The rates measured for a kind: all of RATES, unless BLOOMC_GRID_RATES
  # names a floor (CI's quick pass: BLOOMC_GRID_RATES=0.0001 leaves out
  # the lookups of 0.00001, nine tenths of the time, for every kind but the
  # plain filter).
  def rates_for(kind)
    floor = ENV["BLOOMC_GRID_RATES"]&.then { |v| Float(v) }
    floor && kind != "BloomFilter" ? RATES.select { |rate| rate >= floor } : RATES
  end

  # build.call(seed) gives an empty filter; keys is how many it gets (its
  # capacity, or more for the kinds whose rate is that of a fuller filter),
  # and spread the size that tells how much filters differ (a scalable
  # filter's keys, where its last layers hold most of them; the others'
  # capacity). Where the filters differ more than their number allows for
  # (4 sigma above a tenth of the rate), as many again are measured, up to
  # 16 times the first number.
  def measure(capacity, rate, keys: capacity, spread: keys, &build)
    first = filters_for(spread, rate)
    per = lookups_for(rate).fdiv(first).ceil
    added = (0...keys).to_a
    rates = []
    reported = []
    shape = nil
    loop do
      rates.size.clamp(first..).times do
        seed = rates.size
        filter = build.call(seed)
        added.each_slice(1 << 20) { |slice| filter.add_all(slice) }
        start = (seed * per) % (ABSENT_COUNT - per + 1)
        rates << filter.count_included(absent[start, per]).fdiv(per)
        reported << filter.false_positive_rate
        shape ||= [filter.m, filter.respond_to?(:k) ? filter.k : nil]
      end
      point = summary(capacity, rate, keys, shape, rates, reported, per)
      return point if 4 * point.sigma <= rate / 10 || rates.size >= 16 * first
    end
  end

  def summary(capacity, rate, keys, shape, rates, reported, per)
    n = rates.size
    mean = rates.sum / n
    spread = Math.sqrt(rates.sum { |r| (r - mean)**2 } / (n - 1))
    # never below the draws' own sigma (a spread over few filters can be)
    sigma = [spread / Math.sqrt(n), Math.sqrt(mean * (1 - mean) / (per * n))].max
    Point.new(capacity: capacity, rate: rate, m: shape[0], k: shape[1], filters: n, lookups: per * n,
              measured: mean, sigma: sigma, reported: reported.sum / n,
              formula: shape[1] && keys == capacity ? formula(shape[0], shape[1], keys) : nil)
  end

  def formula(m, k, n) = (1 - (1 - 1.0 / m)**(k * n))**k

  # The three promises, as failure messages (empty: all kept).
  def broken(point)
    rate = point.rate
    measured = point.measured
    sigma = point.sigma
    [("4 sigma #{fmt(4 * sigma)} is more than a tenth of the rate" if 4 * sigma > rate / 10),
     ("measured #{fmt(measured)} passes #{fmt(rate)} x 1.1 + 4 sigma" if measured > 1.1 * rate + 4 * sigma),
     ("reports #{fmt(point.reported)}, below the measured #{fmt(measured)} - 4 sigma" if point.reported < measured - 4 * sigma)].compact
  end

  def fmt(x) = format("%.3g", x)

  # A Markdown row of docs/FILTERS.md's table.
  def row(kind, point)
    ratio = ->(x) { format("%.2f", x / point.rate) }
    "| #{kind} | #{point.capacity} | #{point.rate} | #{point.m} | #{point.k || '-'} | " \
      "#{point.formula ? ratio[point.formula] : '-'} | #{ratio[point.measured]} ± #{ratio[point.sigma]} | #{ratio[point.reported]} |"
  end
end
