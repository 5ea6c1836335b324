# frozen_string_literal: true

# Shared measuring helpers for the benchmarks: keys, timers and a table.
module BenchSupport
  module_function

  # count distinct 40-character hex keys, the same for the same seed.
  def hex_keys(count, seed)
    rng = Random.new(seed)
    Array.new(count) { rng.bytes(20).unpack1("H*") }
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # Adds the Integers from...to to filter, a million at a time (a batch
  # takes an Array); returns to.
  def add_integers(filter, from, to)
    while from < to
      upto = [to, from + 1_000_000].min
      filter.add_all((from...upto).to_a)
      from = upto
    end
    to
  end

  # Runs every job once per round, interleaved so that a noisy neighbour slows
  # all of them alike, and keeps each job's fastest round (seconds). A job is a
  # lambda, or a pair [prepare, run]: prepare's result (say a fresh empty
  # filter) is made untimed and passed to run, which alone is timed.
  #
  # A full GC a round, and a minor one before each job to collect the last
  # job's garbage: a full one marks every key of a large scenario (0.3 s for
  # 4M Strings), a minor one only what is new. clock: what to time by (the
  # wall clock; bench/ab_timing.rb passes the thread's CPU clock).
  def best_times(jobs, rounds:, clock: method(:now))
    best = Hash.new(Float::INFINITY)
    rounds.times do
      GC.start
      jobs.each do |name, job|
        prepare, run = job.is_a?(Array) ? job : [nil, job]
        input = prepare&.call
        GC.start(full_mark: false)
        started = clock.call
        prepare ? run.call(input) : run.call
        best[name] = [best[name], clock.call - started].min
      end
    end
    best
  end

  # Bytes held by obj and everything it references that is not shared with
  # the rest of the process (for pure-Ruby filters: their Arrays and Bignums).
  def deep_memsize(obj)
    require "objspace"
    seen = {}.compare_by_identity # by address: object_id would give each object an id
    stack = [obj]
    total = 0
    until stack.empty?
      o = stack.pop
      next if seen[o] || o.is_a?(Module)

      seen[o] = true
      total += ObjectSpace.memsize_of(o)
      stack.concat(ObjectSpace.reachable_objects_from(o) || [])
    end
    total
  end

  # The first `left` columns are text, left-aligned; the others numbers, right-aligned.
  def print_table(title, header, rows, left: 1)
    puts
    puts title
    widths = header.each_index.map { |i| ([header[i]] + rows.map { |r| r[i] }).map { |c| c.to_s.size }.max }
    line = ->(cells) { cells.each_with_index.map { |c, i| i < left ? c.to_s.ljust(widths[i]) : c.to_s.rjust(widths[i]) }.join("  ") }
    puts line.call(header)
    puts line.call(widths.map { |w| "-" * w })
    rows.each { |r| puts line.call(r) }
  end

  # For a part of `rake bench` run alone: prints the target rows its
  # targets(res, row:) gives, each with what was measured.
  def print_targets_alone(bench, res)
    row = lambda do |what, limit, checks|
      shown = checks.map { |label, (value, ok)| "#{label} #{value || 'n/a'}#{' (NO)' if ok == false}" }.join(", ")
      [what, shown, limit]
    end
    puts
    bench.targets(res, row: row).each { |what, shown, limit| puts "#{what}: #{shown} (target #{limit})" }
  end

  # The one-probe floor of a lookup: a BloomFilter of the same m with k = 1,
  # holding the same keys. Its misses are what is left of a lookup without
  # its other k - 1 probes: the call, the key read, MurmurHash3, one probe.
  def one_probe_filter(m, present)
    Bloomc::BloomFilter.new(m, 1).add_all(present)
  end

  def load_peer(name)
    require name
    true
  rescue LoadError => e
    puts "(#{name} not available: #{e.message}; skipping it)"
    false
  end
end
