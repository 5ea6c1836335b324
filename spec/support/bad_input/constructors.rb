# frozen_string_literal: true

# The constructor forms of each class: params and kw as in the recipes,
# the keywords a form refuses, and what a new object must report.
module BadInputMatrix
  # fresh: how a new filter of the class shows it holds nothing yet.
  filter_works = lambda do |fresh|
    ->(desc, obj) { fresh.call(obj) && obj.add("probe").equal?(obj) && obj.include?("probe") ? [] : ["#{desc}: add/include? broken"] }
  end
  # What a new object of each class must do besides report its arguments:
  # start empty, and take and find a key.
  NEW_OBJECT_CHECKS = {
    [Bloomc::BitField, Bloomc::BitBucketField] =>
      ->(desc, obj) { obj.total_set.zero? && obj.all?(&:zero?) ? [] : ["#{desc} is not all zero"] },
    [Bloomc::BinaryFuseFilter] => lambda do |desc, obj|
      built_from = keyless?(obj) ? [] : ["k", 1]
      obj.include_all(built_from).all? ? [] : ["#{desc}: include? broken"]
    end,
    [Bloomc::BloomFilter, Bloomc::BlockedBloomFilter, Bloomc::CountingBloomFilter, Bloomc::SpectralBloomFilter,
     Bloomc::BitwiseBloomFilter, Bloomc::StableBloomFilter, Bloomc::A2BloomFilter, Bloomc::ScalableBloomFilter,
     Bloomc::CuckooFilter, Bloomc::SlidingBloomFilter] => filter_works[->(obj) { keyless?(obj) }],
    # and its timer starts and stops, where its ttl allows one
    [Bloomc::ContinuousBloomFilter] => lambda do |desc, obj|
      problems = filter_works[->(filter) { filter.ticks.zero? }].call(desc, obj)
      next problems if obj.ttl < Bloomc::ContinuousBloomFilter::MIN_TIMER_TTL

      harness = ContinuousHarness.new(desc, obj, ["probe"])
      problems + with_quiet_threads { run_call(harness, :start_timer, CONTINUOUS_BLOOM_FILTER[:start_timer], [], {}, [:ok]) }
    end
  }.freeze

  # What a form sized by capacity and error rate must report: the m and k
  # that finder gives for them, and its keywords as given (attribute =>
  # keyword where the names differ).
  def self.sized_as(*same, finder: method(:find_m_k), **renamed)
    lambda do |_, kw|
      m, k = finder.call(kw[:capacity], kw[:error_rate])
      { m: m, k: k, **kw.slice(*same), **renamed.transform_values { |key| kw[key] } }
    end
  end

  CONSTRUCTORS = {
    Bloomc::BitField => [
      { params: [[:size_bf, 10]], expect: ->(a, _) { { size: a[0] } } }
    ],
    Bloomc::BitBucketField => [
      { params: [[:width, 3], [:size_bbf, 10]], expect: ->(a, _) { { bits: a[0], size: a[1] } } }
    ],
    Bloomc::BloomFilter => [
      { params: [[:bf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], seed: kw[:seed], hash_function: kw[:hash], size: 0 } } },
      { params: [[:bf_m, 64], [:k_ctor, 3]], kw: { seed: [:fnv_seed, 0], hash: %i[hash_name fnv1a] },
        expect: ->(a, kw) { { m: a[0], k: a[1], seed: 0, hash_function: kw[:hash] } } },
      { kw: { capacity: [:capacity_bf, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_positional: :must_be_nil, expect: sized_as(:seed, hash_function: :hash) }
    ],
    Bloomc::BlockedBloomFilter => [
      { params: [[:bf_m, 1024], [:k_ctor, 3]], short_forms: true,
        kw: { seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, hash: :murmur3_only, bogus: :never },
        expect: ->(a, kw) { { m: (a[0] + 511) / 512 * 512, k: a[1], seed: kw[:seed], size: 0 } } },
      { kw: { capacity: [:capacity_bf, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_positional: :must_be_nil, expect: sized_as(:seed, finder: Bloomc::BlockedBloomFilter.method(:find_m_k)) }
    ],
    Bloomc::CountingBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { width: [:width, 4], seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, hash: :murmur3_either, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], width: kw[:width], seed: kw[:seed], saturated: 0 } } },
      { kw: { capacity: [:capacity_cbf, 100], error_rate: [:error_ctor, 0.01], width: [:width, 4], seed: [:seed, 5] },
        extra_positional: :must_be_nil, expect: sized_as(:width, :seed) }
    ],
    Bloomc::SpectralBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { algorithm: %i[algorithm mi], width: [:width, 4], seed: [:seed, 5] },
        extra_kw: { secondary_m: :must_be_nil, capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], algorithm: :mi, width: kw[:width], seed: kw[:seed], secondary_m: nil } } },
      { params: [[:cbf_m, 64], [:k_ctor, 3]],
        kw: { algorithm: %i[algorithm rm], secondary_m: [:secondary_m, 10], width: [:width, 4], seed: [:seed, 5] },
        expect: lambda { |a, kw|
          { m: a[0], k: a[1], algorithm: :rm, width: kw[:width], seed: kw[:seed], secondary_m: kw[:secondary_m] || (a[0] + 1) / 2 }
        } },
      { kw: { capacity: [:capacity_rm, 100], error_rate: [:error_ctor, 0.01], algorithm: %i[algorithm rm], seed: [:seed, 5] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          { m: m, k: k, algorithm: :rm, seed: kw[:seed], secondary_m: (m + 1) / 2 }
        } }
    ],
    Bloomc::BitwiseBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { width: [:width, 4], seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], width: kw[:width], seed: kw[:seed], levels: 1 } } },
      { kw: { capacity: [:capacity_cbf, 100], error_rate: [:error_ctor, 0.01], width: [:width, 4], seed: [:seed, 5] },
        extra_positional: :must_be_nil, expect: sized_as(:width, :seed) }
    ],
    Bloomc::StableBloomFilter => [
      { params: [[:cells3_m, 64], [:k_ctor, 3], [:stable_d, 1]], short_forms: true,
        kw: { width: [:width, 3], seed: [:seed, 5], random_seed: [:random_seed, 7] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], d: a[2], width: kw[:width], seed: kw[:seed], zero_fraction: 1.0 } } },
      { kw: { capacity: [:capacity_cells3, 100], error_rate: [:error_ctor, 0.01], width: [:width, 3], seed: [:seed, 5],
              random_seed: [:random_seed, 7] },
        extra_positional: :must_be_nil,
        expect: lambda { |_, kw|
          m, k = BadInputMatrix.find_m_k(kw[:capacity], kw[:error_rate])
          # the fewest cells from m on with a stable point at the rate
          m = m.step.find { |cells| BadInputMatrix.stable_fpr(cells, k, cells, 3) <= kw[:error_rate] }
          { m: m, k: k, width: kw[:width], seed: kw[:seed] }
        } }
    ],
    Bloomc::A2BloomFilter => [
      { params: [[:bf_m, 64], [:k_ctor, 3]], short_forms: true,
        kw: { capacity: [:a2_capacity, 5], seed: [:seed, 5] },
        extra_kw: { error_rate: :must_be_nil, bogus: :never },
        expect: lambda { |a, kw|
          m = a[0] + (a[0] & 1)
          capacity = kw[:capacity] || [(m / (2.0 * a[1]) * BadInputMatrix::LN2).floor, 1].max
          { m: m, k: a[1], capacity: capacity, seed: kw[:seed], swaps: 0 }
        } },
      { params: [[:bf_m, 64]], kw: { error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_positional: :must_be_nil, # the k that error_rate: stands for
        expect: ->(a, kw) { { m: a[0] + (a[0] & 1), k: 8, seed: kw[:seed] } } },
      { kw: { capacity: [:a2_capacity_ctor, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_positional: :a2_m_or_nil,
        expect: lambda { |a, kw|
          m = a[0] || 2 * (kw[:capacity] * 8 / BadInputMatrix::LN2).ceil
          { m: m + (m & 1), k: 8, capacity: kw[:capacity], seed: kw[:seed] }
        } }
    ],
    Bloomc::CuckooFilter => [
      { kw: { buckets: [:cuckoo_buckets, 16], fingerprint_bits: [:fingerprint_bits, 12], seed: [:seed, 5] },
        extra_kw: { capacity: :must_be_nil, error_rate: :must_be_nil, bogus: :never },
        expect: ->(_, kw) { { buckets: kw[:buckets], fingerprint_bits: kw[:fingerprint_bits], seed: kw[:seed], size: 0 } } },
      { kw: { capacity: [:cuckoo_capacity, 100], error_rate: [:error_ctor, 0.01], seed: [:seed, 5] },
        extra_kw: { buckets: :must_be_nil, fingerprint_bits: :must_be_nil, bogus: :never },
        expect: ->(_, kw) { { capacity: kw[:capacity], error_rate: kw[:error_rate], seed: kw[:seed], size: 0 } } }
    ],
    # built from ["k", 1]; a set of other keys is checked by its size
    Bloomc::BinaryFuseFilter => [
      { params: [[:keys, ["k", 1]]], kw: { fingerprint_bits: [:fuse_bits, 8], seed: [:seed, 5] },
        extra_kw: { bogus: :never },
        expect: lambda { |a, kw|
          distinct = a[0].to_a.map { |key| FilterKey.id(key) }.uniq.size
          { size: distinct, fingerprint_bits: kw[:fingerprint_bits], seed: kw[:seed] }
        } }
    ],
    Bloomc::ScalableBloomFilter => [
      { kw: { error_rate: [:scalable_error, 0.01], initial_capacity: [:scalable_initial, 100], growth: [:scalable_growth, 2],
              tightening: [:scalable_tightening, 0.8], even_layers: [:scalable_even, 10], max_capacity: [:scalable_max, nil],
              seed: [:seed, 5], hash: %i[murmur3_either murmur3] },
        extra_positional: :never,
        extra_kw: { capacity: :never, bogus: :never },
        expect: lambda { |_, kw|
          { error_rate: kw[:error_rate].to_f, initial_capacity: kw[:initial_capacity], growth: kw[:growth].to_f,
            tightening: kw[:tightening].to_f, even_layers: kw[:even_layers], max_capacity: kw[:max_capacity],
            seed: kw[:seed], size: 0 }
        } }
    ],
    Bloomc::SlidingBloomFilter => [
      { kw: { ttl: [:sliding_ttl, 3600], error_rate: [:scalable_error, 0.01], generations: [:sliding_generations, 4],
              first_size: [:sliding_first, 1024], max_bytes: [:sliding_max_bytes, nil], clock: [:clock, nil],
              seed: [:seed, 5], hash: %i[murmur3_either murmur3] },
        extra_positional: :never,
        extra_kw: { capacity: :never, bogus: :never },
        expect: lambda { |_, kw|
          { ttl: kw[:ttl].to_f, error_rate: kw[:error_rate].to_f, generations: kw[:generations], seed: kw[:seed], size: 0 }
        } }
    ],
    Bloomc::ContinuousBloomFilter => [
      { params: [[:cbf_m, 64], [:k_ctor, 3], [:ttl, 0]], short_forms: true,
        kw: { seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_kw: { ttl: :must_be_nil, capacity: :must_be_nil, bogus: :never },
        expect: ->(a, kw) { { m: a[0], k: a[1], ttl: a[2], seed: kw[:seed], hash_function: kw[:hash] } } },
      { params: [[:cbf_m, 64], [:k_ctor, 3], [:ttl, 0.5]], kw: { seed: [:fnv_seed, 0], hash: %i[hash_name fnv1a] },
        expect: ->(a, kw) { { m: a[0], k: a[1], ttl: a[2], seed: 0, hash_function: kw[:hash] } } },
      { kw: { capacity: [:capacity_cbf, 100], error_rate: [:error_ctor, 0.01], ttl: [:ttl, 0],
              seed: [:seed, 5], hash: %i[hash_name murmur3] },
        extra_positional: :never, expect: sized_as(:ttl, :seed, hash_function: :hash) }
    ]
  }.to_h do |klass, forms|
    # prefault: on every filter class's new (lib/bloomc/pages.rb).
    next [klass, forms] unless klass.include?(Bloomc.const_get(:Pages))

    [klass, forms.map { |form| form.merge(kw: form.fetch(:kw, {}).merge(prefault: [:boolean, false])) }]
  end.freeze
end
