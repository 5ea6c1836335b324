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

  # Runs every job once per round, interleaved so that a noisy neighbour slows
  # all of them alike, and keeps each job's fastest round (seconds).
  def best_times(jobs, rounds:)
    best = Hash.new(Float::INFINITY)
    rounds.times do
      jobs.each do |name, job|
        GC.start
        started = now
        job.call
        best[name] = [best[name], now - started].min
      end
    end
    best
  end

  # Bytes held by obj and everything it references that is not shared with
  # the rest of the process (for pure-Ruby filters: their Arrays and Bignums).
  def deep_memsize(obj)
    require "objspace"
    seen = {}
    stack = [obj]
    total = 0
    until stack.empty?
      o = stack.pop
      next if seen[o.__id__] || o.is_a?(Module)

      seen[o.__id__] = true
      total += ObjectSpace.memsize_of(o)
      stack.concat(ObjectSpace.reachable_objects_from(o) || [])
    end
    total
  end

  def print_table(title, header, rows)
    puts
    puts title
    widths = header.each_index.map { |i| ([header[i]] + rows.map { |r| r[i] }).map { |c| c.to_s.size }.max }
    line = ->(cells) { cells.each_with_index.map { |c, i| i.zero? ? c.to_s.ljust(widths[i]) : c.to_s.rjust(widths[i]) }.join("  ") }
    puts line.call(header)
    puts line.call(widths.map { |w| "-" * w })
    rows.each { |r| puts line.call(r) }
  end

  def load_peer(name)
    require name
    true
  rescue LoadError => e
    puts "(#{name} not available: #{e.message}; skipping it)"
    false
  end
end
