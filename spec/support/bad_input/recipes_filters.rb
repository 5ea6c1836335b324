# frozen_string_literal: true

# Recipes of every filter class: how to call each method and what a
# success must return, checked against the receiver's model. Each class's
# table is FILTER_BASICS, what the class answers its own way, and the
# recipes of the modules it includes (recipes_shared.rb).
module BadInputMatrix
  # include? and []: what the model knows, either answer where it cannot tell.
  lookup = lambda do |h, a, _, r, _|
    expected = h.expected_include(a[0])
    expected.nil? ? [true, false].include?(r) : r == expected || "expected #{expected}, got #{r.inspect}"
  end
  # add and << return self; add? self for a key new to the model, nil for
  # one it holds (either where it cannot tell).
  add = { params: [[:key, "added"]], write: true,
          ok: ->(h, a, _, r, _) { h.add(a[0]); r.equal?(h.obj) } }
  add_if_new = {
    params: [[:key, "added"]], write: true,
    ok: lambda do |h, a, _, r, _|
      expected = h.expected_include(a[0])
      h.add(a[0])
      next "returned #{r.inspect}, not self or nil" unless r.nil? || r.equal?(h.obj)

      expected.nil? || expected == r.nil? || "returned #{r.nil? ? 'nil' : 'self'} for a key #{expected ? 'present' : 'new'}"
    end
  }
  # === takes anything: include?'s answer for a key, false for the rest.
  case_lookup = ->(h, a, *rest) { [String, Symbol, Integer].any? { |t| a[0].is_a?(t) } ? lookup.call(h, a, *rest) : rest[1] == false }
  # to_h: the kind's description, its parameters by name.
  described = lambda do |h, _, _, r, _|
    next "not a Hash" unless r.is_a?(Hash)

    r.keys == %i[kind parameters sizing stats metadata] && r[:kind] == h.obj.class.name.delete_prefix("Bloomc::") || r.inspect[0, 80]
  end
  # Every filter: its keys, its seed, equality with a copy, its descriptions.
  FILTER_BASICS = {
    add: add,
    "<<": add,
    add?: add_if_new,
    include?: { params: [[:key, "added"]], ok: lookup },
    "[]": { params: [[:key, "never added"]], ok: lookup },
    member?: { params: [[:key, "added"]], ok: lookup },
    "===": { params: [[:any, "added"]], ok: case_lookup },
    to_h: { ok: described },
    # its argument is the JSON generator's state (or options), as any to_json's
    to_json: { params: [[:any, nil]], opt: 1,
               ok: ->(h, _, _, r, _) { r.is_a?(String) && JSON.parse(r)["kind"] == h.obj.class.name.delete_prefix("Bloomc::") } },
    seed: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (0..0xffffffff).cover?(r) } },
    "==": { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    eql?: { params: [OTHER], ok: SAME_AS_DUP_FILTER },
    hash: { ok: HASH_LIKE_DUP },
    inspect: { ok: INSPECT }
  }.freeze
  K = { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (1..128).cover?(r) } }.freeze
  WIDTH = { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (1..32).cover?(r) } }.freeze
  UNIT_FLOAT = { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.between?(0, 1) } }.freeze
  # Raises UnsupportedError whatever it is given.
  def self.unsupported(params)
    { params: params, base: ->(_) { [Bloomc::UnsupportedError] }, ok: ->(*) { "returned instead of raising UnsupportedError" } }
  end

  BLOOM_FILTER = FILTER_BASICS.merge(
    m: { ok: ->(h, _, _, r, _) { r == h.obj.bits.size } },
    k: K,
    size: { ok: ->(h, _, _, r, _) { r == h.count } },
    bits: { ok: ->(h, _, _, r, _) { r.is_a?(Bloomc::BitField) && r.size == h.obj.m && r.total_set <= [h.count * h.obj.k, h.obj.m].min } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3 fnv1a].include?(r) } }
  ).merge(BATCH, STATS, SET_OPS, PERSISTENCE, METADATA, PAGES, MAPPED, SIZING).freeze

  BLOCKED_BLOOM_FILTER = BLOOM_FILTER.except(*MAPPED.keys).merge(
    m: { ok: ->(h, _, _, r, _) { r == h.obj.bits.size && (r % 512).zero? } },
    hash_function: { ok: ->(_, _, _, r, _) { r == :murmur3 } },
    expected_false_positive_rate: { params: [[:count_or_zero, 10]], opt: 1, ok: UNIT_FLOAT[:ok] }
  ).freeze

  CONTINUOUS_BLOOM_FILTER = FILTER_BASICS.merge(
    inc_time_slot: { write: true, ok: ->(h, _, _, r, _) { h.tick; r == h.slot } },
    # Called once per receiver with no arguments and followed by stop_timer
    # (run_call does both and checks the timer thread).
    start_timer: {
      base: lambda do |h|
        too_short = h.obj.ttl < Bloomc::ContinuousBloomFilter::MIN_TIMER_TTL
        if too_short then [ArgumentError] + (h.obj.frozen? ? [FrozenError] : [])
        else h.obj.frozen? ? [FrozenError] : [:ok]
        end
      end,
      ok: ->(h, _, _, r, _) { r.equal?(h.obj) }
    },
    stop_timer: { base: ->(h) { h.obj.frozen? ? [:ok, FrozenError] : [:ok] }, ok: ->(h, _, _, r, _) { r.equal?(h.obj) } },
    timer_running?: { ok: ->(_, _, _, r, _) { r == false } },
    freeze: { ok: ->(h, _, _, r, _) { r.equal?(h.obj) && r.frozen? && !r.timer_running? } },
    ticks: { ok: ->(h, _, _, r, _) { r == h.ticks } },
    m: { ok: ->(h, _, _, r, _) { r == h.obj.buckets.size } },
    k: K,
    ttl: { ok: ->(_, _, _, r, _) { r.is_a?(Numeric) && r >= 0 } },
    buckets: { ok: ->(h, _, _, r, _) { r.is_a?(Bloomc::BitBucketField) && r.bits == 4 && r.size == h.obj.m } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3 fnv1a].include?(r) } }
  ).merge(BATCH, STATS, SET_OPS, PERSISTENCE, METADATA, PAGES, MAPPED, SIZING).freeze

  # The libBf manual's family: counted cells, each kind with its own few.
  FAMILY = FILTER_BASICS.merge(
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? } },
    k: K,
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3].include?(r) } },
    size: { ok: ->(h, _, _, r, _) { r == h.size } }
  ).merge(BATCH, STATS, SET_OPS, PERSISTENCE, METADATA, PAGES, SIZING).freeze
  cell_count = { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.obj.m) } }
  counted_delete = {
    params: [[:key, "added"]], write: true,
    # MI refuses every delete (Bloomc::UnsupportedError), frozen or not.
    refuse: ->(h) { [Bloomc::UnsupportedError] if h.obj.is_a?(Bloomc::SpectralBloomFilter) && h.obj.algorithm == :mi },
    ok: ->(h, a, _, r, _) { h.delete(a[0], r) }
  }
  count = { params: [[:key, "added"]], ok: ->(h, a, _, r, _) { h.count_ok(a[0], r) } }
  counted = { delete: counted_delete, remove: counted_delete, count: count, width: WIDTH }
  COUNTING_BLOOM_FILTER = FAMILY.merge(counted, MAPPED).merge(
    saturated: cell_count,
    cells_in_use: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.obj.m) && (r.positive? || keyless?(h.obj)) } }
  ).freeze
  SPECTRAL_BLOOM_FILTER = FAMILY.merge(counted).merge(
    saturated: cell_count,
    algorithm: { ok: ->(_, _, _, r, _) { %i[mi rm].include?(r) } },
    secondary_m: { ok: ->(h, _, _, r, _) { h.obj.algorithm == :mi ? r.nil? : r.is_a?(Integer) && r.positive? } }
  ).freeze
  BITWISE_BLOOM_FILTER = FAMILY.merge(
    count: count,
    width: WIDTH,
    levels: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.between?(1, 32) } }
  ).freeze
  STABLE_BLOOM_FILTER = FAMILY.merge(
    d: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(1, h.obj.m) } },
    width: WIDTH,
    zero_fraction: UNIT_FLOAT,
    stable_zero_fraction: UNIT_FLOAT,
    stable_false_positive_rate: UNIT_FLOAT
  ).freeze
  A2_BLOOM_FILTER = FAMILY.merge(
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? && r.even? } },
    capacity: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? } },
    active_size: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.obj.capacity) } },
    swaps: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.size) } },
    expected_false_positive_rate: { params: [[:count_or_zero, 10]], opt: 1, ok: UNIT_FLOAT[:ok] }
  ).freeze

  layer_ok = lambda do |l|
    l.is_a?(Bloomc::ScalableBloomFilter::Layer) && l.m.positive? && (1..128).cover?(l.k) && l.capacity.positive? &&
      l.count >= 0 && l.error_rate.positive? && l.error_rate < 1 && l.fill_ratio.between?(0, 1)
  end
  SCALABLE_BLOOM_FILTER = FILTER_BASICS.merge(
    size: { ok: ->(h, _, _, r, _) { r == h.count } },
    distinct_count: { ok: ->(h, _, _, r, _) { r == h.obj.layers.sum(&:count) && (h.merged || r <= h.keys.size) } },
    m: { ok: ->(h, _, _, r, _) { r == h.obj.layers.sum(&:m) } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3].include?(r) } },
    error_rate: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.positive? && r < 1 } },
    initial_capacity: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r >= h.obj.layers[0].capacity } },
    growth: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.between?(1, 64) } },
    tightening: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.positive? && r < 1 } },
    even_layers: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.between?(0, 64) } },
    max_capacity: { ok: ->(h, _, _, r, _) { r.nil? || (r.is_a?(Integer) && r >= h.obj.layers.sum(&:capacity)) } },
    capacity: { ok: ->(h, _, _, r, _) { r == h.obj.max_capacity } },
    # only a union puts more keys in a layer than it was sized for
    over_capacity?: { ok: ->(h, _, _, r, _) { h.merged ? [true, false].include?(r) : r == false } },
    layers: {
      ok: ->(h, _, _, r, _) { r.is_a?(Array) && r.size.between?(1, 64) && r.all?(&layer_ok) && r == h.obj.dup.layers }
    },
    # a scalable filter has no intersection: & raises, whatever it is given
    "&": unsupported([[:unsupported, ->(h) { h.obj.dup }]]),
    inspect: { ok: ->(h, _, _, r, _) { INSPECT.call(h, nil, nil, r, nil) && r.include?("layers=#{h.obj.layers.size} (") } }
  ).merge(BATCH, STATS, SET_OPS.except(:&), PERSISTENCE, METADATA, PAGES).freeze

  # The generations' table is what the filter reports; nothing expires
  # within a receiver's life (ttl 3600 on the monotonic clock, or a given
  # clock that stands still).
  window_ok = ->(w) { w.is_a?(Hash) && w.keys == %i[age layers keys] && w[:age] >= 0 && w[:layers].between?(1, 64) }
  SLIDING_BLOOM_FILTER = FILTER_BASICS.merge(
    size: { ok: ->(h, _, _, r, _) { r == h.count } },
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r >= 0 } },
    hash_function: { ok: ->(_, _, _, r, _) { %i[murmur3_mixed murmur3].include?(r) } },
    ttl: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r >= 0.01 } },
    error_rate: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.positive? && r < 1 } },
    generations: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.between?(1, 8) } },
    distinct_count: { ok: ->(h, _, _, r, _) { r.is_a?(Integer) && r.between?(0, h.count) } },
    capacity: { ok: ->(_, _, _, r, _) { r.nil? } },
    over_capacity?: { ok: ->(_, _, _, r, _) { r == false } },
    windows: { ok: ->(h, _, _, r, _) { r.is_a?(Array) && r.size <= h.obj.generations + 1 && r.all?(&window_ok) } },
    clock: { ok: ->(h, _, _, r, _) { r.equal?(h.obj.instance_variable_get(:@clock)) } },
    "clock=": { params: [[:clock, nil]], write: true, ok: ->(h, a, _, r, _) { r.equal?(a[0]) && h.obj.clock.equal?(a[0]) } },
    # set operations: a twin gets UnsupportedError, anything else what SetOps says of it
    **%i[| &].to_h { |name| [name, { params: [TWIN], base: ->(_) { [Bloomc::UnsupportedError] }, ok: ->(*) { "returned" } }] },
    merge!: { params: [TWIN], write: true, base: ->(h) { h.write_frozen? ? [FrozenError] : [Bloomc::UnsupportedError] },
              ok: ->(*) { "returned" } }
  ).merge(BATCH, STATS, SET_OPS.except(:|, :&, :merge!), PERSISTENCE, METADATA, PAGES).freeze

  # add? stores a copy only of a key it does not find (the model follows
  # what it returned).
  cuckoo_add_if_new = {
    params: [[:key, "added"]], write: true,
    ok: lambda do |h, a, _, r, _|
      expected = h.expected_include(a[0])
      next "returned #{r.inspect}, not self or nil" unless r.nil? || r.equal?(h.obj)

      h.add(a[0]) if r.equal?(h.obj)
      expected.nil? || expected == r.nil? || "returned #{r.nil? ? 'nil' : 'self'} for a key #{expected ? 'present' : 'new'}"
    end
  }
  # Without threads: (Batch's one check, covered in the other classes): each
  # call adds the keys again, and a cuckoo filter holds a key at most 8
  # times, so the calls for every threads: value would fill it.
  CUCKOO_BATCH = BATCH.transform_values { |recipe| recipe.except(:kw) }.freeze
  CUCKOO_FILTER = FILTER_BASICS.merge(
    add?: cuckoo_add_if_new,
    delete: counted_delete,
    remove: counted_delete,
    count: count,
    m: { ok: ->(h, _, _, r, _) { r == h.obj.buckets * Bloomc::CuckooFilter::SLOTS } },
    size: { ok: ->(h, _, _, r, _) { r == h.size } },
    buckets: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r.positive? } },
    fingerprint_bits: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && (8..32).cover?(r) } },
    load_factor: { ok: ->(h, _, _, r, _) { r.is_a?(Float) && (r * h.obj.m).round == h.obj.size } },
    estimated_count: { ok: ->(h, _, _, r, _) { r == h.obj.size } },
    expected_false_positive_rate: { params: [[:count_or_zero, 10]], opt: 1, ok: UNIT_FLOAT[:ok] },
    "&": unsupported([[:unsupported, ->(h) { h.obj.dup }]]),
    inspect: { ok: ->(h, _, _, r, _) { INSPECT.call(h, nil, nil, r, nil) && r.include?("size=#{h.obj.size} ") } }
  ).merge(CUCKOO_BATCH, STATS.except(:estimated_count), SET_OPS.except(:&), PERSISTENCE, METADATA, PAGES, SIZING).freeze

  # Built once: every write raises UnsupportedError, whatever its arguments.
  BINARY_FUSE_FILTER = FILTER_BASICS.merge(
    m: { ok: ->(_, _, _, r, _) { r.is_a?(Integer) && r >= 0 } },
    size: { ok: ->(h, _, _, r, _) { r == h.obj.dup.size } },
    fingerprint_bits: { ok: ->(_, _, _, r, _) { [8, 16].include?(r) } },
    bits_per_key: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r >= 0 } },
    capacity: { ok: ->(_, _, _, r, _) { r.nil? } },
    error_rate: { ok: ->(_, _, _, r, _) { r.nil? } },
    over_capacity?: { ok: ->(_, _, _, r, _) { r == false } },
    fill_ratio: UNIT_FLOAT,
    estimated_count: { ok: ->(h, _, _, r, _) { r == h.obj.size } },
    false_positive_rate: { ok: ->(h, _, _, r, _) { r == (keyless?(h.obj) ? 0.0 : 2.0**-h.obj.fingerprint_bits) } },
    empty?: { ok: ->(h, _, _, r, _) { r == keyless?(h.obj) } }
  ).merge(BATCH.except(:add_all, :add_new), PERSISTENCE, METADATA, PAGES).merge(
    %i[add << add? delete remove].to_h { |name| [name, unsupported([[:unsupported, "x"]])] },
    %i[add_all add_new].to_h { |name| [name, unsupported([[:unsupported, ["x"]]])] },
    %i[merge! | &].to_h { |name| [name, unsupported([[:unsupported, ->(h) { h.obj.dup }]])] },
    clear: unsupported([])
  ).freeze
end
