# frozen_string_literal: true

require "spec_helper"
require "json"
require "open3"
require "tmpdir"

# The JavaScript reader (js/) against bloomc: filters of every kind it reads,
# saved plain and deflated, with every hash and seed option, and Ruby's
# answer for each of 100,000 keys added and 100,000 never added (multibyte,
# NUL, empty, byte-string and Integer keys among them); `node --test` must
# give the same answer for every one. And mutated files must not break it.
RSpec.describe "the JavaScript reader", :slow do
  node = ENV.fetch("NODE", "node")
  available = system("#{node} --version > /dev/null 2>&1")

  # Tests in js/test/ that do not come from a fixture (checksums, hashes,
  # probes, WebAssembly, refusals, metadata, fetch and its limits, inflate
  # limits, mixed key types in one process); each fixture adds two.
  fixed_tests = 17

  # [type, value] as js/test/reader.test.js reads it, and the Ruby key.
  def fixture_key(key)
    case key
    when Integer then ["i", key.to_s]
    when String then key.encoding == Encoding::BINARY ? ["b", key.unpack1("H*")] : ["s", key]
    end
  end

  def keys(n, salt)
    Array.new(n) do |i|
      case i % 6
      when 0 then "#{salt}-#{i}"
      when 1 then "#{salt}-\u65e5\u672c-#{i}\u00e9"
      when 2 then "#{salt}\0#{i}\0"
      when 3 then [salt.sum, i].pack("Q<N").b
      when 4 then i.odd? ? -(i * 7919) : i * 7919
      else (2**64 + i) * (i.odd? ? -1 : 1)
      end
    end
  end

  # A continuous filter whose clock has wrapped past slot 15, holding a
  # quarter of the keys from each of the last four ticks: the oldest quarter
  # has expired.
  def continuous(added, **options)
    filter = Bloomc::ContinuousBloomFilter.new(capacity: 100_000, error_rate: 0.01, ttl: 60, **options)
    13.times { filter.inc_time_slot }
    added.each_slice((added.size / 4) + 1).with_index do |slice, i|
      filter.inc_time_slot if i.positive?
      filter.add_all(slice)
    end
    filter
  end

  # A sliding filter whose keys came over five simulated minutes, in
  # generations of a minute or two, then read by the monotonic clock (each
  # generation keeps its age): every one is alive for an hour more.
  def sliding(added, **options)
    time = 0.0
    filter = Bloomc::SlidingBloomFilter.new(ttl: 3600, error_rate: 0.01, first_size: 5000, clock: -> { time }, **options)
    added.each_slice((added.size / 5) + 1) do |slice|
      filter.add_all(slice)
      time += 1000
    end
    filter.clock = nil
    filter
  end

  def filters(added)
    {
      "bloom" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01),
      "bloom_seed" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.001, seed: 2**32 - 1),
      "bloom_fnv1a" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01, hash: :fnv1a),
      "bloom_small_m" => Bloomc::BloomFilter.new(100_003, 3, seed: 11),
      "blocked" => Bloomc::BlockedBloomFilter.new(capacity: 100_000, error_rate: 0.01, seed: 5),
      "blocked_k12" => Bloomc::BlockedBloomFilter.new(2**20, 12),
      "counting" => Bloomc::CountingBloomFilter.new(capacity: 100_000, error_rate: 0.01, seed: 6),
      "counting_w3" => Bloomc::CountingBloomFilter.new(1_000_003, 7, width: 3),
      "spectral_mi" => Bloomc::SpectralBloomFilter.new(capacity: 100_000, error_rate: 0.01, seed: 4),
      "spectral_rm" => Bloomc::SpectralBloomFilter.new(capacity: 100_000, error_rate: 0.01, algorithm: :rm, width: 5),
      "bitwise" => Bloomc::BitwiseBloomFilter.new(capacity: 100_000, error_rate: 0.01, width: 2, seed: 9),
      "stable" => Bloomc::StableBloomFilter.new(capacity: 100_000, error_rate: 0.01, seed: 10, random_seed: 1),
      "a2" => Bloomc::A2BloomFilter.new(capacity: 30_000, error_rate: 0.01, seed: 2**32 - 1),
      "scalable" => Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 7_000, seed: 2**32 - 1),
      # hash 0, the default before :murmur3_mixed (a scalable filter's in its seed parameter)
      "bloom_murmur3" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01, hash: :murmur3),
      "scalable_murmur3" => Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 7_000, seed: 2**32 - 1, hash: :murmur3),
      "cuckoo" => Bloomc::CuckooFilter.new(capacity: 110_000, error_rate: 0.01, seed: 8),
      "cuckoo_f13" => Bloomc::CuckooFilter.new(buckets: 40_000, fingerprint_bits: 13),
      "cuckoo_f32" => Bloomc::CuckooFilter.new(buckets: 30_000, fingerprint_bits: 32, seed: 2**32 - 1)
    }.each_value { |filter| filter.add_all(added) }.merge(
      "continuous" => continuous(added, seed: 3),
      "continuous_fnv1a" => continuous(added, hash: :fnv1a),
      "continuous_murmur3" => continuous(added, seed: 3, hash: :murmur3),
      "fuse8" => Bloomc::BinaryFuseFilter.new(added, seed: 12),
      "fuse16" => Bloomc::BinaryFuseFilter.new(added, fingerprint_bits: 16, seed: 2**32 - 1),
      "fuse_empty" => Bloomc::BinaryFuseFilter.new([]),
      # hash 2: each probe value through fmix64 (plain, then deflated)
      "bloom_mixed" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01, hash: :murmur3_mixed).add_all(added),
      "continuous_mixed" => continuous(added, seed: 13, hash: :murmur3_mixed),
      "sliding" => sliding(added, seed: 14),
      "sliding_murmur3" => sliding(added, hash: :murmur3, generations: 1)
    )
  end

  it "answers every key as bloomc does, for every kind it reads" do
    skip "#{node} is not installed" unless available || ENV["BLOOMC_NODE_REQUIRED"]

    added = keys(100_000, "in") + ["", "\0"]
    probes = added + keys(100_000, "out")
    all = filters(added)
    metadata = { "source" => "js_reader_spec", "note" => "\u65e5\u672c\0", "n" => [1, 2.5, nil] }
    Dir.mktmpdir do |dir|
      File.write(File.join(dir, "keys.json"), JSON.generate(probes.map { |key| fixture_key(key) }))
      all.each_with_index do |(name, filter), i|
        expected = nil
        if filter.respond_to?(:metadata=) && %w[bloom_seed cuckoo].include?(name)
          filter.metadata = metadata
          expected = metadata
        end
        File.binwrite(File.join(dir, "#{name}.bloom"), filter.dump(compress: i.odd?))
        File.write(File.join(dir, "#{name}.json"),
                   JSON.generate(answers: filter.include_all(probes), metadata: expected))
      end
      root = File.expand_path("../..", __dir__)
      tests = Dir.children(File.join(root, "js/test")).grep(/\.test\.js\z/).sort.map { |name| "js/test/#{name}" }
      out, status = Open3.capture2e({ "BLOOMC_JS_FIXTURES" => dir }, node, "--test", *tests, chdir: root)
      expect(status.success?).to be(true), out
      expect(out).to match(/^# pass (\d+)/)
      expect(out[/^# pass (\d+)/, 1].to_i).to eq(fixed_tests + (2 * all.size))
    end
  end

  # js/fuzz/fuzz.mjs: mutations of the golden files of every kind and format
  # version (spec/fixtures/format_v*), plain and deflated, from a fixed seed,
  # in a node under --max-old-space-size=64 whose peak RSS is bounded; every
  # one must load or raise the reader's FormatError (no other error, hang or
  # crash). About 15 s.
  it "survives mutated files under a memory cap, with FormatError or a working filter" do
    skip "#{node} is not installed" unless available || ENV["BLOOMC_NODE_REQUIRED"]

    root = File.expand_path("../..", __dir__)
    cases = ENV.fetch("JS_FUZZ_CASES", "50000")
    dirs = (1..3).map { |version| File.join(SpecHelpers::FIXTURES, "format_v#{version}") }
    out, status = Open3.capture2e(node, "js/fuzz/fuzz.mjs", "--cases", cases, "--seed", "1", *dirs, chdir: root)
    expect(status.success?).to be(true), out
    expect(out).to match(/^js fuzz: #{cases} cases .*: \d+ loaded, \d+ refused/)
    RSpec.configuration.reporter.message(out.lines.first(2).join.chomp)
  end
end
