# frozen_string_literal: true

require "spec_helper"

# hash: :murmur3_mixed: the probe values of :murmur3 (enhanced double hashing
# of the key's MurmurHash3 x64_128), each passed through MurmurHash3's fmix64
# before it picks a cell, so that one key's probes behave as independent at
# any m (bf_probe.h).
RSpec.describe "hash: :murmur3_mixed" do
  mask = 2**64 - 1
  # MurmurHash3's 64-bit finalizer, as its reference (Austin Appleby's
  # MurmurHash3.cpp, fmix64) gives it: an independent model of the C one.
  fmix64 = lambda do |k|
    k ^= k >> 33
    k = (k * 0xff51afd7ed558ccd) & mask
    k ^= k >> 33
    k = (k * 0xc4ceb9fe1a85ec53) & mask
    k ^ (k >> 33)
  end
  positions = lambda do |key, k, m|
    h = Bloomc::Murmur3.hash128(key)
    h1 = h & mask
    h2 = h >> 64
    (0...k).map { |i| (fmix64.call((h1 + i * h2 + (i**3 - i) / 6) & mask) * m) >> 64 }
  end

  it "sets, for each key, the cells floor(fmix64(x_i) * m / 2^64) of its probe values x_i" do
    [[11, 5], [1000, 7], [95_851, 13]].each do |m, k|
      %w[key hello 日本].each do |key|
        filter = Bloomc::BloomFilter.new(m, k, hash: :murmur3_mixed) << key
        set = filter.bits.each_with_index.select { |b, _| b == 1 }.map(&:last)
        expect(set).to eq(positions.call(key, k, m).uniq.sort)
      end
    end
  end

  it "is the default of new filters, and says so: hash_function, the saved filter and its copy keep it" do
    filter = Bloomc::BloomFilter.new(capacity: 50, error_rate: 0.01, seed: 9).add_all(%w[a b])
    copy = Bloomc.load(filter.dump)
    expect([filter.hash_function, copy.hash_function, filter.dup.hash_function]).to all(eq(:murmur3_mixed))
    expect(copy).to eq(filter)
    expect(copy.include_all(%w[a b])).to eq([true, true])
    expect(filter).not_to eq(Bloomc::BloomFilter.new(capacity: 50, error_rate: 0.01, seed: 9, hash: :murmur3).add_all(%w[a b]))
    continuous = Bloomc::ContinuousBloomFilter.new(200, 4, 0) << "c"
    expect([continuous.hash_function, Bloomc.load(continuous.dump).hash_function]).to eq(%i[murmur3_mixed murmur3_mixed])
  end

  # The rate of m cells and k independent probes after n keys, over the key
  # sets: X cells set of m after kn throws; a filter answers (X/m)^k of the
  # absent keys. Its mean and variance over X's exact distribution.
  def independent_rate(m, k, n)
    dist = set_cells_distribution(m, k * n)
    rates = dist.each_index.map { |j| (j.to_f / m)**k }
    mean = dist.zip(rates).sum { |p, r| p * r }
    [mean, dist.zip(rates).sum { |p, r| p * (r - mean)**2 }]
  end

  # Averaged over many filters (a small filter's rate is its key set's), each
  # probed with absent keys: within 4 sigma of the independent rate, where
  # :murmur3's probes measure 2.6-3.6x it at these sizes.
  [[1, 0.01, 3000], [10, 0.001, 1000], [3, 0.0001, 3000]].each do |capacity, error_rate, filters|
    it "answers at the rate of independent probes, averaged over #{filters} filters of capacity #{capacity} " \
       "at #{error_rate}" do
      shape = Bloomc::BloomFilter.new(capacity: capacity, error_rate: error_rate)
      probes = 300
      mean, variance = independent_rate(shape.m, shape.k, capacity)
      measured = %i[murmur3_mixed murmur3].to_h do |hash|
        hits = (0...filters).sum do |s|
          filter = Bloomc::BloomFilter.new(shape.m, shape.k, hash: hash).add_all(Array.new(capacity) { |i| "in-#{s}-#{i}" })
          filter.count_included(Array.new(probes) { |j| "out-#{s}-#{j}" })
        end
        [hash, hits.fdiv(filters * probes)]
      end
      sigma = Math.sqrt(variance / filters + mean / (filters * probes))
      expect(measured[:murmur3_mixed]).to be_within(4 * sigma).of(mean)
      expect(measured[:murmur3]).to be > mean + 4 * sigma # the layout it replaces, for contrast
    end
  end
end
