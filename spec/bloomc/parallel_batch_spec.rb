# frozen_string_literal: true

require "spec_helper"
require "rbconfig"
require "tmpdir"

# Batches on several native threads (Bloomc::Batch, batch.c): the same
# cells, counts and answers as on one, whatever the kind, size and keys.
RSpec.describe "batches on several threads" do
  # Enough keys that 2 and 3 threads are used (4,096 keys a thread at least).
  keys = Array.new(30_000) { |i| i.even? ? "key-#{i}" : i * 7919 }.freeze
  absent = Array.new(30_000) { |i| "absent-#{i}" }.freeze
  mixed = (keys + absent).shuffle(random: Random.new(4)).freeze

  # Each kind at a size that stays in the caches and at one past
  # BF_BATCH_PREFETCH_MIN_BYTES (1 MiB, where batches prefetch), with an m
  # whose bytes are not a multiple of a cache line, and k past 8 for the
  # blocked filter's second hash word.
  shapes = {
    "small" => 100_003, "prefetching" => 9_000_011
  }
  builders = Kinds::LIST.select(&:plain?).reject { |kind| kind.klass == Bloomc::ScalableBloomFilter }.flat_map do |kind|
    shapes.map { |label, m| ["#{kind.name}, #{label}", -> { Kinds.plain(kind.name, m, 7, **(kind.positional == :d ? { d: 3 } : {})) }] }
  end
  builders << ["BlockedBloomFilter, k = 11", -> { Bloomc::BlockedBloomFilter.new(2_000_000, 11) }]
  builders << ["ScalableBloomFilter", -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 5_000) }]
  builders << ["CuckooFilter", -> { Bloomc::CuckooFilter.new(capacity: 200_000, error_rate: 0.01) }]

  builders.each do |label, build|
    describe label do
      [2, 3].each do |threads|
        it "leaves the cells, count and answers of one thread with #{threads}" do
          serial = build.call
          parallel = serial.dup # the same random state, for the stable filter
          serial.add_all(keys.first(20_000), threads: 1)
          parallel.add_all(keys.first(20_000), threads: threads)
          new_serial = serial.add_new(keys, threads: 1)
          new_parallel = parallel.add_new(keys, threads: threads)
          expect(parallel.dump).to eq(serial.dump) # every cell and saved field
          expect(parallel.size).to eq(serial.size) if serial.respond_to?(:size)
          expect(new_parallel).to eq(new_serial)
          expect(new_parallel.first).to be(new_serial.first) unless new_serial.empty? # the same objects

          expect(parallel.include_all(mixed, threads: threads)).to eq(serial.include_all(mixed, threads: 1))
          expect(parallel.count_included(mixed, threads: threads)).to eq(serial.count_included(mixed, threads: 1))
          expect(parallel.all_include?(keys, threads: threads)).to eq(serial.all_include?(keys, threads: 1)) # A2, stable forget
          expect(parallel.all_include?(mixed, threads: threads)).to eq(serial.all_include?(mixed, threads: 1))
          expect(parallel.any_include?(absent, threads: threads)).to eq(serial.any_include?(absent, threads: 1))
          expect(parallel.any_include?(mixed, threads: threads)).to be(true)
        end
      end
    end
  end

  it "finds a key missing from the last group of the last thread (all_include?) and one found there (any_include?)" do
    filter = Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 1e-9)
    filter.add_all(keys, threads: 2)
    expect(filter.all_include?(keys + ["not added"], threads: 2)).to be(false)
    expect(filter.any_include?(absent + [keys.first], threads: 2)).to be(true)
    expect(filter.any_include?(absent, threads: 2)).to be(false)
  end

  it "runs a batch holding a Symbol or a Bignum on one thread, with the same result" do
    odd = keys.dup.insert(12_345, :symbol).insert(23_456, 2**70)
    serial = Bloomc::BlockedBloomFilter.new(capacity: 100_000, error_rate: 0.01)
    parallel = serial.dup
    serial.add_all(odd, threads: 1)
    parallel.add_all(odd, threads: 2)
    expect(parallel).to eq(serial)
    expect(parallel.include_all(odd, threads: 2)).to all(be(true))
  end

  it "raises TypeError for a bad key anywhere and leaves the filter as it was" do
    filter = Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01)
    filter.add_all(keys.first(100))
    before = filter.dump
    bad = keys.dup.insert(25_000, 1.5)
    expect { filter.add_all(bad, threads: 2) }.to raise_error(TypeError, /index 25000/)
    expect { filter.count_included(bad, threads: 2) }.to raise_error(TypeError, /index 25000/)
    expect(filter.dump).to eq(before)
  end

  it "takes threads: nil (automatic) and caps a large number" do
    filter = Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01)
    expect(filter.add_all(keys, threads: nil)).to be(filter)
    expect(filter.count_included(keys, threads: 10_000)).to eq(keys.size)
    expect { filter.count_included(keys, threads: 0) }.to raise_error(ArgumentError, /at least 1/)
    expect { filter.count_included(keys, threads: 2.0) }.to raise_error(TypeError, /Integer/)
  end

  it "loses no key of Ruby threads that add while parallel batches run" do
    filter = Bloomc::BloomFilter.new(capacity: 400_000, error_rate: 0.001)
    singles = Array.new(3) { |t| Array.new(3_000) { |i| "single-#{t}-#{i}" } }
    adders = singles.map { |mine| Thread.new { mine.each { |key| filter.add(key) } } }
    batches = Array.new(4) { |round| Array.new(20_000) { |i| "batch-#{round}-#{i}" } }
    batcher = Thread.new { batches.each { |batch| filter.add_all(batch, threads: 2) } }
    [*adders, batcher].each(&:join)
    everything = singles.flatten + batches.flatten
    expect(filter.all_include?(everything, threads: 2)).to be(true)
    expect(filter.size).to eq(everything.size)
  end

  it "forks while a parallel batch runs: the child sees it whole and can run one itself",
     skip: (RbConfig::CONFIG["host_os"].match?(/mswin|mingw/) ? "no fork" : false) do
    filter = Bloomc::BlockedBloomFilter.new(capacity: 200_000, error_rate: 0.001)
    batch = Array.new(150_000) { |i| "forked-#{i}" }
    reader, writer = IO.pipe
    forker = Thread.new do
      Thread.pass
      pid = fork do
        reader.close
        whole = filter.all_include?(batch, threads: 2) || filter.count_included(batch, threads: 2).zero?
        more = Array.new(20_000) { |i| "child-#{i}" }
        filter.add_all(more, threads: 2)
        writer.write(whole && filter.all_include?(more, threads: 2) ? "ok" : "bad")
        writer.close
        exit!(0)
      end
      Process.wait(pid)
    end
    filter.add_all(batch, threads: 2)
    forker.join
    writer.close
    expect(reader.read).to eq("ok")
    expect(filter.all_include?(batch, threads: 2)).to be(true)
  end

  it "keeps add_new's answers and the cells of one thread across several rounds (BloomFilter)" do
    # Rounds of 149,796 keys on two threads; the second half repeats keys of
    # the first round, so answers depend on keys of earlier rounds.
    many = Array.new(300_000) { |i| "round-#{i}" } + Array.new(100_000) { |i| "round-#{i * 3}" }
    serial = Bloomc::BloomFilter.new(80_000_000, 7)
    parallel = serial.dup
    expect(parallel.add_new(many, threads: 2)).to eq(serial.add_new(many, threads: 1))
    expect(parallel.dump).to eq(serial.dump)
  end

  describe "ContinuousBloomFilter" do
    it "stamps a parallel add with the clock as it runs: its keys live for the TTL, then expire" do
      now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      filter = Bloomc::ContinuousBloomFilter.new(4_000_000, 7, 1.0).start_timer # a tick every 0.5 s
      sleep 0.6
      filter.add_all(keys, threads: 2)
      added = now.call
      expect(filter.count_included(keys, threads: 2)).to eq(keys.size)
      sleep 0.7
      # Present for more than the TTL: checked only if this process woke in time.
      expect(filter.count_included(keys, threads: 2)).to eq(keys.size) if now.call - added < 0.8
      sleep [added + 1.6 - now.call, 0].max
      expect(filter.count_included(keys, threads: 2)).to eq(0) # gone 1.5 TTL after
    ensure
      filter&.stop_timer
    end

    it "looks up a mapped reader on one thread, following its writer's clock, with the writer's answers" do
      Dir.mktmpdir do |dir|
        path = File.join(dir, "c.bloom")
        Bloomc::ContinuousBloomFilter.open(path, m: 4_000_000, k: 7, ttl: 0) do |writer|
          writer.add_all(keys, threads: 2)
          Bloomc::ContinuousBloomFilter.open(path, readonly: true) do |reader|
            expect(reader.include_all(mixed, threads: 2)).to eq(writer.include_all(mixed, threads: 1))
          end
        end
      end
    end

    it "looks up a frozen filter on several threads without moving its clock" do
      filter = Bloomc::ContinuousBloomFilter.new(4_000_000, 7, 0.2).start_timer # a tick every 0.1 s
      filter.add_all(keys, threads: 2)
      filter.freeze
      ticks = filter.ticks
      sleep 0.35 # ticks came due: a clock that ran would have expired every key
      expect(filter.count_included(keys, threads: 2)).to eq(keys.size)
      expect(filter.include_all(mixed, threads: 2)).to eq(filter.include_all(mixed, threads: 1))
      expect(filter.ticks).to eq(ticks)
    end

    it "adds past several rounds as one thread does, and catches the clock up between rounds" do
      many = Array.new(400_000) { |i| "round-#{i}" } # rounds of 149,796 keys on two threads
      serial = Bloomc::ContinuousBloomFilter.new(40_000_000, 7, 3600)
      parallel = serial.dup
      serial.add_all(many, threads: 1)
      parallel.add_all(many, threads: 2)
      expect(parallel.dump).to eq(serial.dump)

      # A tick every 10 ms, the timer's shortest: a batch of several rounds
      # sees ticks come due, which only the batch itself can apply (it holds
      # the GVL, so the timer thread waits), and has those rounds stamped
      # again.
      ticking = Bloomc::ContinuousBloomFilter.new(40_000_000, 7, 0.02).start_timer
      now = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
      started = now.call
      ticking.add_all(many * 3, threads: 2)
      elapsed = now.call - started
      expect(ticking.ticks).to be >= 1 if elapsed >= 0.03
    ensure
      ticking&.stop_timer
    end
  end

  it "looks up on several threads inside a Ractor, in a frozen shared filter" do
    filter = Bloomc::BlockedBloomFilter.new(capacity: 100_000, error_rate: 0.001)
    filter.add_all(keys)
    shared = Ractor.make_shareable(filter.freeze)
    found = Warning[:experimental].then do |was|
      Warning[:experimental] = false
      Ractor.new(shared) { |f| f.count_included(Array.new(30_000) { |i| i.even? ? "key-#{i}" : i * 7919 }, threads: 2) }.take
    ensure
      Warning[:experimental] = was
    end
    expect(found).to eq(keys.size)
  end
end
