# frozen_string_literal: true

# One filter of each kind in a known state, for the format specs and their
# golden files (spec/fixtures/format_v1/, format_v2/ and format_v3/, written once by
# `ruby -Ilib spec/support/format_samples.rb write`, which writes only the
# files that are missing: a golden file, once made, is never rewritten).
module FormatSamples
  KEYS = Array.new(40) { |i| "golden-#{i}" }.freeze

  # A filter as bloomc sized it before sizing by the expected rate: the
  # shape those golden files hold, with capacity and error rate remembered.
  def self.sized_before(filter, capacity, error_rate) = filter.tap { |f| f.send(:remember_sizing, capacity, error_rate) }

  # Filters built from m and k: format version 1. Those of the kinds that
  # now mix their probes (and what is built from them) pin hash: :murmur3,
  # the default when they were written: filters made before :murmur3_mixed
  # load and answer as they did.
  BUILDERS = {
    "bloom" => -> { Bloomc::BloomFilter.new(1000, 4, seed: 7, hash: :murmur3).add_all(KEYS) },
    "bloom_fnv1a" => -> { Bloomc::BloomFilter.new(999, 3, hash: :fnv1a).add_all(KEYS) },
    "bloom_mixed" => -> { Bloomc::BloomFilter.new(97, 6, seed: 5, hash: :murmur3_mixed).add_all(KEYS.first(12)) },
    "blocked" => -> { Bloomc::BlockedBloomFilter.new(1024, 5, seed: 1).add_all(KEYS) },
    "continuous" => lambda {
      Bloomc::ContinuousBloomFilter.new(600, 4, 2.5, seed: 3, hash: :murmur3).tap do |f|
        KEYS.each_slice(10) { |slice| f.add_all(slice).inc_time_slot }
      end
    },
    "counting" => -> { Bloomc::CountingBloomFilter.new(300, 3, width: 2, hash: :murmur3).add_all(KEYS * 3) },
    "spectral_mi" => -> { Bloomc::SpectralBloomFilter.new(300, 3, width: 3, hash: :murmur3).add_all(KEYS * 2) },
    "spectral_rm" => lambda {
      Bloomc::SpectralBloomFilter.new(300, 3, width: 3, algorithm: :rm, secondary_m: 77, hash: :murmur3).add_all(KEYS * 2)
    },
    "bitwise" => -> { Bloomc::BitwiseBloomFilter.new(200, 3, width: 1, seed: 5, hash: :murmur3).add_all(KEYS * 3) },
    "stable" => -> { Bloomc::StableBloomFilter.new(500, 3, 4, width: 3, random_seed: 12_345, hash: :murmur3).add_all(KEYS) },
    "a2" => -> { Bloomc::A2BloomFilter.new(800, 3, capacity: 15, hash: :murmur3).add_all(KEYS) },
    # the same kinds with today's default, :murmur3_mixed (the hash id in the seed parameter's high bits)
    "counting_mixed" => -> { Bloomc::CountingBloomFilter.new(300, 3, width: 2).add_all(KEYS * 3) },
    "spectral_rm_mixed" => -> { Bloomc::SpectralBloomFilter.new(300, 3, width: 3, algorithm: :rm, secondary_m: 77).add_all(KEYS * 2) },
    "bitwise_mixed" => -> { Bloomc::BitwiseBloomFilter.new(200, 3, width: 1, seed: 5).add_all(KEYS * 3) },
    "stable_mixed" => -> { Bloomc::StableBloomFilter.new(500, 3, 4, width: 3, random_seed: 12_345).add_all(KEYS) },
    "a2_mixed" => -> { Bloomc::A2BloomFilter.new(800, 3, capacity: 15).add_all(KEYS) },
    "cuckoo" => -> { Bloomc::CuckooFilter.new(buckets: 16, fingerprint_bits: 12, seed: 7).add_all(KEYS) },
    "cuckoo_32" => -> { Bloomc::CuckooFilter.new(buckets: 24, fingerprint_bits: 32).add_all(KEYS * 2) },
    # 40 keys in 11 buckets of 4: 91% of the slots, many keys moved
    "cuckoo_dense" => -> { Bloomc::CuckooFilter.new(buckets: 11, fingerprint_bits: 9).add_all(KEYS) },
    "fuse" => -> { Bloomc::BinaryFuseFilter.build(KEYS, seed: 3) },
    "fuse_16" => -> { Bloomc::BinaryFuseFilter.build(KEYS * 2, fingerprint_bits: 16) },
    "fuse_empty" => -> { Bloomc::BinaryFuseFilter.build([]) }
  }.freeze

  # Filters sized by capacity: and error_rate: (their header ends with the
  # three sizing parameters), and the scalable kind: format version 2.
  BUILDERS_V2 = {
    # 40 keys for a capacity of 30: past it, and the count of new keys says so
    "bloom_sized" => lambda {
      sized_before(Bloomc::BloomFilter.new(289, 6, seed: 7, hash: :murmur3), 30, 0.01).add_all(KEYS)
    },
    "continuous_sized" => lambda {
      sized_before(Bloomc::ContinuousBloomFilter.new(481, 7, 2.5, seed: 3, hash: :murmur3), 50, 0.01).tap do |f|
        KEYS.each_slice(10) { |slice| f.add_all(slice).inc_time_slot }
      end
    },
    "counting_sized" => lambda {
      sized_before(Bloomc::CountingBloomFilter.new(960, 7, width: 2, hash: :murmur3), 100, 0.01).add_all(KEYS * 3)
    },
    # today's defaults: sized by the expected rate, probes mixed
    "bloom_sized_mixed" => -> { Bloomc::BloomFilter.new(capacity: 30, error_rate: 0.01, seed: 7).add_all(KEYS) },
    "continuous_sized_mixed" => lambda {
      Bloomc::ContinuousBloomFilter.new(capacity: 50, error_rate: 0.01, ttl: 2.5, seed: 3).tap do |f|
        KEYS.each_slice(10) { |slice| f.add_all(slice).inc_time_slot }
      end
    },
    "a2_sized" => -> { Bloomc::A2BloomFilter.new(capacity: 15, error_rate: 0.01, hash: :murmur3).add_all(KEYS) },
    "cuckoo_sized" => -> { sized_before(Bloomc::CuckooFilter.new(buckets: 14, fingerprint_bits: 13), 50, 0.001).add_all(KEYS) },
    # layers of 4, 8, 16 and 32 keys
    "scalable" => -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 4, seed: 9, hash: :murmur3).add_all(KEYS) },
    # layers of 3, 5, 7, 10 and 15 keys; a sixth would be cut to 5, to end at 45
    "scalable_max" => lambda {
      Bloomc::ScalableBloomFilter.new(error_rate: 0.05, initial_capacity: 3, growth: 1.5, tightening: 0.5, even_layers: 2,
                                      max_capacity: 45, hash: :murmur3).add_all(KEYS)
    },
    # today's default: probes mixed, layers sized by their expected rate
    "scalable_mixed" => -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 4, seed: 9).add_all(KEYS) }
  }.freeze

  # Filters with metadata: format version 3, whose header always has a sized
  # kind's three sizing parameters (0 and 0 for none) and a metadata block.
  METADATA = { "source" => "format_samples.rb", "period" => { "start" => "2026-11-24T13", "seconds" => 3600 },
               "tags" => ["golden", 3, 0.5, true, nil], "note" => "\u65e5\u672c \u00e9" }.freeze
  BUILDERS_V3 = {
    "bloom_meta" => -> { BUILDERS.fetch("bloom").call.tap { |f| f.metadata = METADATA } },
    "bloom_sized_meta" => -> { BUILDERS_V2.fetch("bloom_sized").call.tap { |f| f.metadata = "a plain string" } },
    "continuous_meta" => -> { BUILDERS.fetch("continuous").call.tap { |f| f.metadata = METADATA } },
    "scalable_meta" => -> { BUILDERS_V2.fetch("scalable").call.tap { |f| f.metadata = METADATA } },
    "fuse_meta" => -> { BUILDERS.fetch("fuse").call.tap { |f| f.metadata = { "keys" => KEYS.size } } }
  }.freeze

  VERSIONS = { 1 => BUILDERS, 2 => BUILDERS_V2, 3 => BUILDERS_V3 }.freeze

  def self.path(name, version = 1) = File.expand_path("../fixtures/format_v#{version}/#{name}.bloom", __dir__)
end

if $PROGRAM_NAME == __FILE__ && ARGV == ["write"]
  require "bloomc"
  FormatSamples::VERSIONS.each do |version, builders|
    builders.each do |name, build|
      path = FormatSamples.path(name, version)
      next if File.exist?(path)

      Dir.mkdir(File.dirname(path)) unless Dir.exist?(File.dirname(path))
      build.call.save(path)
      puts "wrote #{path}"
    end
  end
end
