# frozen_string_literal: true

require "spec_helper"

# Long-running loops must not grow the process beyond the filters themselves:
# a leak of even a few bytes per call shows up as megabytes here.
RSpec.describe "memory over long runs", :slow do
  def rss_kib
    File.read("/proc/self/status")[/^VmRSS:\s+(\d+)/, 1].to_i
  end

  # RSS after a full GC and after glibc returns its free pages to the kernel,
  # so that it counts memory in use rather than the heap's high-water mark.
  def settled_rss_kib
    GC.start(full_mark: true, immediate_sweep: true)
    @malloc_trim ||= begin
      require "fiddle"
      Fiddle::Function.new(Fiddle::Handle::DEFAULT["malloc_trim"], [Fiddle::TYPE_SIZE_T], Fiddle::TYPE_INT)
    rescue Fiddle::DLError
      ->(_) {}
    end
    @malloc_trim.call(0)
    rss_kib
  end

  # RSS growth over the block, run twice in a row, the smaller of the two. A
  # leak grows the process in both runs alike; the heap's own growth (Ruby
  # adding object pages or glibc an arena, as GC timing left by earlier specs
  # decides) shows in one run at most, and made a single run flaky.
  def growth_kib
    Array.new(2) do
      before = settled_rss_kib
      yield
      settled_rss_kib - before
    end.min
  end

  it "adds and lookups on live filters allocate nothing that stays" do
    filter = Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01)
    continuous = Bloomc::ContinuousBloomFilter.new(capacity: 100_000, error_rate: 0.01, ttl: 0)
    keys = Array.new(1000) { |i| "key-#{i}-#{'x' * 30}" }
    work = lambda do |rounds|
      rounds.times do |r|
        keys.each do |key|
          filter << key
          filter.include?(key)
          continuous << key
          continuous.include?(key)
          filter.include?(r)
        end
        continuous.inc_time_slot
      end
    end
    work.call(50) # warm up: the keys, method caches, the heap
    grown = growth_kib { work.call(1000) } # 5 million calls
    expect(grown).to be < 4096
  end

  it "filters, copies, views and failed calls are freed" do
    work = lambda do |rounds|
      rounds.times do
        filter = Bloomc::BloomFilter.new(100_000, 5)
        filter << "a"
        filter.dup.bits.total_set
        continuous = Bloomc::ContinuousBloomFilter.new(50_000, 3, 0)
        continuous.dup.buckets.total_set
        Bloomc::BitBucketField.new(7, 10_000).dup
        begin
          filter << nil
        rescue TypeError
          nil
        end
        begin
          Bloomc::BloomFilter.new(-1, 3)
        rescue ArgumentError
          nil
        end
      end
    end
    work.call(200)
    # Each round allocates about 100 KB: 5,000 leaking rounds would be 500 MB.
    grown = growth_kib { work.call(5000) }
    expect(grown).to be < 16_384
  end

  it "the libBf family frees its cells, levels, halves and copies, and failed calls leak nothing" do
    keys = Array.new(50) { |i| "fam-#{i}" }
    work = lambda do |rounds|
      rounds.times do
        counting = Bloomc::CountingBloomFilter.new(20_000, 4).add_all(keys)
        keys.each { |key| counting.delete(key) }
        rm = Bloomc::SpectralBloomFilter.new(20_000, 4, algorithm: :rm).add_all(keys)
        rm.dup.delete(keys[0])
        bitwise = Bloomc::BitwiseBloomFilter.new(5_000, 3, width: 1)
        3.times { bitwise.add_all(keys) } # grows to several levels
        bitwise.dup.count(keys[1])
        stable = Bloomc::StableBloomFilter.new(20_000, 4, 10, random_seed: 1).add_all(keys)
        a2 = Bloomc::A2BloomFilter.new(20_000, 4, capacity: 10).add_all(keys)
        [stable.dup, a2.dup]
        [-> { counting << nil }, -> { Bloomc::SpectralBloomFilter.new(10, 2).delete("a") },
         -> { Bloomc::StableBloomFilter.new(10, 2, 11) }, -> { a2.add_all(["x", nil]) }].each do |bad|
          bad.call
        rescue TypeError, ArgumentError, Bloomc::Error
          nil
        end
      end
    end
    work.call(100)
    # Each round allocates about 60 KB: 3,000 leaking rounds would be 180 MB.
    grown = growth_kib { work.call(3000) }
    expect(grown).to be < 16_384
  end

  it "scalable filters free the layers they grow, copy, merge and put back, and failed calls leak nothing" do
    keys = Array.new(3000) { |i| "sc-#{i}" }
    more = Array.new(2000) { |i| "more-#{i}" }
    work = lambda do |rounds|
      rounds.times do
        grown = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 64).add_all(keys) # 6 layers
        grown.dup.add_all(more)
        (grown | Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 64).add_all(more)).clear
        Bloomc.load(grown.dump)
        # one layer of about 60 KB, copied before each batch that may not fit
        capped = Bloomc::ScalableBloomFilter.new(error_rate: 0.001, initial_capacity: 25_000, max_capacity: 25_000)
        capped.add_all(keys)
        [-> { capped.add_all(more + ["x"] * 30_000) }, -> { capped.add_new(Array.new(30_000) { |i| i }) },
         -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.1, initial_capacity: 2, growth: 1).add_all(keys) },
         -> { capped << nil }, -> { capped.add_all(keys + [nil]) }, -> { grown & grown },
         -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1, growth: 1, max_capacity: 65) },
         -> { Bloomc::ScalableBloomFilter.allocate.add("a") }].each do |bad|
          bad.call
        rescue TypeError, ArgumentError, Bloomc::Error
          nil
        end
      end
    end
    work.call(20)
    # Each round allocates about 300 KB: 500 leaking rounds would be 150 MB,
    # a leaked copy of the capped filter's layer alone 60 MB.
    grown = growth_kib { work.call(500) }
    expect(grown).to be < 16_384
  end

  it "mapped filters give back their mappings, file descriptors and locks" do
    require "tmpdir"
    Dir.mktmpdir do |dir|
      path = File.join(dir, "f.bloom")
      fds = -> { Dir.children("/proc/self/fd").size }
      work = lambda do |rounds|
        rounds.times do |i|
          writer = Bloomc::BloomFilter.open(path, m: 80_000, k: 3)
          writer << i
          reader = Bloomc::CountingBloomFilter.open(File.join(dir, "c.bloom"), m: 20_000, k: 3)
          reader.close
          writer.close
          Bloomc::BloomFilter.open(path) { |again| again.include?(i) } # the lock was released
          begin
            Bloomc::BloomFilter.open(path, m: 1, k: 1) # a shape mismatch closes the file too
          rescue ArgumentError
            nil
          end
        end
      end
      work.call(50)
      # Descriptors of earlier specs' unreachable objects (sockets, files)
      # close when they are collected: collect them first, so that the count
      # moves only with this work's own. (A CI run once saw 9 become 8.)
      GC.start
      before = fds.call
      grown = growth_kib { work.call(1000) }
      expect(fds.call).to eq(before)
      expect(grown).to be < 8192
    end
  end
end
