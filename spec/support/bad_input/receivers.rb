# frozen_string_literal: true

# The receivers of each class, built fresh for each example: live, frozen
# and view objects with their models (models.rb).
module BadInputMatrix
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
    Bloomc::BloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c"]
      filled = ->(*args, **kw) { Bloomc::BloomFilter.new(*args, **kw).tap { |f| keys.each { |k| f << k } } }
      [
        BloomHarness.new("BloomFilter.new(64, 3)", filled[64, 3], keys),
        BloomHarness.new("BloomFilter.new(1, 1)", Bloomc::BloomFilter.new(1, 1)),
        BloomHarness.new("fnv1a filter by capacity", filled[capacity: 50, error_rate: 0.01, hash: :fnv1a], keys),
        BloomHarness.new("BloomFilter.new(200, 128, seed: 2**32-1)", filled[200, 128, seed: 2**32 - 1], keys),
        BloomHarness.new("frozen BloomFilter", filled[64, 3].freeze, keys)
      ]
    end,
    Bloomc::ContinuousBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70]
      filled = ->(*args, **kw) { Bloomc::ContinuousBloomFilter.new(*args, **kw).tap { |f| keys.each { |k| f << k } } }
      [
        ContinuousHarness.new("ContinuousBloomFilter.new(32, 3, 0)", filled[32, 3, 0], keys),
        ContinuousHarness.new("ContinuousBloomFilter.new(5, 10, 0, hash: :fnv1a)", filled[5, 10, 0, hash: :fnv1a], keys),
        ContinuousHarness.new("ContinuousBloomFilter.new(capacity: 20, error_rate: 0.1, ttl: 60, seed: 99)",
                              filled[capacity: 20, error_rate: 0.1, ttl: 60, seed: 99], keys),
        ContinuousHarness.new("frozen ContinuousBloomFilter.new(16, 2, 60)", filled[16, 2, 60].freeze, keys),
        ContinuousHarness.new("frozen ContinuousBloomFilter.new(16, 2, 0)", filled[16, 2, 0].freeze, keys)
      ]
    end,
    Bloomc::BlockedBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c"]
      filled = ->(*args, **kw) { Bloomc::BlockedBloomFilter.new(*args, **kw).tap { |f| keys.each { |k| f << k } } }
      [
        BlockedHarness.new("BlockedBloomFilter.new(512, 3)", filled[512, 3], keys),
        BlockedHarness.new("BlockedBloomFilter.new(1, 1)", Bloomc::BlockedBloomFilter.new(1, 1)),
        BlockedHarness.new("BlockedBloomFilter by capacity", filled[capacity: 50, error_rate: 0.01, seed: 7], keys),
        BlockedHarness.new("BlockedBloomFilter.new(2000, 128, seed: 2**32-1)", filled[2000, 128, seed: 2**32 - 1], keys),
        BlockedHarness.new("frozen BlockedBloomFilter", filled[1024, 3].freeze, keys)
      ]
    end,
    Bloomc::CountingBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "a", "a"]
      make = ->(label, keys_in = keys, **kw) { CellsHarness.new(label, Bloomc::CountingBloomFilter.new(*kw.delete(:mk), **kw), keys_in) }
      [
        make["CountingBloomFilter.new(64, 3)", mk: [64, 3]],
        make["CountingBloomFilter.new(1, 1)", [], mk: [1, 1]],
        make["CountingBloomFilter.new(1, 1, width: 1) with keys", mk: [1, 1], width: 1],
        make["CountingBloomFilter by capacity, width 2", mk: [], capacity: 20, error_rate: 0.01, width: 2],
        make["CountingBloomFilter.new(200, 128, width: 32, seed: 2**32-1)", mk: [200, 128], width: 32, seed: 2**32 - 1],
        CellsHarness.new("frozen CountingBloomFilter", Bloomc::CountingBloomFilter.new(64, 3).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::SpectralBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "a", "a"]
      make = ->(label, *mk, **kw) { CellsHarness.new(label, Bloomc::SpectralBloomFilter.new(*mk, **kw), keys) }
      frozen = lambda do |label, **kw|
        CellsHarness.new(label, Bloomc::SpectralBloomFilter.new(64, 3, **kw).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      end
      [
        make["SpectralBloomFilter.new(64, 3) (MI)", 64, 3],
        make["SpectralBloomFilter.new(64, 3, algorithm: :rm, width: 2)", 64, 3, algorithm: :rm, width: 2],
        make["SpectralBloomFilter.new(1, 1, algorithm: :rm, secondary_m: 1)", 1, 1, algorithm: :rm, secondary_m: 1],
        make["SpectralBloomFilter RM by capacity, width 32", capacity: 20, error_rate: 0.01, algorithm: :rm, width: 32, seed: 3],
        make["SpectralBloomFilter.new(1, 1, width: 1) (MI)", 1, 1, width: 1],
        frozen["frozen SpectralBloomFilter (MI)"],
        frozen["frozen SpectralBloomFilter (RM)", algorithm: :rm]
      ]
    end,
    Bloomc::BitwiseBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "a", "a", "a"]
      make = ->(label, *mk, **kw) { CellsHarness.new(label, Bloomc::BitwiseBloomFilter.new(*mk, **kw), keys) }
      [
        make["BitwiseBloomFilter.new(64, 3, width: 1)", 64, 3, width: 1],
        make["BitwiseBloomFilter.new(1, 1, width: 1)", 1, 1, width: 1],
        make["BitwiseBloomFilter by capacity", capacity: 20, error_rate: 0.01, seed: 9],
        make["BitwiseBloomFilter.new(50, 128, width: 32)", 50, 128, width: 32],
        CellsHarness.new("frozen BitwiseBloomFilter", Bloomc::BitwiseBloomFilter.new(64, 3, width: 1).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::StableBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "c", "d", "e", "f", "g"]
      make = ->(label, *mk, **kw) { StableHarness.new(label, Bloomc::StableBloomFilter.new(*mk, random_seed: 1, **kw), keys) }
      [
        make["StableBloomFilter.new(64, 3, 5)", 64, 3, 5],
        make["StableBloomFilter.new(1, 1, 1, width: 1)", 1, 1, 1, width: 1],
        make["StableBloomFilter.new(8, 3, 8, width: 2)", 8, 3, 8, width: 2],
        make["StableBloomFilter by capacity, width 2", capacity: 20, error_rate: 0.05, width: 2, seed: 4],
        make["StableBloomFilter.new(16, 2, 16, width: 32)", 16, 2, 16, width: 32],
        StableHarness.new("frozen StableBloomFilter", Bloomc::StableBloomFilter.new(64, 3, 5, random_seed: 2).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::A2BloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "c", "d", "e", "a", "f"]
      make = ->(label, *mk, **kw) { A2Harness.new(label, Bloomc::A2BloomFilter.new(*mk, **kw), keys) }
      [
        make["A2BloomFilter.new(64, 3)", 64, 3],
        make["A2BloomFilter.new(2, 1, capacity: 1)", 2, 1, capacity: 1],
        make["A2BloomFilter by capacity 3", capacity: 3, error_rate: 0.01, seed: 2**32 - 1],
        make["A2BloomFilter.new(301, 128, capacity: 2)", 301, 128, capacity: 2],
        A2Harness.new("frozen A2BloomFilter", Bloomc::A2BloomFilter.new(64, 3, capacity: 3).tap { |f| keys.each { |k| f << k } }.freeze).tap { |h| keys.each { |k| h.add(k) } }
      ]
    end,
    Bloomc::ScalableBloomFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c", "c"]
      filled = ->(**kw) { Bloomc::ScalableBloomFilter.new(**kw).tap { |f| keys.each { |k| f << k } } }
      [
        ScalableHarness.new("ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1) (3 layers)",
                            filled[error_rate: 0.01, initial_capacity: 1], keys),
        ScalableHarness.new("ScalableBloomFilter.new(error_rate: 0.1)", Bloomc::ScalableBloomFilter.new(error_rate: 0.1)),
        ScalableHarness.new("ScalableBloomFilter with max_capacity: 60, growth: 1.5, seed: 2**32-1",
                            filled[error_rate: 0.05, initial_capacity: 2, growth: 1.5, max_capacity: 60, seed: 2**32 - 1], keys),
        ScalableHarness.new("ScalableBloomFilter with growth: 1.25, even_layers: 0, tightening: 0.85",
                            filled[error_rate: 0.01, initial_capacity: 2, growth: 1.25, even_layers: 0, tightening: 0.85], keys),
        ScalableHarness.new("frozen ScalableBloomFilter", filled[error_rate: 0.01, initial_capacity: 2].freeze, keys)
      ]
    end,
    Bloomc::CuckooFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c"]
      make = ->(label, keys_in = keys, **kw) { CuckooHarness.new(label, Bloomc::CuckooFilter.new(**kw), keys_in) }
      [
        make["CuckooFilter.new(buckets: 16, fingerprint_bits: 8)", buckets: 16, fingerprint_bits: 8],
        make["empty CuckooFilter.new(buckets: 16, fingerprint_bits: 32)", [], buckets: 16, fingerprint_bits: 32],
        make["CuckooFilter by capacity, seed 2**32-1", capacity: 40, error_rate: 0.001, seed: 2**32 - 1],
        make["frozen CuckooFilter", buckets: 16, fingerprint_bits: 12].tap { |h| h.obj.freeze }
      ]
    end,
    Bloomc::BinaryFuseFilter => lambda do
      keys = ["a", :b, 7, 2**70, "\u65e5\u672c", "a"]
      [
        FuseHarness.new("BinaryFuseFilter.build(keys)", Bloomc::BinaryFuseFilter.build(keys), keys),
        FuseHarness.new("BinaryFuseFilter.build([])", Bloomc::BinaryFuseFilter.build([]), []),
        FuseHarness.new("BinaryFuseFilter.build(keys, fingerprint_bits: 16, seed: 9)",
                        Bloomc::BinaryFuseFilter.build(keys, fingerprint_bits: 16, seed: 9), keys),
        FuseHarness.new("frozen BinaryFuseFilter", Bloomc::BinaryFuseFilter.build(keys).freeze, keys)
      ]
    end,
    Bloomc::FNV => -> { [Stateless.new("Bloomc::FNV", Bloomc::FNV)] },
    Bloomc::Murmur3 => -> { [Stateless.new("Bloomc::Murmur3", Bloomc::Murmur3)] },
    Bloomc::CRC32C => -> { [Stateless.new("Bloomc::CRC32C", Bloomc::CRC32C)] },
    Bloomc::BloomHelper => -> { [Stateless.new("Bloomc::BloomHelper", Bloomc::BloomHelper)] }
  }.freeze
end
