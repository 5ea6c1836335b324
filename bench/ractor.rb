# frozen_string_literal: true

require "etc"

require_relative "support"

# Parallel lookups (issue 23): count_included of one shared frozen filter
# (a BloomFilter and a BlockedBloomFilter, 200k keys at 1%, made shareable
# with Ractor.make_shareable) over a batch of keys, in 1 Ractor and in 2 at
# once, as keys looked up a second by all of them together; and Ruby's own
# String#hash loop over the same keys the same way, in the same run, as the
# reference: the most Ractors scale on this machine with no filter at all.
#
# Each worker Ractor builds its own keys (half in the filter, half not) and
# keeps them; a round sends each job to 1 worker, then to 2, and the time is
# the wall clock from the first worker's start to the last one's end. The
# fastest of the rounds counts. Beside it, the cores the workers were given
# (their threads' CPU time over that wall time): below 2 with 2 Ractors, the
# machine's other work took the rest, and the ratio says little; the keys a
# CPU-second, 2 Ractors over 1, then still say whether the lookups slow each
# other down (a lock, shared writes), which they should not: near 1.0x.
#
#   ruby -Ilib bench/ractor.rb
module RactorBench
  module_function

  N = 200_000
  # Keys a worker looks up in one pass (half present), and passes a job.
  BATCH = 100_000
  PASSES = 80
  TARGET = 1.5
  WORKERS = 2
  JOBS = ["BloomFilter", "BlockedBloomFilter", "String#hash loop"].freeze

  # { "BloomFilter" => { 1 => keys/s, 2 => keys/s }, ..., busy: { [job, n] => cores used }, cores: n }
  def run(rounds:)
    started = now
    puts "\n== Ractors: count_included of one shared frozen filter, 1 Ractor and #{WORKERS} at once " \
         "(#{Etc.nprocessors} cores)"
    filters = shared_filters
    workers = Array.new(WORKERS) { |i| worker(filters, i) }
    workers.each(&:take) # each has built its keys
    best = Hash.new([Float::INFINITY].freeze)
    rounds.times do |round|
      GC.start
      JOBS.rotate(round).each do |job| # no job always first after the GC
        (1..WORKERS).each { |n| best[[job, n]] = [best[[job, n]], timed(workers.first(n), job)].min_by(&:first) }
      end
    end
    workers.each { |w| w.send(:stop) }
    workers.each(&:take)
    rates = JOBS.to_h { |job| [job, (1..WORKERS).to_h { |n| [n, n * PASSES * BATCH / best[[job, n]].first] }] }
    busy = best.transform_values(&:last)
    print_table("keys a second, all Ractors together, and the cores they got (fastest of #{rounds} rounds)",
                ["", *(1..WORKERS).flat_map { |n| ["#{n} Ractor#{'s' if n > 1}", "cores"] }, "#{WORKERS} / 1",
                 "a CPU-second, #{WORKERS} / 1"],
                rates.map do |job, by|
                  [job, *by.flat_map { |n, r| [format("%.1fM", r / 1e6), format("%.2f", busy[[job, n]])] },
                   format("%.2fx", by[WORKERS] / by[1]),
                   format("%.2fx", (by[WORKERS] / busy[[job, WORKERS]]) / (by[1] / busy[[job, 1]]))]
                end)
    puts format("   the Ractor part took %.0f s", now - started)
    rates.merge(busy: busy, cores: Etc.nprocessors)
  end

  # The filters, frozen and shared: every worker looks keys up in the same one.
  def shared_filters
    present = hex_keys(N, 1)
    filters = [Bloomc::BloomFilter, Bloomc::BlockedBloomFilter].to_h do |klass|
      [klass.name.split("::").last, klass.new(capacity: N, error_rate: 0.01).add_all(present).freeze]
    end
    Ractor.make_shareable(filters)
  end

  # A worker: builds its keys (its own, so that the Ractors share nothing
  # but the filters), says so, then runs each job it is sent PASSES times and
  # answers with when it started and ended, and the CPU time its thread took.
  def worker(filters, index)
    Ractor.new(filters, index, BATCH, PASSES) do |fs, i, batch, passes|
      clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      cpu = -> { Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID) }
      # The filter's first keys (hex_keys(N, 1) draws them in this order),
      # each followed by one that is not in it. In the order they were made,
      # as compare.rb's: shuffled, reading the keys from all over the heap
      # would measure the memory more than the filter.
      own = Random.new(1)
      other = Random.new(100 + i)
      keys = Array.new(batch) { |j| (j.even? ? own : other).bytes(20).unpack1("H*").freeze }
      Ractor.yield :ready
      loop do
        job = Ractor.receive
        break if job == :stop

        started = clock.call
        cpu_started = cpu.call
        if job == "String#hash loop"
          passes.times { keys.each { |key| key.hash } } # rubocop:disable Style/SymbolProc -- a block, as compare.rb's loop
        else
          f = fs.fetch(job)
          passes.times { f.count_included(keys) }
        end
        Ractor.yield [started, clock.call, cpu.call - cpu_started]
      end
      :stopped
    end
  end

  # [seconds from the first worker's start to the last one's end, the cores
  # the workers were given meanwhile].
  def timed(workers, job)
    workers.each { |w| w.send(job) }
    spans = workers.map(&:take)
    wall = spans.map { _1[1] }.max - spans.map(&:first).min
    [wall, spans.sum(&:last) / wall]
  end

  # Rows for the target table (compare.rb's target_row).
  def targets(res, row:)
    ratio = ->(job) { res[job][WORKERS] / res[job][1] }
    checks = %w[BloomFilter BlockedBloomFilter].to_h { |job| [job, [format("%.2fx", ratio.(job)), ratio.(job) >= TARGET]] }
    got = res[:busy].select { |(_, n), _| n == WORKERS }.values.min
    checks["(String#hash loop #{format('%.2fx', ratio.('String#hash loop'))}; " \
           "#{WORKERS} Ractors got #{format('%.2f', got)} of #{res[:cores]} cores)"] = nil
    [row.("Ractors: count_included of one shared frozen filter, #{WORKERS} Ractors / 1 (keys a second)",
          ">= #{TARGET}x", checks)]
  end
end

if $PROGRAM_NAME == __FILE__
  require "bloomc"
  include BenchSupport

  Warning[:experimental] = false # Ractor's warning, once per process
  res = RactorBench.run(rounds: Integer(ENV.fetch("BENCH_ROUNDS", "5")))
  print_targets_alone(RactorBench, res)
end
