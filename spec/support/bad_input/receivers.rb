# frozen_string_literal: true

# The receivers of each class, built fresh for each example: live, frozen
# and view objects with their models (models.rb).
module BadInputMatrix
  # The filters: per class, its model, the keys its receivers hold and one
  # row per receiver: [label, new's arguments (keywords last, as a Hash),
  # and :empty for a receiver without the keys or :frozen for one frozen
  # once it holds them].
  FILTER_RECEIVERS = {
    Bloomc::BloomFilter => [BloomHarness, ["a", :b, 7, 2**70, "\u65e5\u672c"], [
      ["BloomFilter.new(64, 3)", [64, 3]],
      ["BloomFilter.new(1, 1)", [1, 1], :empty],
      ["fnv1a filter by capacity", [{ capacity: 50, error_rate: 0.01, hash: :fnv1a }]],
      ["BloomFilter.new(200, 128, seed: 2**32-1)", [200, 128, { seed: 2**32 - 1 }]],
      ["frozen BloomFilter", [64, 3], :frozen]
    ]],
    Bloomc::ContinuousBloomFilter => [ContinuousHarness, ["a", :b, 7, 2**70], [
      ["ContinuousBloomFilter.new(32, 3, 0)", [32, 3, 0]],
      ["ContinuousBloomFilter.new(5, 10, 0, hash: :fnv1a)", [5, 10, 0, { hash: :fnv1a }]],
      ["ContinuousBloomFilter.new(capacity: 20, error_rate: 0.1, ttl: 60, seed: 99)",
       [{ capacity: 20, error_rate: 0.1, ttl: 60, seed: 99 }]],
      ["frozen ContinuousBloomFilter.new(16, 2, 60)", [16, 2, 60], :frozen],
      ["frozen ContinuousBloomFilter.new(16, 2, 0)", [16, 2, 0], :frozen]
    ]],
    Bloomc::BlockedBloomFilter => [BlockedHarness, ["a", :b, 7, 2**70, "\u65e5\u672c"], [
      ["BlockedBloomFilter.new(512, 3)", [512, 3]],
      ["BlockedBloomFilter.new(1, 1)", [1, 1], :empty],
      ["BlockedBloomFilter by capacity", [{ capacity: 50, error_rate: 0.01, seed: 7 }]],
      ["BlockedBloomFilter.new(2000, 128, seed: 2**32-1)", [2000, 128, { seed: 2**32 - 1 }]],
      ["frozen BlockedBloomFilter", [1024, 3], :frozen]
    ]],
    Bloomc::CountingBloomFilter => [CellsHarness, ["a", :b, 7, 2**70, "a", "a"], [
      ["CountingBloomFilter.new(64, 3)", [64, 3]],
      ["CountingBloomFilter.new(1, 1)", [1, 1], :empty],
      ["CountingBloomFilter.new(1, 1, width: 1) with keys", [1, 1, { width: 1 }]],
      ["CountingBloomFilter by capacity, width 2", [{ capacity: 20, error_rate: 0.01, width: 2 }]],
      ["CountingBloomFilter.new(200, 128, width: 32, seed: 2**32-1)", [200, 128, { width: 32, seed: 2**32 - 1 }]],
      ["frozen CountingBloomFilter", [64, 3], :frozen]
    ]],
    Bloomc::SpectralBloomFilter => [CellsHarness, ["a", :b, 7, 2**70, "a", "a"], [
      ["SpectralBloomFilter.new(64, 3) (MI)", [64, 3]],
      ["SpectralBloomFilter.new(64, 3, algorithm: :rm, width: 2)", [64, 3, { algorithm: :rm, width: 2 }]],
      ["SpectralBloomFilter.new(1, 1, algorithm: :rm, secondary_m: 1)", [1, 1, { algorithm: :rm, secondary_m: 1 }]],
      ["SpectralBloomFilter RM by capacity, width 32", [{ capacity: 20, error_rate: 0.01, algorithm: :rm, width: 32, seed: 3 }]],
      ["SpectralBloomFilter.new(1, 1, width: 1) (MI)", [1, 1, { width: 1 }]],
      ["frozen SpectralBloomFilter (MI)", [64, 3], :frozen],
      ["frozen SpectralBloomFilter (RM)", [64, 3, { algorithm: :rm }], :frozen]
    ]],
    Bloomc::BitwiseBloomFilter => [CellsHarness, ["a", :b, 7, 2**70, "a", "a", "a"], [
      ["BitwiseBloomFilter.new(64, 3, width: 1)", [64, 3, { width: 1 }]],
      ["BitwiseBloomFilter.new(1, 1, width: 1)", [1, 1, { width: 1 }]],
      ["BitwiseBloomFilter by capacity", [{ capacity: 20, error_rate: 0.01, seed: 9 }]],
      ["BitwiseBloomFilter.new(50, 128, width: 32)", [50, 128, { width: 32 }]],
      ["frozen BitwiseBloomFilter", [64, 3, { width: 1 }], :frozen]
    ]],
    # random_seed: the cells an add decrements, the same on every run
    Bloomc::StableBloomFilter => [StableHarness, ["a", :b, 7, 2**70, "c", "d", "e", "f", "g"], [
      ["StableBloomFilter.new(64, 3, 5)", [64, 3, 5, { random_seed: 1 }]],
      ["StableBloomFilter.new(1, 1, 1, width: 1)", [1, 1, 1, { random_seed: 1, width: 1 }]],
      ["StableBloomFilter.new(8, 3, 8, width: 2)", [8, 3, 8, { random_seed: 1, width: 2 }]],
      ["StableBloomFilter by capacity, width 2", [{ random_seed: 1, capacity: 20, error_rate: 0.05, width: 2, seed: 4 }]],
      ["StableBloomFilter.new(16, 2, 16, width: 32)", [16, 2, 16, { random_seed: 1, width: 32 }]],
      ["frozen StableBloomFilter", [64, 3, 5, { random_seed: 2 }], :frozen]
    ]],
    Bloomc::A2BloomFilter => [A2Harness, ["a", :b, 7, 2**70, "c", "d", "e", "a", "f"], [
      ["A2BloomFilter.new(64, 3)", [64, 3]],
      ["A2BloomFilter.new(2, 1, capacity: 1)", [2, 1, { capacity: 1 }]],
      ["A2BloomFilter by capacity 3", [{ capacity: 3, error_rate: 0.01, seed: 2**32 - 1 }]],
      ["A2BloomFilter.new(301, 128, capacity: 2)", [301, 128, { capacity: 2 }]],
      ["frozen A2BloomFilter", [64, 3, { capacity: 3 }], :frozen]
    ]],
    Bloomc::ScalableBloomFilter => [ScalableHarness, ["a", :b, 7, 2**70, "\u65e5\u672c", "c"], [
      ["ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1) (3 layers)", [{ error_rate: 0.01, initial_capacity: 1 }]],
      ["ScalableBloomFilter.new(error_rate: 0.1)", [{ error_rate: 0.1 }], :empty],
      ["ScalableBloomFilter with max_capacity: 60, growth: 1.5, seed: 2**32-1",
       [{ error_rate: 0.05, initial_capacity: 2, growth: 1.5, max_capacity: 60, seed: 2**32 - 1 }]],
      ["ScalableBloomFilter with growth: 1.25, even_layers: 0, tightening: 0.85",
       [{ error_rate: 0.01, initial_capacity: 2, growth: 1.25, even_layers: 0, tightening: 0.85 }]],
      ["frozen ScalableBloomFilter", [{ error_rate: 0.01, initial_capacity: 2 }], :frozen]
    ]],
    Bloomc::SlidingBloomFilter => [SlidingHarness, ["a", :b, 7, 2**70, "\u65e5\u672c", "c"], [
      ["SlidingBloomFilter.new(ttl: 3600, error_rate: 0.01)", [{ ttl: 3600, error_rate: 0.01 }]],
      ["empty SlidingBloomFilter", [{ ttl: 3600, error_rate: 0.1 }], :empty],
      ["SlidingBloomFilter with generations: 1, first_size: 64, seed: 2**32-1",
       [{ ttl: 1e6, error_rate: 0.05, generations: 1, first_size: 64, seed: 2**32 - 1 }]],
      ["SlidingBloomFilter on a clock that stands still", [{ ttl: 0.5, error_rate: 0.01, clock: -> { 7 } }]],
      ["frozen SlidingBloomFilter", [{ ttl: 3600, error_rate: 0.01, generations: 8 }], :frozen]
    ]],
    Bloomc::CuckooFilter => [CuckooHarness, ["a", :b, 7, 2**70, "\u65e5\u672c"], [
      ["CuckooFilter.new(buckets: 16, fingerprint_bits: 8)", [{ buckets: 16, fingerprint_bits: 8 }]],
      ["empty CuckooFilter.new(buckets: 16, fingerprint_bits: 32)", [{ buckets: 16, fingerprint_bits: 32 }], :empty],
      ["CuckooFilter by capacity, seed 2**32-1", [{ capacity: 40, error_rate: 0.001, seed: 2**32 - 1 }]],
      ["frozen CuckooFilter", [{ buckets: 16, fingerprint_bits: 12 }], :frozen]
    ]]
  }.freeze

  def self.filter_receiver(klass, model, keys, (label, args, holds))
    *positional, options = args.last.is_a?(Hash) ? args : [*args, {}]
    filter = klass.new(*positional, **options)
    model.holding(label, filter, holds == :empty ? [] : keys, frozen: holds == :frozen)
  end

  RECEIVERS = {
    Bloomc::BitField => lambda do
      filled = Bloomc::BitField.new(70).tap { |f| [0, 3, 63, 64, 69].each { |i| f.set(i) } }
      owner = Bloomc::BloomFilter.new(64, 3).tap { |f| %w[a b c].each { |k| f << k } }
      frozen_owner = Bloomc::BloomFilter.new(64, 3).tap { |f| %w[a b c].each { |k| f << k } }.freeze
      [
        BitFieldHarness.new("BitField.new(1)", Bloomc::BitField.new(1)),
        BitFieldHarness.new("BitField.new(70) with bits", filled),
        BitFieldHarness.new("frozen BitField", filled.dup.freeze),
        BitFieldHarness.new("BloomFilter#bits", owner.bits, owner: owner),
        BitFieldHarness.new("frozen BloomFilter#bits", frozen_owner.bits, owner: frozen_owner)
      ]
    end,
    Bloomc::BitBucketField => lambda do
      field = lambda do |bits, size|
        f = Bloomc::BitBucketField.new(bits, size)
        max = 2**bits - 1
        (0...size).step(3) { |i| f[i] = [max, 1, max / 2][i % 3] }
        f
      end
      owner = Bloomc::ContinuousBloomFilter.new(20, 3, 0).tap { |f| f << "a" << "b" }
      frozen_owner = Bloomc::ContinuousBloomFilter.new(20, 3, 0).tap { |f| f << "a" << "b" }.freeze
      [
        BucketFieldHarness.new("BitBucketField.new(1, 9)", field[1, 9]),
        BucketFieldHarness.new("BitBucketField.new(3, 11)", field[3, 11]),
        BucketFieldHarness.new("BitBucketField.new(31, 5)", field[31, 5]),
        BucketFieldHarness.new("BitBucketField.new(32, 3)", field[32, 3]),
        BucketFieldHarness.new("frozen BitBucketField.new(7, 6)", field[7, 6].freeze),
        BucketFieldHarness.new("ContinuousBloomFilter#buckets", owner.buckets, owner: owner),
        BucketFieldHarness.new("frozen ContinuousBloomFilter#buckets", frozen_owner.buckets, owner: frozen_owner)
      ]
    end,
    # built once from its keys, never added to
    Bloomc::BinaryFuseFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c", "a"]
      [
        FuseHarness.new("BinaryFuseFilter.build(keys)", Bloomc::BinaryFuseFilter.build(keys), keys),
        FuseHarness.new("BinaryFuseFilter.build([])", Bloomc::BinaryFuseFilter.build([]), []),
        FuseHarness.new("BinaryFuseFilter.build(keys, fingerprint_bits: 16, seed: 9)",
                        Bloomc::BinaryFuseFilter.build(keys, fingerprint_bits: 16, seed: 9), keys),
        FuseHarness.new("frozen BinaryFuseFilter", Bloomc::BinaryFuseFilter.build(keys).freeze, keys)
      ]
    end
  }.merge(
    FILTER_RECEIVERS.to_h do |klass, (model, keys, rows)|
      [klass, -> { rows.map { |row| filter_receiver(klass, model, keys, row) } }]
    end,
    [Bloomc::FNV, Bloomc::Murmur3, Bloomc::CRC32C, Bloomc::BloomHelper].to_h { |mod| [mod, -> { [Stateless.new(mod.name, mod)] }] }
  ).freeze
end
