# frozen_string_literal: true

# One filter of each kind in a known state, for the format specs and their
# golden files (spec/fixtures/format_v1/, written once by
# `ruby -Ilib spec/support/format_samples.rb write`).
module FormatSamples
  KEYS = Array.new(40) { |i| "golden-#{i}" }.freeze

  BUILDERS = {
    "bloom" => -> { Bloomc::BloomFilter.new(1000, 4, seed: 7).add_all(KEYS) },
    "bloom_fnv1a" => -> { Bloomc::BloomFilter.new(999, 3, hash: :fnv1a).add_all(KEYS) },
    "blocked" => -> { Bloomc::BlockedBloomFilter.new(1024, 5, seed: 1).add_all(KEYS) },
    "continuous" => lambda {
      Bloomc::ContinuousBloomFilter.new(600, 4, 2.5, seed: 3).tap do |f|
        KEYS.each_slice(10) { |slice| f.add_all(slice).inc_time_slot }
      end
    },
    "counting" => -> { Bloomc::CountingBloomFilter.new(300, 3, width: 2).add_all(KEYS * 3) },
    "spectral_mi" => -> { Bloomc::SpectralBloomFilter.new(300, 3, width: 3).add_all(KEYS * 2) },
    "spectral_rm" => -> { Bloomc::SpectralBloomFilter.new(300, 3, width: 3, algorithm: :rm, secondary_m: 77).add_all(KEYS * 2) },
    "bitwise" => -> { Bloomc::BitwiseBloomFilter.new(200, 3, width: 1, seed: 5).add_all(KEYS * 3) },
    "stable" => -> { Bloomc::StableBloomFilter.new(500, 3, 4, width: 3, random_seed: 12_345).add_all(KEYS) },
    "a2" => -> { Bloomc::A2BloomFilter.new(800, 3, capacity: 15).add_all(KEYS) }
  }.freeze

  def self.path(name) = File.expand_path("../fixtures/format_v1/#{name}.bloom", __dir__)
end

if $PROGRAM_NAME == __FILE__ && ARGV == ["write"]
  require "bloomc"
  FormatSamples::BUILDERS.each { |name, build| build.call.save(FormatSamples.path(name)) }
end
