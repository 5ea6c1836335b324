# frozen_string_literal: true

require "spec_helper"
require "tmpdir"

# Filters kept in a memory-mapped file: created or reopened, shared with
# readers, durable after flush even when the writer is killed, one writer at
# a time, and larger than it would be comfortable to hold on the heap.
RSpec.describe "memory-mapped filters" do
  around do |example|
    Dir.mktmpdir { |dir| @dir = dir; example.run }
  end

  def path(name = "f.bloom") = File.join(@dir, name)

  keys = Array.new(500) { |i| "mapped-#{i}" }.freeze
  later = Array.new(500) { |i| "later-#{i}" }.freeze

  kinds = {
    Bloomc::BloomFilter => { m: 20_000, k: 5 },
    Bloomc::CountingBloomFilter => { m: 20_000, k: 5, width: 4 },
    Bloomc::ContinuousBloomFilter => { m: 20_000, k: 5, ttl: 0 }
  }

  kinds.each do |klass, shape|
    describe klass do
      it "creates the file, keeps adds in it, and reopens to an equal filter" do
        filter = klass.open(path, **shape)
        expect([filter.mapped?, filter.path, filter.closed?]).to eq([true, path, false])
        filter.add_all(keys)
        copy = filter.dup
        expect(copy.mapped?).to be(false)
        expect(filter.close).to be_nil
        expect(filter.closed?).to be(true)
        expect { filter << "x" }.to raise_error(IOError, /closed/)
        expect(filter.close).to be_nil # twice is fine
        expect(filter.inspect).to eq("#<#{klass} (closed)>")
        reopened = klass.open(path)
        expect(reopened).to eq(copy)
        expect(reopened.all_include?(keys)).to be(true)
        reopened.close
        expect(Bloomc.load_file(path)).to eq(copy) # a closed file is an ordinary saved filter
      end

      it "keeps every key added before flush when the writer is killed, and reopens as a writer" do
        pid = fork do
          filter = klass.open(path, **shape)
          filter.add_all(keys)
          filter.flush
          filter.add_all(later)
          Process.kill(:KILL, Process.pid)
        end
        Process.wait(pid)
        expect($?.termsig).to eq(9)
        recovered = klass.open(path)
        expect(recovered.all_include?(keys)).to be(true)
        expect(recovered.count_included(later)).to be >= 0 # there or not: they came after the flush
        recovered << "after recovery"
        recovered.close
        expect(Bloomc.load_file(path).include?("after recovery")).to be(true)
      end

      it "lets readers watch one writer, refuses a second writer, and freezes readers" do
        writer = klass.open(path, **shape)
        reader = klass.open(path, readonly: true)
        expect(reader.frozen?).to be(true)
        expect { reader << "x" }.to raise_error(FrozenError)
        expect(reader.include?(keys[0])).to be(false)
        writer << keys[0]
        expect(reader.include?(keys[0])).to be(true) # the same pages
        second = fork do
          klass.open(path)
          exit!(0)
        rescue Bloomc::LockedError
          exit!(3)
        end
        Process.wait(second)
        expect($?.exitstatus).to eq(3)
        expect { klass.open(path) }.to raise_error(Bloomc::LockedError, /open for writing in another process/)
        reader.close
        writer.close
        klass.open(path) { |again| expect(again.include?(keys[0])).to be(true) } # the lock went with close
      end
    end
  end

  it "checks a given shape against the file, and needs one to create it" do
    Bloomc::BloomFilter.open(path, m: 1000, k: 3, &:itself)
    expect { Bloomc::BloomFilter.open(path, m: 1001, k: 3) }.to raise_error(ArgumentError, /different m \(1000, asked for 1001\)/)
    expect { Bloomc::CountingBloomFilter.open(path) }.to raise_error(Bloomc::FormatError, /holds a Bloomc::BloomFilter/)
    expect { Bloomc::BloomFilter.open(path("new.bloom")) }.to raise_error(ArgumentError, /give the filter's shape/)
    expect { Bloomc::BloomFilter.open(path("none.bloom"), readonly: true) }.to raise_error(Errno::ENOENT)
    Bloomc::BloomFilter.new(100, 2).save(path("deflated.bloom"), compress: true)
    expect { Bloomc::BloomFilter.open(path("deflated.bloom")) }.to raise_error(Bloomc::FormatError, /deflated/)
  end

  it "refuses a closed file whose cells were damaged, unless told not to read them all" do
    Bloomc::BloomFilter.open(path, m: 8192, k: 3) { |f| f << "a" }
    File.open(path, "r+b") { |f| f.pread(1, 200).then { |b| f.pwrite((b.ord ^ 1).chr, 200) } }
    expect { Bloomc::BloomFilter.open(path) }.to raise_error(Bloomc::FormatError, /body checksum mismatch/)
    Bloomc::BloomFilter.open(path, verify: false, &:itself)
  end

  it "clears, on reopening, continuous buckets a killed writer's clock had already expired" do
    Bloomc::ContinuousBloomFilter.open(path, m: 100, k: 2, ttl: 0) { |f| f << "a" }
    header = File.binread(path, 128)
    body_at = 128
    File.open(path, "r+b") do |f|
      f.pwrite([header.getbyte(12) | 2].pack("C"), 12) # a writer had it open
      f.pwrite("\x09".b, body_at) # bucket 0: slot 9, not live at slot 1
    end
    data = File.binread(path)
    fixed = data.dup
    fixed[116, 4] = [Bloomc::CRC32C.checksum(fixed.byteslice(0, 116))].pack("L<") # the header's checksum (10 parameters)
    File.binwrite(path, fixed)
    expect { Bloomc::ContinuousBloomFilter.open(path, readonly: true) }.to raise_error(Bloomc::FormatError, /not live/)
    Bloomc::ContinuousBloomFilter.open(path) do |f|
      expect(f.buckets[0]).to eq(0)
      expect(f.include?("a")).to be(true)
    end
  end

  it "keeps the clock in the file as it ticks, before the flush" do
    filter = Bloomc::ContinuousBloomFilter.open(path, m: 1000, k: 3, ttl: 0)
    filter << "a"
    3.times { filter.inc_time_slot }
    expect(Bloomc.load_file(path).ticks).to eq(3)
    filter.close
  end

  it "maps a sparse file of 4 GiB, touching only the pages its keys set" do
    big = Bloomc::BloomFilter.open(path, m: 2**35, k: 7)
    big.add_all(keys)
    expect(ObjectSpace.memsize_of(big)).to be < 1024 # the cells are the page cache's, not the heap's
    big.close
    stat = File.stat(path)
    expect(stat.size).to eq(2**32 + 128)
    expect(stat.blocks * 512).to be < 64 * 2**20 # 3,500 bits set: a few thousand pages on disk
    Bloomc::BloomFilter.open(path, readonly: true) do |reader| # checks the checksum: holes are skipped
      expect(reader.all_include?(keys)).to be(true)
      expect(reader.count_included(later)).to eq(0)
    end
  end

  it "computes the checksum over holes as over the zeros they read as" do
    filter = Bloomc::BloomFilter.open(path, m: 2**27, k: 4) # 16 MiB, nearly all hole
    filter.add_all(keys.first(20))
    filter.close
    body = File.binread(path, 2**24, 128)
    expect(File.binread(path, 4, 16 + 8 * 5 + 16).unpack1("L<")).to eq(Bloomc::CRC32C.checksum(body))
    expect(Bloomc.load_file(path).all_include?(keys.first(20))).to be(true)
  end

  it "views of a closed filter raise IOError" do
    filter = Bloomc::BloomFilter.open(path, m: 1000, k: 3)
    bits = filter.bits
    filter.close
    expect { bits.total_set }.to raise_error(IOError, /closed/)
  end
end
