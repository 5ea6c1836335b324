# frozen_string_literal: true

# As under ruby -w, before the gem loads: a warning from the gem's own files
# fails the run (spec/support/own_warnings.rb).
$VERBOSE = true
require_relative "support/own_warnings"

require "bloomc"
require "objspace"
require "weakref"

# GC_STRESS=1 runs every example under GC.stress. Give it a few files (e.g.
# `GC_STRESS=1 bundle exec rspec spec/bloomc/batch_spec.rb`): the whole suite
# would take hours, and examples that wait on the wall clock (a ttl, a timer)
# miss their deadlines under it. The normal run covers GC.stress and
# compaction in spec/bloomc/gc_spec.rb.
if ENV["GC_STRESS"] == "1"
  RSpec.configure do |config|
    config.around do |example|
      GC.stress = true
      example.run
    ensure
      GC.stress = false
    end
  end
end

module SpecHelpers
  FIXTURES = File.expand_path("fixtures", __dir__)

  # The exact distribution of X, the cells set by `throws` independent
  # throws into m: dist[j] is P(X = j). A reference for the rate of
  # independent probes, (X/m)^k over it.
  def set_cells_distribution(m, throws)
    dist = [1.0]
    throws.times do
      dist = (0..[dist.size, m].min).map do |j|
        (j < dist.size ? dist[j] * j / m : 0) + (j.positive? && j - 1 < dist.size ? dist[j - 1] * (m - j + 1) / m : 0)
      end
    end
    dist
  end

  def fixture_path(name)
    File.join(FIXTURES, name)
  end

  # Room for every object to move: Ruby 3.3 names it expand_heap (and warns
  # of double_heap), 3.1 double_heap.
  COMPACTION_HEAP =
    if GC.respond_to?(:verify_compaction_references) &&
        GC.method(:verify_compaction_references).parameters.include?(%i[key expand_heap])
      { expand_heap: true }
    else
      { double_heap: true }
    end

  # Compaction moves objects; verify_compaction_references also checks that no
  # reference was left pointing at a moved object. Where the platform cannot
  # compact, fall back to a full GC.
  def compact_gc
    if GC.respond_to?(:verify_compaction_references)
      GC.verify_compaction_references(toward: :empty, **COMPACTION_HEAP)
    else
      GC.start
    end
  rescue NotImplementedError
    GC.start
  end

  # count distinct 40-character lowercase hex keys (as in the benchmarks),
  # the same ones for the same seed on every run and machine.
  def hex_keys(count, seed:)
    rng = Random.new(seed)
    keys = {}
    keys[rng.bytes(20).unpack1("H*")] = true while keys.size < count
    keys.keys
  end

  # A skewed stream: length draws of key indexes 0...distinct, index i
  # drawn with weight 1 / (i + 1) (Zipf, s = 1), the same for the same seed.
  def zipf_stream(distinct, length, seed:)
    rng = Random.new(seed)
    total = 0.0
    cdf = (1..distinct).map { |i| total += 1.0 / i }
    Array.new(length) { x = rng.rand * total; cdf.bsearch_index { |c| c >= x } || distinct - 1 }
  end

  # The true count of each key of a stream.
  def tally(stream) = stream.tally

  # "prefix-0" .. "prefix-(count - 1)".
  def numbered_keys(count, prefix = "key") = Array.new(count) { |i| "#{prefix}-#{i}" }

  # Adds keys "prefix-0", "prefix-1", ... one at a time until +count+ of
  # them were new to the filter (add? said so); returns the new ones.
  def add_new_keys(filter, count, prefix = "fill")
    taken = []
    i = 0
    until taken.size == count
      key = "#{prefix}-#{i}"
      taken << key if filter.add?(key)
      i += 1
    end
    taken
  end
end

# The helpers in spec/support/, for every spec file. redis_servers.rb is the
# command .ci/run starts and stops the servers with (redis.rb loads its module).
Dir[File.join(__dir__, "support", "*.rb")].each do |file|
  require file unless File.basename(file) == "redis_servers.rb"
end

RSpec.configure do |config|
  config.include SpecHelpers
  config.disable_monkey_patching!
  config.expect_with(:rspec) { |c| c.syntax = :expect }
  config.order = :random
  Kernel.srand config.seed
  # The rate grid takes minutes: `rake spec:grid` (--tag grid) runs it.
  config.filter_run_excluding :grid unless config.inclusion_filter.rules.key?(:grid)

  # The gem and the files the specs require loaded with a warning: the run
  # fails before its first example.
  config.before(:suite) do
    warnings = OwnWarnings.take
    raise OwnWarnings.failure(warnings, "while loading") unless warnings.empty?
  end
  # An example that makes the gem warn fails, with what it said; a warning
  # between examples (a thread, a timer) fails the run at its end.
  stray = []
  config.before { stray.concat(OwnWarnings.take) }
  config.after do
    warnings = OwnWarnings.take
    raise OwnWarnings.failure(warnings, "in this example") unless warnings.empty?
  end
  config.after(:suite) do
    warnings = stray + OwnWarnings.take
    raise OwnWarnings.failure(warnings, "outside the examples") unless warnings.empty?
  end
end
