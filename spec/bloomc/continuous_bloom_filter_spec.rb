# frozen_string_literal: true

require "spec_helper"

RSpec.describe Bloomc::ContinuousBloomFilter do
  def timer_threads
    Thread.list.select { |t| t.name == "bloomc timer" && t.alive? }
  end

  def cpu_time
    Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  describe ".new" do
    it "takes m, k and ttl, or capacity:, error_rate: and ttl:" do
      filter = described_class.new(1000, 3, 60)
      expect([filter.m, filter.k, filter.ttl]).to eq([1000, 3, 60])
      sized = described_class.new(capacity: 60_000, error_rate: 0.001, ttl: 1.5)
      expect([sized.m, sized.k, sized.ttl]).to eq([*Bloomc::BloomFilter.find_m_k(60_000, 0.001), 1.5])
      expect([sized.capacity, sized.error_rate, filter.capacity]).to eq([60_000, 0.001, nil])
    end

    it "has bloombroom's constants" do
      expect(described_class::RESOLUTION_DIVISOR).to eq(2)
      expect(described_class::BITS_PER_BUCKET).to eq(4)
    end

    {
      [1000, 3, -1] => ArgumentError, [1000, 3, Float::NAN] => ArgumentError,
      [1000, 3, Float::INFINITY] => ArgumentError, [1000, 3, "60"] => TypeError,
      [0, 3, 1] => ArgumentError, [1000, 0, 1] => ArgumentError, [1000, 3.0, 1] => TypeError,
      [1000, 3] => ArgumentError, [1000] => ArgumentError
    }.each do |args, error|
      it "raises #{error} for #{args.inspect}" do
        expect { described_class.new(*args) }.to raise_error(error)
      end
    end

    it "raises for a missing or doubled ttl, an unknown hash or a seeded fnv1a" do
      expect { described_class.new(capacity: 10, error_rate: 0.1) }.to raise_error(ArgumentError, /ttl/)
      expect { described_class.new(100, 3, 1, ttl: 2) }.to raise_error(ArgumentError, /ttl/)
      expect { described_class.new(100, 3, 1, hash: :sha1) }.to raise_error(ArgumentError, /unknown hash/)
      expect { described_class.new(100, 3, 1, hash: :fnv1a, seed: 5) }.to raise_error(ArgumentError, /seed/)
    end

    it "holds about m/2 bytes" do
      filter = described_class.new(2_000_000, 7, 1)
      expect(ObjectSpace.memsize_of(filter)).to be_between(1_000_000, 1_000_000 + 352) # the struct, with its clock, mapping and allocation fields
    end
  end

  describe "the clock, advanced by hand (ttl 0, no timer)" do
    subject(:filter) { described_class.new(10_000, 5, 0) }

    it "add returns self and the key is present for 2 ticks, gone at the 3rd" do
      expect(filter.add("key")).to be(filter)
      expect(filter << "other").to be(filter)
      2.times do
        expect(filter.include?("key")).to be(true)
        filter.inc_time_slot
      end
      expect(filter["key"]).to be(true)
      filter.inc_time_slot
      expect(filter["key"]).to be(false)
    end

    it "inc_time_slot walks the ring 2, 3, ..., 15, 1" do
      slots = Array.new(16) { filter.inc_time_slot }
      expect(slots).to eq((2..15).to_a + [1, 2])
      expect(filter.ticks).to eq(16)
    end

    it "renews a key on every add" do
      filter << "key"
      10.times do
        2.times { filter.inc_time_slot }
        expect(filter.include?("key")).to be(true)
        filter << "key"
      end
    end

    (3..40).each do |ticks|
      it "has no zombie: a key is absent #{ticks} ticks after its add, looked up or not" do
        filter << "key"
        ticks.times { filter.inc_time_slot }
        expect(filter.include?("key")).to be(false)
        expect(filter.buckets.total_set).to eq(0)
      end
    end

    it "clears expired buckets at each tick and keeps live ones" do
      keys = Array.new(200) { |i| "k#{i}" }
      keys.first(100).each { |key| filter << key }
      filter.inc_time_slot
      keys.last(100).each { |key| filter << key }
      live = filter.buckets.total_set
      2.times { filter.inc_time_slot }
      expect(keys.last(100).all? { |key| filter.include?(key) }).to be(true)
      expect(filter.buckets.total_set).to be < live
      expect(filter.buckets.to_a.uniq.sort - [0]).to eq([2])
    end

    it "shows its buckets as a 4-bit BitBucketField sharing its memory" do
      filter << "key"
      buckets = filter.buckets
      expect([buckets.bits, buckets.size]).to eq([4, 10_000])
      expect(buckets.to_a.uniq.sort).to eq([0, 1])
      expect(buckets.total_set).to be_between(1, 5)
    end

    it "never loses a key within its TTL and keeps false positives near the target" do
      filter = described_class.new(capacity: 20_000, error_rate: 0.01, ttl: 0)
      rounds = Array.new(8) { |round| hex_keys(10_000, seed: 100 + round) }
      absent = hex_keys(20_000, seed: 999)
      rounds.each_with_index do |keys, round|
        keys.each { |key| filter << key }
        # Two rounds are alive: this one and the previous.
        expect(keys.all? { |key| filter.include?(key) }).to be(true)
        expect(rounds[round - 1].all? { |key| filter.include?(key) }).to be(true) if round.positive?
        rate = absent.count { |key| filter.include?(key) }.fdiv(absent.size)
        expect(rate).to be <= 0.015
        filter.inc_time_slot
        filter.inc_time_slot if round.odd? # keys of two rounds at most are ever alive
      end
    end
  end

  describe "the timer" do
    it "keeps a key for at least ttl and drops it by 1.5 ttl (plus 0.2 s tolerance)" do
      ttl = 0.4
      filter = described_class.new(10_000, 5, ttl).start_timer
      sleep(0.05)
      added_at = now
      filter << "key"
      last_present = added_at
      first_absent = nil
      deadline = added_at + 3 * ttl
      while now < deadline
        if filter.include?("key")
          last_present = now
        else
          first_absent = now
          break
        end
        sleep(0.005)
      end
      expect(first_absent).not_to be_nil
      expect(first_absent - added_at).to be >= ttl
      expect(last_present - added_at).to be <= 1.5 * ttl + 0.2
    ensure
      filter&.stop_timer
    end

    # A live schedule with no timer thread (what a timer kept from the GVL
    # looks like): only adds and lookups move the clock. With a ttl of 1 s, a
    # lookup reads the coarse clock where the build has Linux's
    # (build_features[:coarse_clock]) and the kernel's is that fine (a kernel
    # tick of 5 ms or less), else CLOCK_MONOTONIC, as an add always does: the
    # same expectations hold for both. Each step
    # sleeps to a deadline after the epoch and is skipped if the process woke
    # outside the window its expectation needs (a stalled machine).
    [0.4, 1.0].each do |ttl|
      [["include?", ->(f, key) { f.include?(key) }],
       ["count_included", ->(f, key) { f.count_included([key]) == 1 }]].each do |lookup, present|
        it "applies the ticks due on its own at every add and #{lookup} (ttl #{ttl})" do
          filter = described_class.new(1000, 3, ttl)
          period = ttl / 2.0
          epoch = now
          at = ->(t) { sleep([epoch + t - now, 0].max) }
          filter.send(:schedule_clock, epoch, period, true)
          filter << "old"
          at.(period + 0.05)
          skip "woke too late to add within tick 1" if now >= epoch + 2 * period
          expect(filter.ticks).to eq(0) # nothing else moves it
          filter << "new"
          expect(filter.ticks).to eq(1)
          at.(3 * period + 0.05)
          skip "woke too late to look up within tick 3" if now >= epoch + 4 * period
          expect(present.(filter, "old")).to be(false) # written at tick 0, expired at tick 3
          expect(filter.ticks).to eq(3)
          expect(present.(filter, "new")).to be(true) # written at tick 1: live through tick 3
        end
      end
    end

    it "ticks every ttl / 2 for a Float ttl under 2 s, sleeping rather than spinning" do
      filter = described_class.new(1000, 3, 0.2).start_timer
      cpu = cpu_time
      sleep(1.0)
      ticks = filter.ticks
      expect(ticks).to be_between(8, 11) # 1.0 / 0.1, give or take a late wake-up
      expect(cpu_time - cpu).to be < 0.3 # bloombroom's ttl / 2 == 0 would spin a core
    ensure
      filter&.stop_timer
    end

    it "runs one thread however often start_timer is called, until stop_timer" do
      before = timer_threads
      filter = described_class.new(1000, 3, 10)
      3.times { filter.start_timer }
      started = timer_threads - before
      expect(started.size).to eq(1)
      expect(filter.timer_running?).to be(true)
      filter.stop_timer
      started.first.join(1)
      expect(started.first.alive?).to be(false)
      expect(filter.timer_running?).to be(false)
    end

    it "refuses to start on a frozen filter, leaving no thread behind" do
      before = timer_threads
      filter = described_class.new(64, 3, 60).freeze
      expect { filter.start_timer }.to raise_error(FrozenError)
      expect(timer_threads - before).to be_empty
    end

    it "keeps its state and its timer when initialize is called again with bad arguments" do
      filter = described_class.new(64, 3, 60).start_timer
      expect { filter.send(:initialize, 64, 0, 5) }.to raise_error(ArgumentError)
      expect([filter.ttl, filter.k, filter.timer_running?]).to eq([60, 3, true])
      filter.stop_timer
      expect(filter.timer_running?).to be(false)
    end

    it "refuses a ttl too long for the timer to sleep" do
      expect { described_class.new(64, 3, 2**64) }.to raise_error(ArgumentError, /MAX_TTL/)
      expect(described_class.new(64, 3, described_class::MAX_TTL).ttl).to eq(2**32)
    end

    it "refuses a ttl too short for a timer" do
      expect { described_class.new(1000, 3, 0).start_timer }.to raise_error(ArgumentError, /inc_time_slot/)
      expect { described_class.new(1000, 3, 0.001).start_timer }.to raise_error(ArgumentError)
    end

    describe "catching up on the monotonic clock" do
      let(:timer_class) { described_class.const_get(:Timer) }
      let(:clock) { Struct.new(:t).new(100.0) }

      it "applies every tick a late wake-up missed" do
        filter = described_class.new(1000, 3, 1)
        filter << "key"
        timer = timer_class.new(filter, 0.5, clock: -> { clock.t })
        clock.t += 0.49
        expect(timer.catch_up).to eq(0)
        clock.t += 5 * 0.5 # the process was busy: five periods pass before the wake-up
        expect(timer.catch_up).to eq(5)
        expect(filter.ticks).to eq(5)
        expect(filter.include?("key")).to be(false)
      end

      it "does not drift over many periods of jittered wake-ups" do
        filter = described_class.new(1000, 3, 1)
        timer = timer_class.new(filter, 0.5, clock: -> { clock.t })
        rng = Random.new(3)
        1000.times do
          clock.t += 0.5 + rng.rand(0.02) # each wake-up a little late
          timer.catch_up
        end
        expect(filter.ticks).to eq(((clock.t - 100.0) / 0.5).floor)
      end

      it "stops when the filter is frozen" do
        filter = described_class.new(1000, 3, 1)
        timer = timer_class.new(filter, 0.5, clock: -> { clock.t })
        filter.freeze
        clock.t += 1
        expect(timer.catch_up).to be_nil
      end
    end

    it "does not keep an unreferenced filter alive, and its thread ends" do
      before = timer_threads
      # Made in a thread of its own, whose stack is gone when it ends: the
      # GC scans stacks conservatively, and a stale copy of the filter's
      # address in one of this thread's frames would keep it alive.
      ref = Thread.new { WeakRef.new(described_class.new(1000, 3, 0.04).start_timer) }.value
      thread = (timer_threads - before).first
      expect(thread).not_to be_nil
      deadline = now + 5
      while (ref.weakref_alive? || thread.alive?) && now < deadline
        GC.start(full_mark: true, immediate_sweep: true)
        sleep(0.05)
      end
      expect(ref.weakref_alive?).to be_falsey
      expect(thread.alive?).to be(false)
    end

    it "keeps expiring keys in a forked child" do
      ttl = 0.3
      filter = described_class.new(10_000, 5, ttl).start_timer
      reader, writer = IO.pipe
      pid = fork do
        reader.close
        filter << "child key"
        present = filter.include?("child key")
        sleep(1.5 * ttl + 0.3)
        writer.write([present, filter.include?("child key"), filter.timer_running?].inspect)
        writer.close
        exit!(0)
      end
      writer.close
      result = reader.read
      Process.wait(pid)
      expect(result).to eq("[true, false, true]")
    ensure
      filter&.stop_timer
    end

    it "stops a running timer when the filter is frozen, and keeps the frozen clock still" do
      filter = described_class.new(100, 2, 0.04).start_timer
      filter.freeze
      ticks = filter.ticks
      sleep(0.1)
      expect([filter.timer_running?, filter.ticks]).to eq([false, ticks])
      expect { filter.start_timer }.to raise_error(FrozenError)
    end

    it "restarts in a forked child the timers still running, and none of the filters dropped" do
      20.times { described_class.new(100, 2, 60).start_timer } # dropped while their timers run
      GC.start
      kept = described_class.new(100, 2, 60).start_timer
      stopped = described_class.new(100, 2, 60).start_timer.stop_timer
      reader, writer = IO.pipe
      pid = fork do
        reader.close
        sleep(0.2) # lets the dropped filters' timers find them gone
        GC.start
        writer.write([kept.timer_running?, stopped.timer_running?].inspect)
        writer.close
        exit!(0)
      end
      writer.close
      result = reader.read
      Process.wait(pid)
      expect([result, $?.exitstatus]).to eq(["[true, false]", 0])
    ensure
      kept&.stop_timer
    end

    it "loses no key within its TTL with threads adding and looking up while it ticks" do
      filter = described_class.new(capacity: 50_000, error_rate: 0.01, ttl: 0.2).start_timer
      failures = Queue.new
      threads = Array.new(4) do |t|
        Thread.new do
          500.times do |i|
            key = "t#{t}-#{i}"
            added_at = now
            filter << key
            found = filter.include?(key)
            failures << key if !found && now - added_at < filter.ttl # absent sooner than ttl
            filter.include?("absent-#{t}-#{i}")
            Thread.pass if (i % 50).zero?
          end
        end
      end
      threads.each(&:join)
      expect(failures.size).to eq(0)
    ensure
      filter&.stop_timer
    end
  end

  describe "copies, freezing, bad keys" do
    it "dup is deep, keeps the clock and has no timer" do
      filter = described_class.new(1000, 3, 5).start_timer
      filter << "a"
      copy = filter.dup
      copy << "b"
      expect(filter.include?("b")).to be(false)
      expect(copy.include?("a")).to be(true)
      expect(copy.timer_running?).to be(false)
      expect(copy).to eq(copy.dup)
    ensure
      filter&.stop_timer
    end

    it "a frozen filter refuses add and ticks and still answers" do
      filter = described_class.new(1000, 3, 0)
      filter << "a"
      filter.freeze
      expect { filter << "b" }.to raise_error(FrozenError)
      expect { filter.inc_time_slot }.to raise_error(FrozenError)
      expect(filter.include?("a")).to be(true)
    end

    it "raises TypeError for a bad key and stays unchanged" do
      filter = described_class.new(1000, 3, 0)
      filter << "a"
      before = filter.dup
      expect { filter << nil }.to raise_error(TypeError, /NilClass/)
      expect { filter.include?(1.5) }.to raise_error(TypeError, /Float/)
      expect(filter).to eq(before)
    end

    it "raises instead of crashing when uninitialized" do
      filter = described_class.allocate
      expect { filter << "a" }.to raise_error(TypeError, /uninitialized/)
      expect { filter.inc_time_slot }.to raise_error(TypeError, /uninitialized/)
      expect { filter.start_timer }.to raise_error(TypeError, /uninitialized/)
      expect { filter.stop_timer }.to raise_error(TypeError, /uninitialized/)
      expect(filter.timer_running?).to be(false)
      expect(filter.inspect).to eq("#<Bloomc::ContinuousBloomFilter (uninitialized)>")
      skipped_super = Class.new(described_class) { def initialize; end }.new
      expect { skipped_super.stop_timer }.to raise_error(TypeError, /uninitialized/)
    end
  end
end
