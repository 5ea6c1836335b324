# frozen_string_literal: true

require "spec_helper"

# The hot paths allocate no Ruby object per call: a filter in a tight loop
# must not feed the garbage collector. Batch lookups allocate only their
# result Array.
RSpec.describe "allocations on the hot paths" do
  # Objects allocated by the second run of the block: the first fills the
  # call sites' method caches (objects too, here and in the block) and
  # interns what it needs once.
  def allocations
    counts = Array.new(2) do
      GC.disable
      before = GC.stat(:total_allocated_objects)
      yield
      GC.stat(:total_allocated_objects) - before
    ensure
      GC.enable
    end
    counts.last
  end

  keys = Array.new(100) { |i| "key-#{i}-#{'x' * (i % 50)}" }.freeze
  batch = (keys * 100).freeze # 10,000 keys
  filters = Kinds.sized_builders(1000, 0.01, {
    "BloomFilter" => {}, "BloomFilter (fnv1a)" => {}, "BlockedBloomFilter" => {}, "ContinuousBloomFilter" => { ttl: 3600 },
    "CountingBloomFilter" => {}, "SpectralBloomFilter (MI)" => {}, "SpectralBloomFilter (RM)" => {},
    "BitwiseBloomFilter" => {}, "StableBloomFilter" => { random_seed: 1 }, "A2BloomFilter" => {}
  }).merge(
    "ContinuousBloomFilter with its timer" => -> { Kinds.sized("ContinuousBloomFilter", 1000, 0.01, ttl: 3600).start_timer },
    # several layers: a key is looked for in each (capacity 8: the first layer's)
    "ScalableBloomFilter" => -> { Kinds.sized("ScalableBloomFilter", 8, 0.01) },
    "ScalableBloomFilter with max_capacity" => -> { Kinds.sized("ScalableBloomFilter", 8, 0.01, max_capacity: 50_000) }
  )

  # New layers come from the C heap, not Ruby's: each run of the block adds
  # keys the filter has not seen (Integers, which allocate nothing), so that
  # the measured run grows it too.
  describe "ScalableBloomFilter growing" do
    it "allocates nothing in adds and add? of new keys that start new layers" do
      filter = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 8)
      base = 0
      bits = []
      count = allocations do
        i = base
        base += 20_000
        while i < base
          filter << i
          filter.add?(i + 10_000_000)
          i += 1
        end
        bits << filter.m
      end
      expect(count).to eq(0)
      expect(bits[1]).to be > bits[0] # the measured run added layers
    end

    it "allocates nothing in add_all of new keys, with or without max_capacity (all or nothing near it)" do
      # the second batch: 10,000 keys seen in the first and 10,000 new ones;
      # with max_capacity 35,000 it has more keys than room, so it is added
      # on the path that can put the filter back, and fits
      first = Array.new(20_000) { |i| i }
      batches = [first, first.first(10_000) + Array.new(10_000) { |i| i + 100_000 }]
      [nil, 35_000].each do |max|
        filter = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 8, max_capacity: max)
        run = -1
        count = allocations { filter.add_all(batches[run += 1]) }
        expect(count).to eq(0)
        expect(filter.distinct_count).to be > 29_000
      end
    end
  end

  # count and delete, where a class has them, are hot paths too.
  describe "count and delete" do
    Kinds.sized_builders(1000, 0.01, {
      "CountingBloomFilter" => { width: 8 }, "SpectralBloomFilter (RM)" => { width: 8 }, "BitwiseBloomFilter" => {}
    }).each do |name, make|
      it "#{name} allocates nothing in 10,000 counts and deletes" do
        filter = make.call
        filter.add_all(keys)
        count = allocations do
          i = 0
          while i < 10_000
            key = keys[i % 100]
            filter.count(key)
            filter.count(:sym)
            if filter.respond_to?(:delete)
              filter.delete(key)
              filter << key
            end
            i += 1
          end
        end
        expect(count).to eq(0)
        expect(filter.count(keys[0])).to be >= 1
      end
    end
  end

  it "counts what a block allocates (the measure itself allocates nothing)" do
    expect(allocations {}).to eq(0)
    expect(allocations { Object.new }).to eq(1)
    expect(allocations { [Object.new, "s" * 2] }).to eq(3) # the Array, the Object and the String
  end

  filters.each do |name, make|
    describe name do
      let(:filter) { make.call }

      after { filter.stop_timer if filter.respond_to?(:stop_timer) }

      it "allocates nothing in 10,000 adds and 10,000 lookups of String, Symbol and small Integer keys" do
        count = allocations do
          i = 0
          while i < 10_000
            key = keys[i % 100]
            filter.add(key)
            filter.include?(key)
            filter << :sym
            filter[i]
            i += 1
          end
        end
        expect(count).to eq(0)
      end

      it "allocates nothing in add_all, count_included, all_include? and any_include? over 10,000 keys" do
        count = allocations do
          filter.add_all(batch)
          filter.count_included(batch)
          filter.all_include?(batch)
          filter.any_include?(batch)
        end
        expect(count).to eq(0)
      end

      it "allocates only the result Array in include_all" do
        results = nil
        count = allocations { results = filter.include_all(batch) }
        expect(results.size).to eq(10_000)
        expect(count).to eq(1)
      end
    end
  end
end
