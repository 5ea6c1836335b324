# frozen_string_literal: true

# One side of `rake bench:ab` (bench/ab.rb), run in a fresh process per side
# and alternation: loads bloomc from the lib directory given, times the rows
# and prints them as JSON on its last line.
#
#   ruby bench/ab_timing.rb list LIB          the rows this build can run
#   ruby bench/ab_timing.rb time LIB ROWS...  ns per operation of each row
#
# Every row works on the same fixed keys, in filters sized for CAPACITY keys
# at ERROR: cache-resident (BloomFilter 117 KiB, the 4-bit kinds 4 times
# that). Single keys go through a block, as in `rake bench`; an add row adds
# every key to fresh filters made (and their pages committed) untimed, so
# each add sets its cells rather than finding them set; the lookups run over
# a filter holding the keys. The rows run interleaved, ROUNDS times, and each
# keeps its fastest round (as BenchSupport.best_times, but by this thread's
# CPU clock); bench/ab.rb takes the median of those over the alternations.

require "json"
require_relative "support"

module AbTiming
  module_function

  CAPACITY = 100_000
  ERROR = 0.01
  TTL = 3600 # a continuous filter's keys outlive the run (no timer runs)
  # Passes over the keys a timed round makes: 100,000 single keys at 40-90 ns
  # and 200,000 keys in batches at 12-60 ns take 2-12 ms a round. Short
  # rounds, many of them (AB_ROUNDS, default 15): on a shared machine the
  # fastest of them is one a neighbour's time slice did not fall in.
  SINGLE_PASSES = 1
  BATCH_PASSES = 2
  # Made by build(keys), never added to.
  BUILT_ONCE = %i[BinaryFuseFilter].freeze

  OPS = ["add", "include? hit", "include? miss", "add_all", "count_included hits", "count hit", "delete"].freeze
  LOOKUP_OPS = ["include? hit", "include? miss", "count_included hits"].freeze

  def keys = @keys ||= BenchSupport.hex_keys(CAPACITY, 1).each(&:freeze)
  def absent = @absent ||= BenchSupport.hex_keys(CAPACITY, 2).each(&:freeze)

  def load(lib)
    $LOAD_PATH.unshift(lib)
    require "bloomc"
    loaded = $LOADED_FEATURES.grep(%r{/bloomc/bloomc\.so\z}).first
    abort "ab_timing: bloomc.so came from #{loaded}, not #{lib}" unless loaded&.start_with?(lib)
    loaded
  end

  def kinds = Bloomc::Format::KINDS.values.select { |name| Bloomc.const_defined?(name) }

  # An empty filter of the kind, its pages committed; with from, a filter
  # built once from those keys (a kind in BUILT_ONCE).
  def make(kind, from: nil)
    klass = Bloomc.const_get(kind)
    return klass.build(from) if BUILT_ONCE.include?(kind)

    case kind
    when :ScalableBloomFilter then klass.new(error_rate: ERROR, initial_capacity: CAPACITY, prefault: true)
    when :ContinuousBloomFilter then klass.new(capacity: CAPACITY, error_rate: ERROR, ttl: TTL, prefault: true)
    else klass.new(capacity: CAPACITY, error_rate: ERROR, prefault: true)
    end
  end

  def holding(kind, present)
    return make(kind, from: present) if BUILT_ONCE.include?(kind)

    make(kind).tap { |f| present.each { |key| f.add(key) } }
  end

  def ops_of(kind) = BUILT_ONCE.include?(kind) ? LOOKUP_OPS : OPS

  # The job of one row (a lambda, or [prepare, run] for best_times) over
  # present and missing keys, and how many operations it times.
  def job(kind, op, present, missing, filter)
    single = SINGLE_PASSES * present.size
    batch = BATCH_PASSES * present.size
    case op
    when "add"
      [[-> { Array.new(SINGLE_PASSES) { make(kind) } }, ->(fresh) { fresh.each { |f| present.each { |key| f.add(key) } } }], single]
    when "include? hit" then [-> { SINGLE_PASSES.times { present.each { |key| filter.include?(key) } } }, single]
    when "include? miss" then [-> { SINGLE_PASSES.times { missing.each { |key| filter.include?(key) } } }, single]
    when "add_all" then [[-> { Array.new(BATCH_PASSES) { make(kind) } }, ->(fresh) { fresh.each { |f| f.add_all(present) } }], batch]
    when "count_included hits" then [-> { BATCH_PASSES.times { filter.count_included(present) } }, batch]
    when "count hit" then [-> { SINGLE_PASSES.times { present.each { |key| filter.count(key) } } }, single]
    when "delete"
      [[-> { Array.new(SINGLE_PASSES) { holding(kind, present) } }, ->(held) { held.each { |f| present.each { |key| f.delete(key) } } }], single]
    else raise ArgumentError, "unknown operation #{op}"
    end
  end

  # The rows this build runs: every operation of every kind that works on
  # ten keys (a kind or keyword the build lacks drops its rows).
  def list
    present = keys.first(10)
    missing = absent.first(10)
    kinds.flat_map do |kind|
      filter = holding(kind, present)
      ops_of(kind).filter_map do |op|
        run_once(job(kind, op, present, missing, filter).first)
        "#{kind} #{op}"
      rescue StandardError, NotImplementedError
        nil
      end
    rescue StandardError, NotImplementedError
      []
    end
  end

  def run_once(job)
    prepare, run = job.is_a?(Array) ? job : [nil, job]
    prepare ? run.call(prepare.call) : run.call
  end

  def cpu_now = Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
  def wall_now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

  # Timed by the CPU time of this thread rather than the wall clock: on a
  # shared machine another process may be given the same core for part of a
  # round, which doubled whole rows of one side in a trial (a neighbour's
  # pollution of the caches still counts).
  def best_cpu_times(jobs, rounds:) = BenchSupport.best_times(jobs, rounds: rounds, clock: method(:cpu_now))

  # ns per operation of each row, and the share of the timing's wall time
  # this thread was on a CPU.
  def time(rows, rounds:)
    by_kind = rows.group_by { |row| row.split(" ", 2).first.to_sym }
    jobs = {}
    counts = {}
    by_kind.each do |kind, kind_rows|
      filter = holding(kind, keys)
      kind_rows.each do |row|
        jobs[row], counts[row] = job(kind, row.split(" ", 2).last, keys, absent, filter)
      end
    end
    wall = wall_now
    cpu = cpu_now
    best = best_cpu_times(jobs, rounds: rounds)
    on_cpu = (cpu_now - cpu) / (wall_now - wall)
    [best.to_h { |row, seconds| [row, seconds * 1e9 / counts[row]] }, on_cpu]
  end
end

if $PROGRAM_NAME == __FILE__
  mode, lib, *rows = ARGV
  abort "usage: ab_timing.rb list LIB | time LIB ROWS..." unless %w[list time].include?(mode) && lib
  so = AbTiming.load(File.expand_path(lib))
  reply = { "so" => so }
  if mode == "list"
    reply["rows"] = AbTiming.list
  else
    reply["ns"], reply["on_cpu"] = AbTiming.time(rows, rounds: Integer(ENV.fetch("AB_ROUNDS", "15")))
  end
  puts JSON.generate(reply)
end
