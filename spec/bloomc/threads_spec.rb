# frozen_string_literal: true

require "spec_helper"

# Several Ruby threads on one filter while its timer ticks and copies are
# taken: every call runs in C under the GVL, so each is atomic; nothing may
# crash and no key may be lost (within its TTL, for the continuous filter).
RSpec.describe "threads sharing a filter" do
  it "loses no key of a BloomFilter while others add, look up and dup" do
    filter = Bloomc::BloomFilter.new(capacity: 40_000, error_rate: 0.01)
    lost = Queue.new
    writers = Array.new(4) do |t|
      Thread.new do
        2_000.times do |i|
          key = "w#{t}-#{i}"
          filter << key
          lost << key unless filter.include?(key)
        end
      end
    end
    copier = Thread.new do
      copies = []
      while writers.any?(&:alive?)
        known = (0...4).flat_map { |t| ["w#{t}-0"] }.select { |k| filter.include?(k) }
        copy = filter.dup
        lost << "copy lost #{known}" unless known.all? { |k| copy.include?(k) }
        copies << copy.size
        Thread.pass
      end
      copies
    end
    writers.each(&:join)
    sizes = copier.value
    expect(lost.size).to eq(0)
    expect(filter.size).to eq(8_000)
    expect(sizes).to eq(sizes.sort) # copies see the count only grow
    expect((0...4).all? { |t| (0...2_000).all? { |i| filter.include?("w#{t}-#{i}") } }).to be(true)
  end

  it "loses no key of a ContinuousBloomFilter within its TTL while the timer ticks and copies are taken" do
    filter = Bloomc::ContinuousBloomFilter.new(capacity: 20_000, error_rate: 0.01, ttl: 0.2).start_timer
    lost = Queue.new
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 1.0
    threads = Array.new(4) do |t|
      Thread.new do
        i = 0
        while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
          key = "c#{t}-#{i}"
          added_at = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          filter << key
          found = filter.include?(key)
          # Under GVL contention a lookup can come later than ttl after the
          # add; only an absence sooner than that breaks the promise.
          age = Process.clock_gettime(Process::CLOCK_MONOTONIC) - added_at
          lost << [key, age] if !found && age < filter.ttl
          filter.include?("absent-#{t}-#{i}")
          filter.dup if (i % 500).zero?
          i += 1
        end
        i
      end
    end
    counts = threads.map(&:value)
    ticks = filter.ticks
    filter.stop_timer
    expect(lost.size).to eq(0)
    expect(counts.sum).to be > 1000
    expect(ticks).to be >= 5 # the timer really ticked during the run
  end
end
