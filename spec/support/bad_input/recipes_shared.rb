# frozen_string_literal: true

# Recipe pieces shared by the classes: the modules every filter includes
# (Batch, Stats, SetOps, Persistence, Metadata, Pages, Mapped, Sizing) and
# the checks of equality, hash and inspect.
module BadInputMatrix
  # A recipe says how to call a public method and what success means.
  # params: [kind, default] per positional parameter (default may be a lambda
  # of the receiver); opt: how many trailing ones are optional; kw: keyword
  # parameters; write: the method writes (FrozenError on a frozen receiver);
  # block: pass a block and check what it saw; ok: ->(h, args, kw, result,
  # yielded) checking a successful call against the model (and updating it),
  # returning true or a description of the mismatch. Rarer: base, ->(h) {
  # what the valid call must do } where that is not success; refuse, ->(h)
  # { errors the receiver gives any call it would accept }; in_tmpdir, run
  # each call in an empty directory of its own.

  # Whether a filter holds no keys. Not empty?, which asks whether its
  # cells are all clear, though RuboCop takes the two for one.
  def self.keyless?(filter) = filter.size.zero? # rubocop:disable Style/ZeroLengthPredicate

  POSITION = [:position, ->(h) { h.size - 1 }].freeze
  OTHER = [:any, ->(h) { h.obj.dup }].freeze
  SAME_AS_DUP = ->(h, a, _, r, _) { r == (a[0].is_a?(h.obj.class) && a[0].to_a == h.obj.to_a && a[0].size == h.obj.size) }
  SAME_AS_DUP_FILTER = ->(h, a, _, r, _) { r == (a[0].is_a?(h.obj.class) && h.obj.dup == a[0]) }
  HASH_LIKE_DUP = ->(h, _, _, r, _) { r.is_a?(Integer) && r == h.obj.dup.hash }
  INSPECT = ->(h, _, _, r, _) { r.is_a?(String) && r.start_with?("#<#{h.obj.class}") }

  batch_keys = ->(a) { a[0].to_a }
  batch_expected = ->(h, a) { batch_keys[a].map { |key| h.expected_include(key) } }
  batch_decided = lambda do |h, a, r, decisive|
    expected = batch_expected[h, a]
    next r == decisive if expected.include?(decisive)
    next r == !decisive if expected.all?(!decisive)

    [true, false].include?(r)
  end
  KEYS = [:keys, ["added", :sym, 7, 2**70]].freeze
  # add_new: the keys the model knew to be absent just before their add
  # must come back, in order, those it knew present must not; the model
  # takes each add as it goes, so a repeat within the batch is present.
  # A harness with its own add_new(key, returned) decides what it keeps.
  add_new_ok = lambda do |h, a, _, r, _|
    next "not an Array" unless r.is_a?(Array)

    at = 0
    problems = batch_keys[a].filter_map do |key|
      expected = h.expected_include(key)
      given = at < r.size && r[at].equal?(key)
      h.respond_to?(:add_new) ? h.add_new(key, given) : h.add(key)
      at += 1 if given
      "#{key.inspect} #{expected ? 'was present' : 'was new'}" if expected == given
    end
    problems << "#{r.size - at} keys returned that are not new" if at < r.size
    problems.empty? || problems.join(", ")
  end
  # threads: on every batch method (nil: automatic; above 64: 64).
  THREADS = { threads: [:threads, 2] }.freeze
  BATCH = {
    add_all: { params: [KEYS], kw: THREADS, write: true,
               ok: ->(h, a, _, r, _) { batch_keys[a].each { |key| h.add(key) }; r.equal?(h.obj) } },
    add_new: { params: [KEYS], kw: THREADS, write: true, ok: add_new_ok },
    include_all: {
      params: [KEYS], kw: THREADS,
      ok: lambda do |h, a, _, r, _|
        expected = batch_expected[h, a]
        next "not an Array of #{expected.size} booleans" unless r.is_a?(Array) && r.size == expected.size

        r.zip(expected).all? { |got, want| want.nil? ? [true, false].include?(got) : got == want } || "#{r} vs #{expected}"
      end
    },
    count_included: {
      params: [KEYS], kw: THREADS,
      ok: ->(h, a, _, r, _) { e = batch_expected[h, a]; r.is_a?(Integer) && r.between?(e.count(true), e.count { |x| x != false }) }
    },
    # Decided as soon as any key's answer is the decisive one (false for
    # all_include?, true for any_include?); keys the model cannot answer
    # leave either result possible.
    all_include?: { params: [KEYS], kw: THREADS, ok: ->(h, a, _, r, _) { batch_decided[h, a, r, false] } },
    any_include?: { params: [KEYS], kw: THREADS, ok: ->(h, a, _, r, _) { batch_decided[h, a, r, true] } }
  }.freeze

  # Bloomc::Stats, in every filter class: read from the cells, so only
  # their ranges and their agreement with each other are checked here.
  STATS = {
    fill_ratio: { ok: ->(_, _, _, r, _) { r.is_a?(Float) && r.between?(0, 1) } },
    # Infinity once the cells are all set (for A2: one half's).
    estimated_count: { ok: ->(h, _, _, r, _) { r.is_a?(Float) && r >= 0 && (r.finite? || h.obj.fill_ratio >= 0.5) } },
    false_positive_rate: { ok: ->(h, _, _, r, _) { r.is_a?(Float) && r.between?(0, 1) && (r.zero? == h.obj.fill_ratio.zero?) } }
  }.freeze

  # Bloomc::Sizing.
  SIZING = {
    capacity: { ok: ->(_, _, _, r, _) { r.nil? || (r.is_a?(Numeric) && r.positive?) } },
    error_rate: { ok: ->(_, _, _, r, _) { r.nil? || (r.is_a?(Float) && r.positive? && r < 1) } },
    over_capacity?: { ok: ->(h, _, _, r, _) { r == false || (r == true && !h.obj.capacity.nil?) } }
  }.freeze

  # Bloomc::SetOps, called with a copy of the receiver (same shape). A
  # union with itself keeps every key and adds up the sizes; an intersection
  # with itself keeps every key; clear forgets them all.
  TWIN = [:same_filter, ->(h) { h.obj.dup }].freeze
  found_all = ->(h, r) { h.model_keys.all? { |key| r.include?(key) } || "lost keys: #{h.model_keys.reject { |key| r.include?(key) }}" }
  new_with_every_key = lambda do |h, _, _, r, _|
    r.instance_of?(h.obj.class) && !r.equal?(h.obj) ? found_all[h, r] : "not a new #{h.obj.class}"
  end
  SET_OPS = {
    "|": { params: [TWIN], ok: new_with_every_key },
    "&": { params: [TWIN], ok: new_with_every_key },
    merge!: { params: [TWIN], write: true,
              ok: ->(h, _, _, r, _) { h.merged_with_itself; r.equal?(h.obj) } },
    clear: { write: true, ok: ->(h, _, _, r, _) { h.cleared; r.equal?(h.obj) && h.obj.empty? } },
    empty?: { ok: ->(h, _, _, r, _) { r == h.obj.fill_ratio.zero? } }
  }.freeze

  # Bloomc::Persistence: a dump loads back equal; save writes a file that
  # does (run in an empty directory of their own).
  round_trip = ->(h, data) { (Bloomc.load(data) == h.obj) || "loads back as #{Bloomc.load(data).inspect}" }
  PERSISTENCE = {
    dump: { kw: { compress: [:any, true] },
            ok: ->(h, _, _, r, _) { r.is_a?(String) && r.encoding == Encoding::BINARY ? round_trip[h, r] : "not a binary String" } },
    save: { params: [[:path, "saved.bloom"]], kw: { compress: [:any, false] }, in_tmpdir: true,
            ok: ->(h, a, _, r, _) { r.equal?(h.obj) ? round_trip[h, File.binread(a[0])] : "did not return self" } }
  }.freeze

  # Bloomc::Metadata (Persistence includes it): what is set reads back, as
  # JSON gives it; a refusal keeps the old value (run_call's snapshot).
  METADATA = {
    metadata: { ok: ->(_, _, _, r, _) { r.nil? || ((r.is_a?(String) || r.is_a?(Hash)) && r.frozen?) } },
    "metadata=": { params: [[:metadata, "a note"]], write: true,
                   ok: lambda { |h, a, _, r, _|
                     got = h.obj.metadata
                     r.equal?(a[0]) && (a[0].nil? ? got.nil? : got == JSON.parse(JSON.generate(a[0]))) || "reads back as #{got.inspect}"
                   } }
  }.freeze

  # Bloomc::Pages: committing pages changes nothing a method can see, frozen
  # or not (run_call's snapshot checks it).
  PAGES = { prefault!: { ok: ->(h, _, _, r, _) { r.equal?(h.obj) } } }.freeze

  # Bloomc::Mapped on filters that are not mapped (mapped_spec covers the
  # mapped ones): flush and close do nothing.
  MAPPED = {
    flush: { ok: ->(h, _, _, r, _) { r.equal?(h.obj) } },
    close: { ok: ->(_, _, _, r, _) { r.nil? } },
    closed?: { ok: ->(_, _, _, r, _) { r == false } },
    path: { ok: ->(_, _, _, r, _) { r.nil? } },
    mapped?: { ok: ->(_, _, _, r, _) { r == false } }
  }.freeze
end
