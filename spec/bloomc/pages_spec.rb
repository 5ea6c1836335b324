# frozen_string_literal: true

require "spec_helper"
require "tmpdir"
require "rbconfig"
require "open3"

# Committing a filter's pages: prefault: on new and open, prefault!, the
# batch add's own prefault, and Bloomc.use_huge_pages! (lib/bloomc/pages.rb,
# ext/bloomc/bf_pages.c). Sizes are 2 MiB or more where the cells must be a
# mapping of their own (filter.h: BLOOMC_PAGES_MIN).
RSpec.describe "committing pages" do
  mib = 1 << 20
  size = 64 * mib # the cells whose commit each example looks for, well above the process's noise

  # Resident bytes of this process.
  def rss
    File.read("/proc/self/statm").split[1].to_i * 4096
  end

  # The growth of resident memory while the block runs (its result is kept
  # alive until measured).
  def rss_growth
    GC.start
    before = rss
    kept = yield
    grown = rss - before
    kept.hash
    grown
  end

  # The resident bytes of a filter's own cells (mincore): unlike the
  # process's RSS, which the allocator under a sanitizer moves by tens of
  # MiB as it gives freed memory back, this sees only the commit. Where the
  # build has no mincore, it raises NotImplementedError: the example skips.
  def resident(filter)
    skip "this build has no mincore: resident bytes cannot be read" unless Bloomc.send(:build_features)[:mincore]
    filter.send(:resident_bytes)
  end

  all_kinds = {
    Bloomc::BloomFilter => ->(opts) { Bloomc::BloomFilter.new(24 * mib * 8, 4, **opts) },
    Bloomc::BlockedBloomFilter => ->(opts) { Bloomc::BlockedBloomFilter.new(24 * mib * 8, 4, **opts) },
    Bloomc::CountingBloomFilter => ->(opts) { Bloomc::CountingBloomFilter.new(6 * mib * 8, 4, width: 4, **opts) },
    Bloomc::SpectralBloomFilter => ->(opts) { Bloomc::SpectralBloomFilter.new(6 * mib * 8, 4, **opts) },
    Bloomc::BitwiseBloomFilter => ->(opts) { Bloomc::BitwiseBloomFilter.new(6 * mib * 8, 4, **opts) },
    Bloomc::StableBloomFilter => ->(opts) { Bloomc::StableBloomFilter.new(6 * mib * 8, 4, 2, random_seed: 1, **opts) },
    Bloomc::ContinuousBloomFilter => ->(opts) { Bloomc::ContinuousBloomFilter.new(6 * mib * 8, 4, 0, **opts) },
    Bloomc::A2BloomFilter => ->(opts) { Bloomc::A2BloomFilter.new(24 * mib * 8, 4, **opts) },
    Bloomc::ScalableBloomFilter => ->(opts) { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 2_000_000, **opts) },
    Bloomc::CuckooFilter => ->(opts) { Bloomc::CuckooFilter.new(capacity: 4_000_000, error_rate: 0.01, **opts) }
  }

  describe "prefault: on new" do
    # Where the build has no MADV_POPULATE_WRITE (macOS, the BSDs, or
    # BLOOMC_FALLBACKS), one write a page commits them: the same pages.
    it "commits the cells' pages at once; without it they stay uncommitted" do
      lazy = Bloomc::BlockedBloomFilter.new(size * 8, 7)
      eager = Bloomc::BlockedBloomFilter.new(size * 8, 7, prefault: true)
      expect(resident(lazy)).to be < size / 8
      expect(resident(eager)).to be > size * 9 / 10
    end

    all_kinds.each do |klass, make|
      it "#{klass}: the same cells, bit for bit, with and without it, and prefault! returns self" do
        keys = Array.new(2000) { |i| "key-#{i}" }
        lazy = make.call({})
        eager = make.call({ prefault: true })
        expect(eager).to be_a(klass)
        expect(eager.prefault!).to equal(eager)
        keys.each { |k| lazy.add(k) }
        eager.add_all(keys)
        expect(eager.dump).to eq(lazy.dump)
      end
    end

    it "prefault! commits the pages of a filter made without it, and changes no cell" do
      filter = Bloomc::BloomFilter.new(size * 8, 7)
      twin = Bloomc::BloomFilter.new(size * 8, 7)
      [filter, twin].each { |f| f.add_all(%w[a b c]) }
      expect(resident(filter)).to be < size / 8 # before any read: reading maps the zero page
      expect(filter.prefault!).to equal(filter)
      expect(resident(filter)).to be > size * 9 / 10
      expect(filter.dump).to eq(twin.dump)
      expect(filter.freeze.prefault!).to equal(filter)
    end

    it "refuses a prefault: other than true or false, naming it" do
      [nil, 1, "yes", :yes].each do |bad|
        expect { Bloomc::BloomFilter.new(64, 3, prefault: bad) }.to raise_error(TypeError, /prefault must be true or false/)
      end
    end
  end

  describe "the batch add's prefault" do
    # A fresh blocked filter of P pages: a key touches one page, so n keys
    # touch 1 - exp(-n / P) of them.
    pages = size / 4096

    it "commits every page before a batch that would touch most of them" do
      filter = Bloomc::BlockedBloomFilter.new(size * 8, 7)
      keys = (0...(pages * 2)).to_a # 86% of the pages
      filter.add_all(keys)
      expect(resident(filter)).to be > size * 9 / 10
    end

    it "leaves a small batch to fault in only the pages it touches" do
      filter = Bloomc::BlockedBloomFilter.new(size * 8, 7)
      keys = (0...(pages / 100)).to_a # 1% of the pages
      filter.add_all(keys)
      expect(resident(filter)).to be < size / 8
    end

    it "adds the same bits as one add at a time" do
      keys = (0...(pages * 2)).to_a
      batch = Bloomc::BloomFilter.new(8 * mib * 8, 3)
      single = Bloomc::BloomFilter.new(8 * mib * 8, 3)
      batch.add_all(keys)
      keys.each { |k| single.add(k) }
      expect(batch.dump).to eq(single.dump)
    end
  end

  describe "large cells" do
    it "dup, Marshal, load and save of them are equal and independent" do
      filter = Bloomc::BloomFilter.new(4 * mib * 8, 5)
      filter.add_all(Array.new(1000) { |i| "k#{i}" })
      Dir.mktmpdir do |dir|
        path = File.join(dir, "f.bloom")
        filter.save(path)
        copies = [filter.dup, filter.clone, Marshal.load(Marshal.dump(filter)), Bloomc.load(filter.dump), Bloomc.load_file(path)]
        copies.each { |copy| expect(copy).to eq(filter) }
        copies.first << "only in the copy"
        expect(filter.include?("only in the copy")).to be(false)
      end
    end

    it "report the same memsize as heap cells do" do
      filter = Bloomc::BloomFilter.new(4 * mib * 8, 5)
      expect(ObjectSpace.memsize_of(filter)).to be_between(4 * mib, 4 * mib + 4096)
    end

    it "survive GC.compact and GC.stress" do
      filter = Bloomc::BlockedBloomFilter.new(2 * mib * 8, 5, prefault: true)
      filter.add_all(Array.new(100) { |i| "k#{i}" })
      GC.compact
      begin
        GC.stress = true
        copy = filter.dup.prefault!
        copy << "x"
        Bloomc::BloomFilter.new(2 * mib * 8, 3, prefault: true)
      ensure
        GC.stress = false
      end
      GC.compact
      expect(filter.include_all(Array.new(100) { |i| "k#{i}" })).to all(be(true))
      expect(copy.include?("x")).to be(true)
    end

    it "are given back when the filter goes (rss returns)" do
      # Five of them: one may be kept a while by a stale reference on the
      # machine stack (the GC scans it conservatively), never all.
      grown = rss_growth do
        5.times { Bloomc::BloomFilter.new(size * 8, 3, prefault: true) }
        GC.start
        nil
      end
      expect(grown).to be < 2 * size
    end
  end

  describe "prefault: on open (mapped files)" do
    around do |example|
      Dir.mktmpdir { |dir| @dir = dir; example.run }
    end

    # A sparse file of the gem's format: a writer that reserves nothing.
    def sparse_file
      path = File.join(@dir, "f.bloom")
      Bloomc::BloomFilter.open(path, m: size * 8, k: 5, reserve: false, &:flush)
      skip "this file system does not keep files sparse" if allocated(path) > size / 2
      path
    end

    def allocated(path) = File.stat(path).blocks * 512
    def size = 64 << 20

    it "leaves a sparse file's holes without it" do
      path = sparse_file
      Bloomc::BloomFilter.open(path, reserve: false) { |f| f << "one key" }
      expect(allocated(path)).to be < size / 2
    end

    it "fills a sparse file's holes for a writer that asks" do
      path = sparse_file
      Bloomc::BloomFilter.open(path, reserve: false, prefault: true) do |f|
        expect(allocated(path)).to be >= size
        f << "one key"
      end
      expect(Bloomc::BloomFilter.open(path, readonly: true) { |f| f.include?("one key") }).to be(true)
    end

    it "fills them at prefault! on a writer" do
      path = sparse_file
      Bloomc::BloomFilter.open(path, reserve: false) do |f|
        expect(f.prefault!).to equal(f)
        expect(allocated(path)).to be >= size
      end
    end

    it "reads the file in for a reader, holes left holes" do
      path = sparse_file
      Bloomc::BloomFilter.open(path, readonly: true, prefault: true) do |f|
        expect(f.include?("x")).to be(false)
        expect(f.prefault!).to equal(f)
      end
      expect(allocated(path)).to be < size / 2
    end

    it "refuses to commit a file truncated under its mapping, and works in a forked child" do
      path = sparse_file
      length = File.size(path)
      Bloomc::BloomFilter.open(path, reserve: false) do |f|
        f << "kept"
        reader, writer = IO.pipe
        pid = fork do
          reader.close
          begin
            writer.write(f.prefault!.include?("kept").inspect) # read-only here, its descriptor /dev/null
          rescue Exception => e # rubocop:disable Lint/RescueException -- reported to the parent
            writer.write(e.class.name)
          ensure
            exit!(0)
          end
        end
        writer.close
        expect(reader.read).to eq("true")
        Process.wait(pid)
        File.truncate(path, length / 2)
        expect { f.prefault! }.to raise_error(IOError, /changed size/)
        File.truncate(path, length) # so that close finds the file whole again
      end
    end

    it "refuses a bad prefault: before it opens anything" do
      path = File.join(@dir, "new.bloom")
      expect { Bloomc::BloomFilter.open(path, m: 64, k: 3, prefault: 1) }.to raise_error(TypeError, /prefault/)
      expect(File.exist?(path)).to be(false)
    end

    it "commits the cells of a mapped filter's copy on the heap" do
      path = sparse_file
      Bloomc::BloomFilter.open(path, reserve: false) do |f|
        f.add_all(%w[a b])
        copy = f.dup
        expect(copy.mapped?).to be(false)
        expect(copy).to eq(f)
        expect(copy.prefault!).to equal(copy)
      end
    end
  end

  describe "Bloomc.use_huge_pages!" do
    thp = begin
      File.read("/sys/kernel/mm/transparent_hugepage/enabled")
    rescue SystemCallError
      nil
    end

    # In a process of its own: the switch is the whole process's.
    def run_ruby(script)
      lib = File.expand_path("../../lib", __dir__)
      out, err, status = Open3.capture3(RbConfig.ruby, "-W", "-I#{lib}", "-rbloomc", "-e", script)
      expect(OwnWarnings.without_tools(err)).to eq("")
      expect(status).to be_success
      out.lines.map(&:chomp)
    end

    it "is off until asked for" do
      expect(run_ruby("p Bloomc.huge_pages?")).to eq(["false"])
    end

    # Lifting THP_DISABLE needs prctl's PR_SET_THP_DISABLE and the advice
    # MADV_HUGEPAGE (Linux's); a build without them refuses as a system
    # without huge pages does.
    features = Bloomc.send(:build_features)
    if thp.nil? && features[:thp] && features[:hugepage_advice]
      # Whether the kernel has huge pages is read from /sys: a root (chroot)
      # without /sys mounted cannot tell. BLOOMC_HUGE_PAGES_REQUIRED (CI,
      # which mounts it) makes that a failure.
      it "lifts THP_DISABLE where the kernel has huge pages" do
        reason = "/sys/kernel/mm/transparent_hugepage/enabled cannot be read (mount /sys in a root)"
        raise "BLOOMC_HUGE_PAGES_REQUIRED is set but #{reason}" if ENV["BLOOMC_HUGE_PAGES_REQUIRED"]

        skip reason
      end
    elsif thp.nil? || thp.include?("[never]") || !(features[:thp] && features[:hugepage_advice])
      it "raises Bloomc::UnsupportedError where the system or the build has none" do
        expect(run_ruby("begin; Bloomc.use_huge_pages!; rescue Bloomc::UnsupportedError; p :refused; end")).to eq([":refused"])
        expect(run_ruby("Bloomc.use_huge_pages! rescue nil; p Bloomc.huge_pages?")).to eq(["false"])
      end
    else
      it "lifts THP_DISABLE, and a large filled filter gets huge pages" do
        lines = run_ruby(<<~RUBY)
          huge = -> { File.read("/proc/self/smaps_rollup")[/AnonHugePages:\\s+(\\d+)/, 1].to_i }
          p Bloomc.huge_pages?
          before = huge.call
          p Bloomc.use_huge_pages!
          p Bloomc.huge_pages?
          puts File.read("/proc/self/status")[/THP_enabled:\\s+(\\d)/, 1]
          f = Bloomc::BlockedBloomFilter.new(64 << 23, 7)
          f.add_all((0...200_000).to_a)
          p huge.call - before
        RUBY
        expect(lines[0, 4]).to eq(%w[false true true 1])
        expect(lines[4].to_i).to be > 0
      end
    end
  end
end
