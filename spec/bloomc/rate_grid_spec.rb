# frozen_string_literal: true

require "spec_helper"

# The rate asked for is a ceiling at every size: each kind with an error
# rate, over RateGrid's capacities and rates, and the scalable filter at
# 1,000 times its initial capacity. Minutes of lookups, so tagged :grid and
# run by `rake spec:grid` (its own CI step, with rates down to 0.0001 but
# for the plain filter); BLOOMC_GRID_TABLE=1 prints the rows of
# docs/RATES.md's table.
RSpec.describe "The rate at every size", :grid do
  def check(kind, point)
    puts RateGrid.row(kind, point) if ENV["BLOOMC_GRID_TABLE"]
    expect(RateGrid.broken(point)).to eq([]), "#{kind} capacity #{point.capacity} at #{point.rate}: #{point.to_h}"
  end

  # kind => [the keys it holds when its rate is the one asked for, as a
  # multiple of the capacity; the filter]. An A² filter's rate is with both
  # halves full; a stable filter's once settled, which ten times its
  # capacity in keys reaches.
  {
    "BloomFilter" => [1, ->(c, r, seed) { Bloomc::BloomFilter.new(capacity: c, error_rate: r, seed: seed) }],
    "ContinuousBloomFilter" => [1, ->(c, r, seed) { Bloomc::ContinuousBloomFilter.new(capacity: c, error_rate: r, ttl: 0, seed: seed) }],
    "BlockedBloomFilter" => [1, ->(c, r, seed) { Bloomc::BlockedBloomFilter.new(capacity: c, error_rate: r, seed: seed) }],
    "CuckooFilter" => [1, ->(c, r, seed) { Bloomc::CuckooFilter.new(capacity: c, error_rate: r, seed: seed) }],
    "CountingBloomFilter" => [1, ->(c, r, seed) { Bloomc::CountingBloomFilter.new(capacity: c, error_rate: r, seed: seed) }],
    "SpectralBloomFilter (MI)" => [1, ->(c, r, seed) { Bloomc::SpectralBloomFilter.new(capacity: c, error_rate: r, seed: seed) }],
    "SpectralBloomFilter (RM)" => [1, lambda { |c, r, seed|
      Bloomc::SpectralBloomFilter.new(capacity: c, error_rate: r, algorithm: :rm, seed: seed)
    }],
    "BitwiseBloomFilter" => [1, ->(c, r, seed) { Bloomc::BitwiseBloomFilter.new(capacity: c, error_rate: r, seed: seed) }],
    "StableBloomFilter" => [10, lambda { |c, r, seed|
      Bloomc::StableBloomFilter.new(capacity: c, error_rate: r, seed: seed, random_seed: seed)
    }],
    "A2BloomFilter" => [2, ->(c, r, seed) { Bloomc::A2BloomFilter.new(capacity: c, error_rate: r, seed: seed) }]
  }.each do |kind, (fill, build)|
    it "#{kind}: the mean rate at capacity stays within error_rate, and false_positive_rate says so" do
      RateGrid::CAPACITIES.each do |capacity|
        RateGrid.rates_for(kind).each do |rate|
          point = RateGrid.measure(capacity, rate, keys: fill * capacity, spread: capacity) { |seed| build.call(capacity, rate, seed) }
          check(kind, point)
        end
      end
    end
  end

  it "ScalableBloomFilter: the mean rate at 1,000 times the initial capacity stays within error_rate" do
    RateGrid::SCALABLE_INITIAL.product(RateGrid::SCALABLE_GROWTH, RateGrid::SCALABLE_RATES).each do |initial, growth, rate|
      point = RateGrid.measure(initial, rate, keys: initial * RateGrid::SCALABLE_FILL) do |seed|
        Bloomc::ScalableBloomFilter.new(error_rate: rate, initial_capacity: initial, growth: growth, seed: seed)
      end
      check("ScalableBloomFilter growth #{growth}", point)
    end
  end

  # Every generation alive at once (g + 1 = 5), each with +keys+ keys: the
  # four before and the newest, which measure fills. Keys of the older ones
  # are negative: never among measure's.
  it "SlidingBloomFilter: the mean rate with every generation alive stays within error_rate, at every window" do
    RateGrid::SLIDING_KEYS.product(RateGrid::SLIDING_RATES).each do |keys, rate|
      point = RateGrid.measure(keys, rate) do |seed|
        time = 0.0
        filter = Bloomc::SlidingBloomFilter.new(ttl: 100, error_rate: rate, seed: seed, clock: -> { time })
        4.times do |g|
          time = 25.0 * g
          filter.add_all(Array.new(keys) { |i| -((g * keys) + i + 1) })
        end
        time = 100.0
        filter
      end
      check("SlidingBloomFilter, #{keys} keys a generation", point)
    end
  end

  # The grid can fail: the probes and sizing of filters made before break it.
  it "fails unmixed probes sized by the formula (BloomFilter hash: :murmur3, capacity 1 at 0.001)" do
    m, k = Bloomc::BloomHelper.send(:formula_m_k, 1, 0.001)
    point = RateGrid.measure(1, 0.001) { |seed| Bloomc::BloomFilter.new(m, k, seed: seed, hash: :murmur3) }
    expect(point.measured).to be > 1.1 * 0.001 + 4 * point.sigma
    expect(RateGrid.broken(point)).not_to be_empty
  end
end
