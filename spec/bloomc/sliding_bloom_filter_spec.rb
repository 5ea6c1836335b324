# frozen_string_literal: true

require "spec_helper"
require "objspace"

# The sliding filter's promises (issue 34), on a simulated clock: a key is
# found until ttl after its add, gone by ttl * (1 + 1/g) but as a false
# positive, the rate within error_rate at every moment whatever the stream
# does, and memory that follows the keys of the window.
RSpec.describe Bloomc::SlidingBloomFilter do
  # A simulated clock: now, and a filter that reads it.
  let(:time) { [0.0] }
  let(:clock) { -> { time[0] } }

  def sliding(ttl: 100, error_rate: 0.01, **options)
    described_class.new(ttl: ttl, error_rate: error_rate, clock: clock, **options)
  end

  def at(seconds)
    time[0] = seconds.to_f
  end

  # Absent keys' share found: n fresh keys no add ever used.
  def measured_rate(filter, n, tag)
    filter.count_included(Array.new(n) { |i| "absent-#{tag}-#{i}" }).fdiv(n)
  end

  describe "the window" do
    it "finds every key until ttl after its add, whatever came between" do
      filter = sliding(ttl: 100, generations: 4)
      added = {}
      rng = Random.new(1)
      2000.times do |i|
        at(i * 0.37)
        key = "key-#{i}"
        filter << key
        added[key] = time[0]
        next unless (i % 50).zero?

        live = added.select { |_, t| time[0] < t + 100 }.keys
        expect(filter.include_all(live).all?).to be(true), "a live key was lost at #{time[0]}"
        expect(live.sample(20, random: rng).all? { |key2| filter.include?(key2) }).to be(true)
      end
    end

    it "has forgotten every key by ttl * (1 + 1/g), but for false positives" do
      [1, 4, 8].each do |g|
        at(0)
        filter = sliding(ttl: 80, generations: g)
        keys = Array.new(3000) { |i| "old-#{g}-#{i}" }
        keys.each_with_index do |key, i|
          at(i * 0.01)
          filter << key
        end
        at(29.99 + 80 * (1 + 1.0 / g)) # the last key's end, and a little
        filter << "renewal" # a write too: the ended generations go
        found = filter.count_included(keys)
        expect(found).to be <= 3000 * 0.01 * 2, "g #{g}: #{found} of 3000 expired keys still found"
        expect(filter.windows.size).to be <= 2
      end
    end

    it "renews a key added again: it lives ttl from its last add" do
      filter = sliding(ttl: 10, generations: 2)
      at(0)
      filter << "k"
      at(9)
      expect(filter.add?("k")).to be_nil # present: not new
      at(18)
      expect(filter.include?("k")).to be(true)
      at(9 + 10 * 1.5 + 0.01)
      filter << "other"
      expect(filter.windows.map { |w| w[:keys] }.sum).to eq(1)
    end

    it "stays within error_rate at every moment of a stream whose rate swings 10x and bursts 100x" do
      rates = []
      [11, 12].each do |seed|
        filter = sliding(ttl: 60, error_rate: 0.01, seed: seed, first_size: 64)
        n = 0
        (0...600).each do |second|
          at(second)
          rate = second.between?(200, 260) ? 2000 : 20 + 180 * (1 + Math.sin(second / 50.0)) / 2
          keys = Array.new(rate.round) { "s#{seed}-#{n += 1}" }
          filter.add_all(keys)
          next unless (second % 20).zero?

          rate_now = measured_rate(filter, 20_000, "#{seed}-#{second}")
          rates << rate_now
          expect(filter.false_positive_rate).to be <= 0.0101
        end
      end
      sigma = Math.sqrt(0.01 * 0.99 / 20_000)
      expect(rates.max).to be <= 0.01 + 4 * sigma
      expect(rates.sum / rates.size).to be <= 0.01
    end
  end

  describe "memory" do
    it "follows the keys of the window: at most 2.5x a plain filter at a steady rate, and back after a burst" do
      filter = sliding(ttl: 100, error_rate: 0.01, first_size: 64)
      n = 0
      bytes_at = {}
      (0...600).each do |second|
        at(second)
        rate = second.between?(300, 399) ? 10_000 : 1000 # 100k keys in a window, 1M in the burst's
        filter.add_all(Array.new(rate) { "m-#{n += 1}" })
        bytes_at[second] = ObjectSpace.memsize_of(filter)
      end
      plain = ObjectSpace.memsize_of(Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01))
      steady = bytes_at[299]
      expect(steady).to be <= 2.5 * plain
      expect(bytes_at[380]).to be > 5 * steady # the burst took memory
      # 2 ttl after the burst's end
      expect(bytes_at[599]).to be <= 1.3 * steady
    end

    it "raises CapacityError at max_bytes and keeps every key it took" do
      filter = sliding(ttl: 100, first_size: 64, max_bytes: 8192)
      taken = []
      expect do
        10_000.times do |i|
          filter << "cap-#{i}"
          taken << "cap-#{i}"
        end
      end.to raise_error(Bloomc::CapacityError, /max_bytes of 8192/)
      expect(filter.include_all(taken).all?).to be(true)
      expect(ObjectSpace.memsize_of(filter)).to be < 8192 + 8192
    end
  end

  describe "its clock" do
    it "reads the monotonic clock by default" do
      filter = described_class.new(ttl: 0.2, error_rate: 0.01, generations: 4)
      filter << "soon gone"
      expect(filter.include?("soon gone")).to be(true)
      sleep 0.3
      filter << "later"
      expect(filter.windows.size).to eq(1)
      expect(filter.clock).to be_nil
    end

    it "refuses a clock that cannot be called or reads no time, and is left as it was" do
      filter = sliding
      filter << "a"
      expect { filter.clock = 5 }.to raise_error(TypeError, /responds to call/)
      expect { described_class.new(ttl: 1, error_rate: 0.01, clock: -> { "noon" }) }.to raise_error(TypeError)
      time[0] = Float::NAN
      expect { filter << "b" }.to raise_error(RangeError, /no time a filter takes/)
      at(1)
      expect(filter.include?("a")).to be(true)
    end

    it "lets a frozen filter's clock stand still" do
      filter = sliding(ttl: 10)
      at(0)
      filter << "k"
      frozen = filter.dup.freeze
      at(100)
      expect(frozen.include?("k")).to be(true)
      expect(filter.include?("k")).to be(false)
      expect(Ractor.shareable?(Ractor.make_shareable(described_class.new(ttl: 10, error_rate: 0.01).freeze))).to be(true)
    end
  end

  describe "everywhere a filter goes" do
    it "copies, compares and dumps with its keys' ages" do
      filter = sliding(ttl: 50)
      20.times do |i|
        at(i * 5)
        filter << "d-#{i}"
      end
      copy = filter.dup
      expect(copy).to eq(filter)
      expect(copy.hash).to eq(filter.hash)
      loaded = described_class.load(filter.dump, clock: clock)
      expect(loaded).to eq(filter)
      expect(Marshal.load(Marshal.dump(filter))).to eq(filter)
      at(95 + 50 * 1.25 + 0.1) # every key has ended in each of them
      [filter, copy, loaded].each { |f| f << "x" }
      expect([filter, copy, loaded].map { |f| f.windows.sum { |w| w[:keys] } }).to eq([1, 1, 1])
    end

    # Its JSON form raised KeyError (no names for kind 12), so info --json
    # and serve's NAME.json failed on a sliding filter.
    it "has a JSON form naming its generations, layers and times" do
      require "bloomc/json_representation"
      filter = sliding(ttl: 40)
      at(0)
      filter << "a"
      at(15) # a second generation
      filter.add_all(Array.new(3000) { |i| "j-#{i}" }) # and a second layer in it
      doc = Bloomc::Format.json_representation(filter)
      parameters = doc["parameters"]
      expect(parameters.keys).to eq(%w[seed hash error_rate ttl generations first_size count live_generations layers
                                       generation_parameters seconds_since wall_time layer_parameters])
      expect(parameters.values_at("ttl", "live_generations", "count")).to eq([40, 2, 3001])
      generations = parameters["generation_parameters"]
      expect(generations.map { |g| g["layers"] }.sum).to eq(parameters["layers"]).and eq(parameters["layer_parameters"].size)
      expect(generations.map { |g| g["age"] }).to eq([15, 0])
      expect(parameters["layer_parameters"].sum { |l| l["count"] }).to be_between(2950, 3001) # keys new to each layer
      expect(parameters["wall_time"]).to be_within(60).of(Time.now.to_f)
      expect(JSON.parse(filter.to_json)["kind"]).to eq("SlidingBloomFilter")
    end

    it "ages across processes by the wall time between save and load" do
      filter = described_class.new(ttl: 1.0, error_rate: 0.01, generations: 4)
      keys = Array.new(200) { |i| "w-#{i}" }
      filter.add_all(keys)
      data = filter.dump
      sleep 0.5
      loaded = described_class.load(data)
      expect(loaded.count_included(keys)).to eq(200) # 0.5 s old: within its ttl
      sleep 0.9 # 1.4 s old: past 1.25 ttl
      expect(loaded.count_included(keys)).to be <= 10
    end

    it "reports the stats of its live keys" do
      filter = sliding(ttl: 10)
      at(0)
      filter.add_all(Array.new(5000) { |i| "st-#{i}" })
      expect(filter.estimated_count).to be_within(250).of(5000)
      expect(filter.fill_ratio).to be_between(0.2, 0.8)
      expect(filter.false_positive_rate).to be <= 0.01
      expect(filter.distinct_count).to be_within(50).of(5000) # less the keys found before their add
      at(20)
      expect(filter.estimated_count).to eq(0.0)
      expect(filter.m).to eq(0)
      expect(filter.fill_ratio).to eq(0.0)
      expect(filter.false_positive_rate).to eq(0.0)
    end

    it "answers batches as single keys" do
      filter = sliding(ttl: 10)
      keys = Array.new(3000) { |i| "b-#{i}" }
      fresh = sliding(ttl: 10)
      twin = sliding(ttl: 10)
      expect(fresh.add_new(keys + keys.first(10))).to eq((keys + keys.first(10)).select { |key| twin.add?(key) })
      filter.add_all(keys)
      probes = keys + Array.new(3000) { |i| "nb-#{i}" }
      expect(filter.include_all(probes)).to eq(probes.map { |key| filter.include?(key) })
      expect(filter.count_included(probes)).to eq(probes.count { |key| filter.include?(key) })
    end

    it "cannot be combined" do
      filter = sliding
      filter << "a"
      [-> { filter | filter.dup }, -> { filter & filter.dup }, -> { filter.merge!(filter.dup) }].each do |op|
        expect(&op).to raise_error(Bloomc::UnsupportedError, /cannot be combined/)
      end
      expect { filter | sliding(ttl: 50) }.to raise_error(ArgumentError, /different ttl/)
      expect { filter.freeze.merge!(filter.dup) }.to raise_error(FrozenError)
    end
  end
end
