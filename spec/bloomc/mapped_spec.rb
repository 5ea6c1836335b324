# frozen_string_literal: true

require "spec_helper"
require "tmpdir"
require "fileutils"
require "fcntl"
require "open3"
require "socket"
require "timeout"

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
        expect { klass.open(path) }.to raise_error(Bloomc::LockedError, /open for writing \(by another process, or another open/)
        reader.close
        writer.close
        klass.open(path) { |again| expect(again.include?(keys[0])).to be(true) } # the lock went with close
      end
    end
  end

  it "checks a given shape against the file, and needs one to create it" do
    Bloomc::BloomFilter.open(path, m: 1000, k: 3, &:itself)
    before = File.binread(path)
    expect { Bloomc::BloomFilter.open(path, m: 1001, k: 3) }.to raise_error(ArgumentError, /different m \(1000, asked for 1001\)/)
    expect(File.binread(path)).to eq(before) # refused without writing
    expect { Bloomc::BloomFilter.open(path, capacity: 10, error_rate: 0.5) }.to raise_error(ArgumentError, /different m/)
    expect { Bloomc::CountingBloomFilter.open(path) }.to raise_error(Bloomc::FormatError, /holds a Bloomc::BloomFilter/)
    expect { Bloomc::BloomFilter.open(path("new.bloom")) }.to raise_error(ArgumentError, /give the filter's shape/)
    expect { Bloomc::BloomFilter.open(path("none.bloom"), readonly: true) }.to raise_error(Errno::ENOENT)
    Bloomc::BloomFilter.new(100, 2).save(path("deflated.bloom"), compress: true)
    expect { Bloomc::BloomFilter.open(path("deflated.bloom")) }.to raise_error(Bloomc::FormatError, /deflated/)
  end

  it "leaves no file behind when it cannot create one, and an empty file it found empty" do
    expect { Bloomc::BloomFilter.open(path("new.bloom")) }.to raise_error(ArgumentError, /give the filter's shape/)
    expect { Bloomc::BloomFilter.open(path("new.bloom"), m: 0, k: 3) }.to raise_error(ArgumentError)
    expect(File.exist?(path("new.bloom"))).to be(false)

    # The disk refuses the cells (a full disk, a size over the file system's
    # limit) after the header is written.
    allow_any_instance_of(File).to receive(:truncate).and_wrap_original do |original, length|
      raise Errno::ENOSPC if length.positive?

      original.call(length)
    end
    expect { Bloomc::BloomFilter.open(path("full.bloom"), m: 1000, k: 3) }.to raise_error(Errno::ENOSPC)
    expect(File.exist?(path("full.bloom"))).to be(false)
    File.write(path("empty.bloom"), "")
    expect { Bloomc::BloomFilter.open(path("empty.bloom"), m: 1000, k: 3) }.to raise_error(Errno::ENOSPC)
    expect(File.size(path("empty.bloom"))).to eq(0)
    allow_any_instance_of(File).to receive(:truncate).and_call_original

    Bloomc::BloomFilter.open(path("empty.bloom"), m: 1000, k: 3) { |f| f << "k" }
    expect(Bloomc.load_file(path("empty.bloom")).include?("k")).to be(true)
  end

  it "refuses a closed file whose cells were damaged, unless told not to read them all" do
    Bloomc::BloomFilter.open(path, m: 8192, k: 3) { |f| f << "a" }
    File.open(path, "r+b") { |f| f.pread(1, 200).then { |b| f.pwrite((b.ord ^ 1).chr, 200) } }
    expect { Bloomc::BloomFilter.open(path) }.to raise_error(Bloomc::FormatError, /body checksum mismatch/)
    Bloomc::BloomFilter.open(path, verify: false, &:itself)
  end

  # The file of a continuous filter (10 parameters) with bucket 0 set to
  # slot 9, which is not live at slot 1, and the open flag as given.
  def stale_bucket_file(open_flag)
    Bloomc::ContinuousBloomFilter.open(path, m: 100, k: 2, ttl: 0) { |f| f << "a" }
    data = File.binread(path)
    data.setbyte(12, open_flag ? 2 : 0)
    data.setbyte(128, 0x09)
    data[112, 4] = [Bloomc::CRC32C.checksum(data.byteslice(128..))].pack("L<") # the cells' checksum
    data[116, 4] = [Bloomc::CRC32C.checksum(data.byteslice(0, 116))].pack("L<") # the header's
    File.binwrite(path, data)
  end

  it "clears, on reopening, continuous buckets a killed writer's clock had already expired" do
    stale_bucket_file(true)
    Bloomc::ContinuousBloomFilter.open(path, readonly: true) do |reader| # a reader reads them as absent, and leaves them
      expect(reader.buckets[0]).to eq(9)
    end
    before = File.binread(path)
    expect { Bloomc::ContinuousBloomFilter.open(path, m: 100, k: 3, ttl: 0) }.to raise_error(ArgumentError, /different k/)
    expect(File.binread(path)).to eq(before) # a writer refused its shape writes nothing
    Bloomc::ContinuousBloomFilter.open(path) do |f| # a writer clears them
      expect(f.buckets[0]).to eq(0)
    end
    stale_bucket_file(false) # a cleanly closed file never holds one: refused
    expect { Bloomc::ContinuousBloomFilter.open(path, readonly: true) }.to raise_error(Bloomc::FormatError, /not live/)
  end

  it "lets a reader of a continuous filter follow the writer's clock" do
    writer = Bloomc::ContinuousBloomFilter.open(path, m: 4000, k: 3, ttl: 0)
    writer << "old"
    reader = Bloomc::ContinuousBloomFilter.open(path, readonly: true)
    writer.inc_time_slot
    writer << "new"
    expect(reader.include_all(%w[old new])).to eq([true, true])
    expect(reader.ticks).to eq(1)
    2.times { writer.inc_time_slot }
    expect(reader.include_all(%w[old new])).to eq([false, true])
    expect([reader.include?("old"), reader.count_included(%w[old new])]).to eq([false, 1])
    reader.close
    writer.close
  end

  # Not only lookups: whatever reads a reader first takes the writer's clock,
  # or a copy would treat the writer's newest slot as expired.
  it "gives a continuous reader's copies, dumps, merges and clock the writer's clock, with no lookup before" do
    writer = Bloomc::ContinuousBloomFilter.open(path, m: 4000, k: 3, ttl: 0)
    reader = Bloomc::ContinuousBloomFilter.open(path, readonly: true)
    2.times { writer.inc_time_slot }
    writer << "fresh"
    expect(reader.ticks).to eq(2)
    expect(reader.dup.include?("fresh")).to be(true)
    expect(Bloomc.load(reader.dump).include?("fresh")).to be(true)
    expect(Marshal.load(Marshal.dump(reader)).include?("fresh")).to be(true)
    merged = Bloomc::ContinuousBloomFilter.new(4000, 3, 0).merge!(reader)
    expect(merged.include?("fresh")).to be(true)
    expect(reader).to eq(writer)
    writer.inc_time_slot
    writer << "newest"
    expect((Bloomc::ContinuousBloomFilter.new(4000, 3, 0) | reader).include_all(%w[fresh newest])).to eq([true, true])
    reader.close
    writer.close
  end

  # A tick records the clock before it sweeps: a reader that copied the
  # cells then would see buckets its new clock has expired (and a dump of
  # them would not load); one that copied across a tick, buckets of two
  # clocks.
  it "dumps and copies a continuous reader consistently while its writer ticks", :slow do
    Bloomc::ContinuousBloomFilter.open(path, m: 4_000_000, k: 3, ttl: 0) { |f| f.add_all(Array.new(50_000) { |i| "k#{i}" }) }
    ready, go = IO.pipe
    writer = fork do
      filter = Bloomc::ContinuousBloomFilter.open(path)
      go.puts("ready")
      i = 0
      loop do
        filter.inc_time_slot
        filter.add_all(Array.new(5_000) { "x#{i += 1}" })
      end
    end
    ready.gets
    reader = Bloomc::ContinuousBloomFilter.open(path, readonly: true)
    refused = 0
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 1.5
    copies = 0
    while Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline || copies < 20
      [reader.dump, reader.dup.dump].each do |data|
        Bloomc.load(data)
      rescue Bloomc::FormatError
        refused += 1
      end
      copies += 1
    end
    expect([copies, refused]).to match([be >= 20, 0])
  ensure
    Process.kill(:KILL, writer) if writer
    Process.wait(writer) if writer
    reader&.close
  end

  it "gives a forked child the filter read-only; the file stays the parent's" do
    writer = Bloomc::BloomFilter.open(path, m: 10_000, k: 3)
    writer << "before"
    child = fork do
      outcome = begin
        writer << "child"
        "wrote"
      rescue FrozenError
        writer.include?("before") ? "read-only" : "lost"
      end
      writer.close # the child only unmaps: no header, no lock
      exit!(outcome == "read-only" ? 0 : 4)
    end
    Process.wait(child)
    expect($?.exitstatus).to eq(0)
    expect(File.binread(path, 2, 12).unpack1("S<") & 2).to eq(2) # still open: the child marked nothing
    writer << "after"
    writer.close
    expect(Bloomc.load_file(path).include_all(%w[before after child])).to eq([true, true, false])
  end

  # The child finds the mapped filters through their structs (mapping.c),
  # which must have let go of the dropped ones and followed the moved one. A
  # weak table of filters, used before, could hand the child a dead filter
  # whose state the GC had freed (seen in a full run, seed 39654).
  it "hands a forked child only live filters, after many were dropped and the live one was moved", :slow do
    200.times do |i|
      Bloomc::BloomFilter.open(path("dropped-#{i % 4}.bloom"), m: 20_000, k: 3) { |f| f << i }
      Array.new(2000) { Object.new } # minor collections while the dropped filters age
    end
    writer = Bloomc::ContinuousBloomFilter.open(path, m: 10_000, k: 3, ttl: 0)
    writer << "before"
    GC.verify_compaction_references(toward: :empty, **SpecHelpers::COMPACTION_HEAP) # moves the filter
    reader = Bloomc::ContinuousBloomFilter.open(path, readonly: true)
    child = fork do
      frozen = [writer, reader].all?(&:frozen?)
      writer << "child"
      exit!(4)
    rescue FrozenError
      exit!(frozen && writer.include?("before") && reader.include?("before") ? 0 : 5)
    rescue Exception # rubocop:disable Lint/RescueException
      exit!(6)
    end
    Process.wait(child)
    expect($?.exitstatus).to eq(0)
    writer << "after"
    expect(reader.include?("after")).to be(true)
    [reader, writer].each(&:close)
    expect { Bloomc::ContinuousBloomFilter.open(path, &:itself) }.not_to raise_error # the child held no lock
  end

  it "raises IOError, not SIGBUS, when the file is truncated under the filter" do
    writer = Bloomc::BloomFilter.open(path, m: 100_000, k: 3)
    writer << "a"
    File.truncate(path, 1000)
    expect { writer.flush }.to raise_error(IOError, /truncated/)
    expect { writer.close }.to raise_error(IOError, /truncated/)
    expect(writer.closed?).to be(true) # unmapped all the same
    expect { writer.include?("a") }.to raise_error(IOError, /closed/)
  end

  it "raises IOError at flush and close when the file was truncated below its header and extended back, replaced or deleted" do
    {
      "truncated" => -> { File.truncate(path, 0).then { File.truncate(path, File.size(path("copy"))) } },
      "replaced" => -> { Bloomc::BloomFilter.new(100_000, 3).save(path) },
      "deleted" => -> { File.delete(path) }
    }.each do |what, change|
      writer = Bloomc::BloomFilter.open(path, m: 100_000, k: 3)
      writer << "a"
      writer.flush
      FileUtils.cp(path, path("copy"))
      change.call
      writer << "b"
      expect { writer.flush }.to raise_error(IOError, /#{what}/)
      expect { writer.close }.to raise_error(IOError, /#{what}/)
      expect(writer.closed?).to be(true)
      [path, path("copy")].each { |f| File.delete(f) if File.exist?(f) }
    end
  end

  it "finishes a file moved while mapped, under its new name, and warns that the path no longer names it" do
    writer = Bloomc::BloomFilter.open(path, m: 100_000, k: 3)
    writer << "a"
    File.rename(path, path("rotated.bloom"))
    writer << "b"
    expect { writer.close }.to output(/no longer names the mapped file/).to_stderr
    expect(Bloomc.load_file(path("rotated.bloom")).include_all(%w[a b])).to eq([true, true]) # closed cleanly, checksum and all
  end

  it "opens a file through a symlink, creating the file it names" do
    File.symlink("target.bloom", path("link.bloom")) # dangling
    Bloomc::BloomFilter.open(path("link.bloom"), m: 1000, k: 3) { |f| f << "a" }
    expect([File.symlink?(path("link.bloom")), Bloomc.load_file(path("target.bloom")).include?("a")]).to eq([true, true])
  end

  # Opening a FIFO for reading waits for a writer: open must refuse it, and
  # every other file that is not a regular one, before it can wait or write.
  # A file an earlier bloomc made with capacity: and error_rate: holds the
  # formula's m and k and :murmur3 probes: opened by the same arguments (no
  # hash:), it opens as it is; hash: :murmur3_mixed refuses it.
  it "opens a file made before :murmur3_mixed by capacity: and error_rate:, keeping its m, k and hash" do
    m, k = Bloomc::BloomHelper.send(:formula_m_k, 300, 0.01)
    expect(m).not_to eq(Bloomc::BloomFilter.find_m_k(300, 0.01)[0])
    { Bloomc::BloomFilter => [{}, -> { Bloomc::BloomFilter.new(m, k, hash: :murmur3) }],
      Bloomc::CountingBloomFilter => [{ width: 4 }, -> { Bloomc::CountingBloomFilter.new(m, k, hash: :murmur3) }],
      Bloomc::ContinuousBloomFilter => [{ ttl: 0 }, -> { Bloomc::ContinuousBloomFilter.new(m, k, 0, hash: :murmur3) }] }.each do |klass, (extra, old)|
      FormatSamples.sized_before(old.call, 300, 0.01).add_all(keys).save(path)
      reopened = klass.open(path, capacity: 300, error_rate: 0.01, **extra)
      expect([reopened.m, reopened.k, reopened.hash_function, reopened.capacity]).to eq([m, k, :murmur3, 300])
      expect(reopened.include_all(keys)).to all(be(true))
      reopened.close
      expect { klass.open(path, capacity: 300, error_rate: 0.01, hash: :murmur3_mixed, **extra) }
        .to raise_error(ArgumentError, /different hash_function/)
      File.delete(path)
    end
  end

  describe "a path that is not a regular file" do
    irregular = {
      "a FIFO" => [->(dir) { File.mkfifo(File.join(dir, "fifo")).then { "fifo" } }, "a FIFO"],
      "a symlink to a FIFO" => [->(dir) { File.mkfifo(File.join(dir, "fifo")).then { File.symlink("fifo", File.join(dir, "link")) }.then { "link" } },
                                "a FIFO"],
      "a directory" => [->(dir) { Dir.mkdir(File.join(dir, "dir")).then { "dir" } }, "a directory"],
      "a UNIX socket" => [->(dir) { UNIXServer.new(File.join(dir, "sock")).close.then { "sock" } }, "a socket"],
      "a character device" => [->(_dir) { "/dev/null" }, "a character device"]
    }

    # Under a timeout, so that a regression fails instead of hanging the
    # suite. raced: as if the path had been a regular file, or nothing, when
    # open checked it, and was replaced before the open itself.
    def expect_refused(name, what, readonly:, raced:)
      allow(Bloomc.const_get(:Mapped)).to receive(:check_regular) if raced
      named = File.expand_path(name, @dir)
      target = File.realdirpath(named)
      # The check names the link and its target; the descriptor's fstat, the
      # file it opened.
      shown = named == target || raced ? target : "#{named} -> #{target}"
      before = dir_listing
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      Timeout.timeout(5) do
        expect { Bloomc::BloomFilter.open(named, readonly: readonly, m: 1000, k: 3) }
          .to raise_error(ArgumentError, /\A#{Regexp.escape(shown)} is not a regular file \(#{what}\): open maps regular files only\z/)
      end
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be < 1
      expect(dir_listing).to eq(before) # nothing created, nothing changed
    end

    def dir_listing
      Dir.children(@dir).sort.map { |child| [child, File.lstat(File.join(@dir, child)).then { |s| [s.ftype, s.mtime] }] }
    end

    irregular.each do |description, (make, what)|
      [true, false].each do |readonly|
        [false, true].each do |raced|
          it "refuses #{description} at once (#{readonly ? 'readonly' : 'writable'}#{', replaced after the check' if raced})" do
            expect_refused(make.call(@dir), what, readonly: readonly, raced: raced)
          end
        end
      end
    end

    # The non-blocking open is refused (EWOULDBLOCK) while another process's
    # lease on the file breaks: it must wait, as a blocking open does.
    it "waits for a lease on a regular file to be broken, as a blocking open does", if: RUBY_PLATFORM.include?("linux") do
      Bloomc::BloomFilter.open(path, m: 1000, k: 3, &:itself)
      ready, told = IO.pipe
      holder = fork do
        file = File.open(path, "rb")
        file.fcntl(1024, Fcntl::F_RDLCK) # F_SETLEASE: a read lease, broken by an open for writing
        trap("IO") { sleep 0.3; file.fcntl(1024, Fcntl::F_UNLCK) } # the lease breaker's SIGIO
        told.puts("leased")
        sleep 10
        exit!(0)
      end
      ready.gets
      started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      Timeout.timeout(20) { Bloomc::BloomFilter.open(path) { |f| f << "after the lease" } }
      expect(Process.clock_gettime(Process::CLOCK_MONOTONIC) - started).to be >= 0.25
      expect(Bloomc.load_file(path).include?("after the lease")).to be(true)
    ensure
      if holder
        Process.kill(:KILL, holder)
        Process.wait(holder)
      end
    end

    it "opens a regular file as before, through a symlink too, with blocking IO" do
      Bloomc::BloomFilter.open(path, m: 1000, k: 3) { |f| f << "a" }
      File.symlink("f.bloom", path("link.bloom"))
      [path, path("link.bloom")].each do |name|
        Bloomc::BloomFilter.open(name) do |f|
          expect(f.instance_variable_get(:@mapped).file.nonblock?).to be(false)
          f << name
        end
        Bloomc::BloomFilter.open(name, readonly: true) do |f|
          expect([f.include?("a"), f.include?(name), f.instance_variable_get(:@mapped).file.nonblock?]).to eq([true, true, false])
        end
      end
    end
  end

  it "leaves an empty file empty when mapping it fails after its header was written" do
    File.write(path, "")
    allow(Bloomc.const_get(:Mapped)).to receive(:map).and_raise(Errno::ENOMEM)
    expect { Bloomc::BloomFilter.open(path, m: 1000, k: 3) }.to raise_error(Errno::ENOMEM)
    expect(File.size(path)).to eq(0)
  end

  it "keeps the clock in the file as it ticks, before the flush" do
    filter = Bloomc::ContinuousBloomFilter.open(path, m: 1000, k: 3, ttl: 0)
    filter << "a"
    3.times { filter.inc_time_slot }
    expect(Bloomc.load_file(path).ticks).to eq(3)
    filter.close
  end

  it "maps a sparse file of 32 GiB, larger than this machine's memory, touching only the pages its keys set", :slow do
    big = Bloomc::BloomFilter.open(path, m: 2**38, k: 7, reserve: false) # never built on the heap, nor reserved
    big.add_all(keys)
    expect(ObjectSpace.memsize_of(big)).to be < 1024 # the cells are the page cache's, not the heap's
    big.close
    stat = File.stat(path)
    expect(stat.size).to eq(2**35 + 128)
    expect(stat.blocks * 512).to be < 64 * 2**20 # 3,500 bits set: a few thousand pages on disk
    Bloomc::BloomFilter.open(path, readonly: true) do |reader| # checks the checksum: holes are skipped
      expect(reader.all_include?(keys)).to be(true)
      expect(reader.count_included(later)).to eq(0)
    end
  end

  it "reserves a file's blocks for a writer, unless told not to: a new file, and an old sparse one reopened" do
    size = 2**24 + 128
    Bloomc::BloomFilter.open(path("sparse.bloom"), m: 2**27, k: 4, reserve: false) { |f| f << "a" }
    expect(File.stat(path("sparse.bloom")).blocks * 512).to be < 2**20
    Bloomc::BloomFilter.open(path("sparse.bloom"), readonly: true, &:itself) # a reader never reserves
    Bloomc::BloomFilter.open(path("sparse.bloom"), reserve: false, &:itself)
    expect(File.stat(path("sparse.bloom")).blocks * 512).to be < 2**20
    before = Bloomc.load_file(path("sparse.bloom"))
    Bloomc::BloomFilter.open(path("sparse.bloom"), &:itself) # written by an earlier version: reserved now
    expect(File.stat(path("sparse.bloom")).blocks * 512).to be >= size
    expect(Bloomc.load_file(path("sparse.bloom"))).to eq(before)

    Bloomc::BloomFilter.open(path("new.bloom"), m: 2**27, k: 4) do |f|
      expect(File.stat(path("new.bloom")).blocks * 512).to be >= size # before any add
      f << "a"
    end
    expect(Bloomc.load_file(path("new.bloom"))).to eq(before)
  end

  # A build without fallocate and posix_fallocate (macOS, or
  # BLOOMC_FALLBACKS) always writes the zeros; one with them does where the
  # file system cannot allocate. Without SEEK_HOLE, st_blocks alone tells a
  # reserved file.
  it "reserves with fallocate where the build has it, else by writing zeros, keeping the data" do
    features = Bloomc.send(:build_features)
    size = 2**22
    File.open(path, "w+") do |file|
      file.truncate(size)
      file.pwrite("data", size / 2)
      expect(File.stat(path).blocks * 512).to be < size / 2
      how = Bloomc.const_get(:Mapped).send(:reserve_blocks, file.fileno, size, path, false)
      expect(how).to eq(:zeros) unless features[:fallocate] || features[:posix_fallocate]
      expect(how).to eq(:fallocate).or eq(:zeros)
      expect(File.stat(path).blocks * 512).to be >= size
      expect(Bloomc.const_get(:Mapped).send(:reserve_blocks, file.fileno, size, path, false)).to eq(:allocated) if how == :zeros
    end
    expect(File.binread(path)).to eq(("\0".b * size).tap { |bytes| bytes[size / 2, 4] = "data" })
  end

  it "removes the file it created when the reservation is interrupted" do
    allow(Bloomc.const_get(:Mapped)).to receive(:reserve_blocks).and_raise(Interrupt)
    expect { Bloomc::BloomFilter.open(path, m: 2**20, k: 3) }.to raise_error(Interrupt)
    expect(Dir.children(@dir)).to eq([])
  end

  # A page of a sparse file takes its block when first written through the
  # mapping; on a full file system that write is SIGBUS. On a real full file
  # system (a small tmpfs), a reserved filter either fails to open with
  # ENOSPC or can take every add; a sparse one dies.
  describe "on a full file system" do
    # A tmpfs of size, mounted for the block (root only, as in CI). Where
    # this machine cannot mount, BLOOMC_CANNOT_MOUNT=1 says so and the
    # examples are skipped; without it a failed mount fails them, so that
    # they never pass without having run.
    def with_small_file_system(size)
      mount = File.join(@dir, "small")
      Dir.mkdir(mount)
      out, status = begin
        Open3.capture2e("mount", "-t", "tmpfs", "-o", "size=#{size}", "tmpfs", mount)
      rescue SystemCallError => e
        [e.message, nil]
      end
      unless status&.success?
        skip "no tmpfs here (BLOOMC_CANNOT_MOUNT=1): #{out.strip}" if ENV["BLOOMC_CANNOT_MOUNT"] == "1"
        raise "mount -t tmpfs failed (#{out.strip}): these examples need root; where mounting is impossible, " \
              "BLOOMC_CANNOT_MOUNT=1 skips them"
      end
      mounted = true
      yield mount
    ensure
      system("umount", mount) || system("umount", "-l", mount) if mounted
    end

    # Writes to a new file until the file system has no block left.
    def fill_up(dir)
      chunk = "\0".b * 4096
      File.open(File.join(dir, "filler"), "wb") do |filler|
        loop { filler.syswrite(chunk) }
      rescue Errno::ENOSPC
        nil
      end
      expect { File.open(File.join(dir, "one more"), "wb") { |f| f.syswrite("x") } }.to raise_error(Errno::ENOSPC)
    end

    # Shapes of 512 KiB of cells: half the tmpfs.
    fitting = {
      Bloomc::BloomFilter => { m: 2**22, k: 3 },
      Bloomc::CountingBloomFilter => { m: 2**20, k: 3, width: 4 },
      Bloomc::ContinuousBloomFilter => { m: 2**20, k: 3, ttl: 0 }
    }
    many = Array.new(20_000) { |i| "full-#{i}" }.freeze # not keys: that would reassign the outer block's

    fitting.each do |klass, shape|
      it "refuses to open a #{klass.name.split('::').last} larger than the free space (ENOSPC), leaving no file" do
        with_small_file_system("1m") do |dir|
          bigger = shape.merge(m: shape[:m] * 4) # 2 MiB
          file = File.join(dir, "f.bloom")
          expect { klass.open(file, **bigger) }
            .to raise_error(Errno::ENOSPC, /No space left on device - reserving the \d+ bytes of #{Regexp.escape(file)}\z/)
          expect(Dir.children(dir)).to eq([])
        end
      end

      it "fills a reserved #{klass.name.split('::').last} completely once the file system is full, without a signal" do
        with_small_file_system("1m") do |dir|
          file = File.join(dir, "f.bloom")
          filter = klass.open(file, **shape)
          fill_up(dir)
          filter.add_all(many)
          filter.close
          pages = File.binread(file).scan(/.{1,4096}/mn) # the header and 512 KiB of cells
          expect(pages.size).to eq(129)
          expect(pages.count { |page| page.count("\0") == page.bytesize }).to eq(0) # every page written to
          klass.open(file, readonly: true) { |f| expect(f.all_include?(many)).to be(true) }
        end
      end
    end

    it "reserves by writing zeros where the file system cannot fallocate" do
      allow(Bloomc.const_get(:Mapped)).to receive(:reserve_blocks).and_wrap_original do |original, fd, length, path, _zeros|
        expect(original.call(fd, length, path, true)).to eq(:zeros)
      end
      with_small_file_system("1m") do |dir|
        file = File.join(dir, "f.bloom")
        expect { Bloomc::BloomFilter.open(file, m: 2**24, k: 3) }.to raise_error(Errno::ENOSPC, /reserving/)
        expect(Dir.children(dir)).to eq([])
        filter = Bloomc::BloomFilter.open(file, m: 2**22, k: 3)
        fill_up(dir)
        filter.add_all(many)
        filter.close
        Bloomc::BloomFilter.open(file, readonly: true) { |f| expect(f.all_include?(many)).to be(true) }
      end
    end

    it "refuses to reopen an old sparse file for writing when its blocks do not fit, and leaves it as it was" do
      with_small_file_system("1m") do |dir|
        file = File.join(dir, "f.bloom")
        Bloomc::BloomFilter.open(file, m: 2**24, k: 3, reserve: false) { |f| f << "a" } # 2 MiB, a few pages
        before = File.binread(file)
        expect { Bloomc::BloomFilter.open(file) }.to raise_error(Errno::ENOSPC, /reserving/)
        expect(File.binread(file)).to eq(before)
        Bloomc::BloomFilter.open(file, readonly: true) { |f| expect(f.include?("a")).to be(true) }
      end
    end

    # The old behaviour, kept by reserve: false: in a child, so that the
    # suite survives it. Ruby reports the SIGBUS as a bug and aborts.
    it "kills a writer of a sparse file with SIGBUS (reserve: false), as before" do
      with_small_file_system("1m") do |dir|
        report = File.join(@dir, "child.err")
        child = fork do
          Process.setrlimit(:CORE, 0)
          $stderr.reopen(report, "w")
          filter = Bloomc::BloomFilter.open(File.join(dir, "f.bloom"), m: 2**22, k: 3, reserve: false)
          fill_up(dir)
          filter.add_all(many)
          exit!(0)
        rescue Exception # rubocop:disable Lint/RescueException
          exit!(3)
        end
        status = Timeout.timeout(60) { Process.wait2(child).last }
        child = nil
        expect(status.signaled?).to be(true)
        expect(status.termsig).to eq(Signal.list["BUS"]).or eq(Signal.list["ABRT"])
        expect(File.read(report)).to match(/\bbus\b/i) # Ruby's "[BUG] Bus Error at ...", or ASan's "BUS on unknown address"
      ensure
        if child # still running: the spec failed
          Process.kill(:KILL, child)
          Process.wait(child)
        end
      end
    end
  end

  it "computes the checksum over holes as over the zeros they read as" do
    filter = Bloomc::BloomFilter.open(path, m: 2**27, k: 4, reserve: false) # 16 MiB, nearly all hole
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
