# frozen_string_literal: true

require "spec_helper"
require "json"
require "tmpdir"
require "timeout"
require "yaml"

# A clock the examples move by hand.
class PeriodicFakeClock
  attr_accessor :now

  def initialize(now) = @now = now
  def call = now
  def advance(seconds) = @now += seconds
end

RSpec.describe Bloomc::PeriodicFilter do
  let(:start) { Time.utc(2026, 11, 24, 13, 5, 7) }
  let(:clock) { PeriodicFakeClock.new(start) }
  let(:factory) { -> { Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01) } }

  def periodic(period: 3600, retention: 24, **options, &block)
    described_class.new(period: period, retention: retention, clock: clock, **options, &block || factory)
  end

  around do |example|
    Timeout.timeout(30) { example.run }
  end

  describe ".new" do
    it "has an hour's period and a day's retention by default" do
      filter = described_class.new(clock: clock, &factory)
      expect([filter.period_seconds, filter.retention, filter.current_label]).to eq([3600, 24, "2026-11-24T13"])
    end

    it "calls the block once, for the empty template, until something is added" do
      calls = 0
      filter = periodic { calls += 1; factory.call }
      expect(calls).to eq(1)
      filter << "a" << "b"
      expect(calls).to eq(2)
    end

    {
      { period: 0 } => [ArgumentError, /period/], { period: 1.5 } => [ArgumentError, /whole number/],
      { period: Float::INFINITY } => [ArgumentError, /period/], { period: "3600" } => [TypeError, /period/],
      { retention: 0 } => [ArgumentError, /retention/], { retention: 2.0 } => [TypeError, /retention/],
      { clock: Time.now } => [TypeError, /clock/]
    }.each do |options, (error, message)|
      it "raises #{error} for #{options.inspect}" do
        expect { described_class.new(clock: clock, **options, &factory) }.to raise_error(error, message)
      end
    end

    it "takes a whole period given as a Float or Rational" do
      expect(periodic(period: 60.0).period_seconds).to eq(60)
      expect(periodic(period: 7200r).period_seconds).to eq(7200)
    end

    it "needs a block that makes new, empty filters that take adds and unions" do
      shared = factory.call
      full = factory.call.tap { |f| f << "x" }
      expect { described_class.new(clock: clock) }.to raise_error(ArgumentError, /block is required/)
      expect { periodic { "filter" } }.to raise_error(TypeError, /not String/)
      expect { periodic { Bloomc::BinaryFuseFilter.build(%w[a b]) } }.to raise_error(TypeError, /BinaryFuseFilter/)
      expect { periodic { factory.call.freeze } }.to raise_error(ArgumentError, /frozen/)
      expect { periodic { full } }.to raise_error(ArgumentError, /already holds keys/)
      expect { periodic { shared } << "a" }.to raise_error(ArgumentError, /same filter twice/)
    end

    it "refuses a block whose filters change shape, naming the difference" do
      sizes = [3000, 5000].each
      filter = periodic { Bloomc::BloomFilter.new(capacity: sizes.next, error_rate: 0.01) }
      expect { filter << "a" }.to raise_error(ArgumentError, /one shape.*different m/)
    end

    it "raises TypeError when the clock returns something else than a time" do
      filter = periodic
      clock.now = "now"
      expect { filter << "a" }.to raise_error(TypeError, /clock must return/)
    end

    it "takes a clock of seconds since the epoch" do
      filter = described_class.new(period: 60, clock: -> { 120.5 }, &factory)
      expect(filter.current_label).to eq("1970-01-01T00:02")
    end
  end

  describe "labels" do
    {
      86_400 => "2026-11-24", 7 * 86_400 => "2026-11-19", 3600 => "2026-11-24T13", 5400 => "2026-11-24T12",
      60 => "2026-11-24T13:05", 900 => "2026-11-24T13:00", 1 => "2026-11-24T13:05:07", 10 => "2026-11-24T13:05:00"
    }.each do |period, label|
      it "names a #{period}-second period by its UTC start, #{label}, and finds it by that label" do
        filter = periodic(period: period)
        expect(filter.current_label).to eq(label)
        expect(filter.period(label)).to eq([filter[start], false])
      end
    end

    it "aligns periods to multiples of their length since the epoch, whatever the clock's zone" do
      clock.now = Time.new(2026, 11, 24, 14, 30, 0, "+01:00")
      expect(periodic.current_label).to eq("2026-11-24T13")
      expect(periodic(period: 5400).current_label).to eq("2026-11-24T13") # 13:30 to 15:00: 13:30 is a multiple of 90 minutes
    end

    it "finds no period for a label that names none of this length, and refuses a label of another type" do
      filter = periodic
      ["2026-11-24T13:00", "2026-11-24", "2026-13-01T00", "2026-11-24T13\n", "../../etc/passwd", "yesterday", "",
       "\xff\xfe".b, "2026-11-24T13".encode("UTF-16LE")].each do |label|
        expect(filter.period(label)).to be_nil
        expect(filter[label]).to be_nil
      end
      expect { filter.period(:now) }.to raise_error(TypeError, /label/)
      expect { filter[nil] }.to raise_error(TypeError, /label/)
    end
  end

  describe "periods" do
    subject(:filter) { periodic(retention: 4) }

    it "adds to the current period and rolls over when the clock passes its end" do
      filter << "one"
      expect(filter.add("two")).to be(filter)
      clock.advance(3600)
      filter.add_all(%w[three four])
      expect(filter.current_label).to eq("2026-11-24T14")
      expect(filter.include_all(%w[one two three four])).to eq([false, false, true, true])
      expect(filter.include_all(%w[one two three four five], last: 2)).to eq([true, true, true, true, false])
      expect(filter.include?("one", last: 2)).to be(true)
    end

    it "freezes a period once it has ended, and it never changes again" do
      filter << "one"
      first = filter["2026-11-24T13"]
      clock.advance(3600)
      expect(filter.period("2026-11-24T13")).to eq([first, true])
      expect(first).to be_frozen
      expect { first << "late" }.to raise_error(FrozenError)
      filter << "two"
      expect(first.include?("two")).to be(false)
      expect(filter.period("2026-11-24T14")[1]).to be(false)
    end

    it "yields each period kept, oldest first, with gaps as a shared frozen empty filter" do
      filter << "a"
      clock.advance(2 * 3600)
      filter << "c"
      periods = filter.each_period.to_a
      expect(periods.map { |label, _, closed| [label, closed] })
        .to eq([["2026-11-24T13", true], ["2026-11-24T14", true], ["2026-11-24T15", false]])
      gap = periods[1][1]
      expect(gap).to be_frozen.and(be_empty)
      expect(gap).to be_a(Bloomc::BloomFilter)
      expect(filter.labels).to eq(%w[2026-11-24T13 2026-11-24T14 2026-11-24T15])
      expect(filter.each_period { nil }).to be(filter)
    end

    it "reports no period before the first it saw, and none in the future" do
      expect(filter.labels).to eq(["2026-11-24T13"])
      expect(filter["2026-11-24T12"]).to be_nil
      expect(filter[start + 3600]).to be_nil
      expect(filter[start]).to be_empty # the current period, nothing added yet
    end

    it "answers lookups over gaps as empty periods" do
      filter << "a"
      clock.advance(3 * 3600)
      expect(filter.include?("a", last: 3)).to be(false)
      expect(filter.include?("a", last: 4)).to be(true)
      expect(filter.union(last: 3)).to be_empty
    end

    it "drops periods past the retention when the clock rolls" do
      6.times do |i|
        filter << "key-#{i}"
        clock.advance(3600)
      end
      expect(filter.labels).to eq(%w[2026-11-24T16 2026-11-24T17 2026-11-24T18 2026-11-24T19])
      expect(filter.include_all(Array.new(6) { |i| "key-#{i}" }, last: 4)).to eq([false, false, false, true, true, true])
      expect(filter["2026-11-24T15"]).to be_nil
    end

    it "drops everything after a silence longer than the retention" do
      filter << "a"
      clock.advance(30 * 86_400)
      expect(filter.labels.size).to eq(4)
      expect(filter.include?("a", last: 4)).to be(false)
      expect(filter.each_period.map { |_, f, _| f }.uniq.size).to eq(1) # all gaps
    end

    it "does not reopen a closed period when the clock goes back" do
      filter << "a"
      clock.advance(3600)
      filter << "b"
      clock.advance(-3600)
      filter << "c"
      expect(filter.current_label).to eq("2026-11-24T14")
      expect(filter["2026-11-24T13"].include?("c")).to be(false)
      expect(filter["2026-11-24T14"].include?("c")).to be(true)
    end

    it "raises TypeError for a key of another type, leaving a gap a gap" do
      expect { filter << nil }.to raise_error(TypeError)
      expect { filter.add_all([1.5]) }.to raise_error(TypeError)
      expect(filter[start]).to be_frozen.and(be_empty) # still the shared empty filter of a gap
      expect { filter.include?(nil) }.to raise_error(TypeError)
      expect { filter.include_all([:a, 2.5]) }.to raise_error(TypeError)
      expect { filter.include_all(42) }.to raise_error(TypeError)
    end

    it "checks last: against the retention" do
      expect { filter.include?("a", last: 0) }.to raise_error(ArgumentError, /1\.\.4/)
      expect { filter.include?("a", last: 5) }.to raise_error(ArgumentError, /1\.\.4/)
      expect { filter.union(last: "2") }.to raise_error(TypeError, /last/)
    end

    it "puts each period's start and length in its filter's metadata, beside what the block gave it" do
      period = { "period_start" => "2026-11-24T13:00:00Z", "period_seconds" => 3600 }
      filter << "a"
      expect(filter[start].metadata).to eq(period)
      tagged = described_class.new(clock: clock) { Bloomc::BloomFilter.new(1000, 3).tap { |f| f.metadata = { "source" => "signups" } } }
      tagged << "a"
      expect(tagged[start].metadata).to eq({ "source" => "signups" }.merge(period))
      described = described_class.new(clock: clock) { Bloomc::BloomFilter.new(1000, 3).tap { |f| f.metadata = "signups" } }
      described << "a"
      expect(described[start].metadata).to eq({ "description" => "signups" }.merge(period))
    end
  end

  describe "#union" do
    it "is a new filter holding the last n periods, the same as merging them" do
      filter = periodic(retention: 3)
      %w[a b c].each { |key| filter << key; clock.advance(3600) }
      filter << "d"
      union = filter.union(last: 3)
      expect(union).not_to be_frozen
      expect(union.include_all(%w[a b c d])).to eq([false, true, true, true])
      expected = filter["2026-11-24T15"] | filter["2026-11-24T16"]
      expect(union).to eq(expected.merge!(filter["2026-11-24T14"] || factory.call))
      union << "e"
      expect(filter.include?("e", last: 3)).to be(false)
    end

    it "works for every kind that takes adds and unions" do
      kinds = {
        Bloomc::BlockedBloomFilter => -> { Bloomc::BlockedBloomFilter.new(capacity: 500, error_rate: 0.01) },
        Bloomc::CountingBloomFilter => -> { Bloomc::CountingBloomFilter.new(capacity: 500, error_rate: 0.01) },
        Bloomc::ScalableBloomFilter => -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 100) },
        Bloomc::CuckooFilter => -> { Bloomc::CuckooFilter.new(capacity: 500, error_rate: 0.01) }
      }
      kinds.each do |kind, make|
        filter = described_class.new(clock: clock, retention: 2, &make)
        filter.add_all(%w[a b])
        clock.advance(3600)
        filter << "c"
        union = filter.union(last: 2)
        expect(union).to be_a(kind)
        expect(union.include_all(%w[a b c])).to eq([true, true, true]), kind.name
        clock.advance(-3600)
      end
    end
  end

  describe "#save and .open" do
    it "has no YAML form, and says so rather than write YAML no load can read" do
      filter = periodic
      filter << "a"
      expect { YAML.dump(filter) }.to raise_error(TypeError, /no YAML form .*save\(dir\)/)
      expect { YAML.unsafe_load("--- !ruby/object:Bloomc::PeriodicFilter\nretention: 3\n") }.to raise_error(TypeError, /no YAML form/)
    end

    around do |example|
      Dir.mktmpdir("bloomc-periodic") do |dir|
        @dir = dir
        example.run
      end
    end

    let(:dir) { @dir }

    def fill(filter, hours)
      hours.times do |i|
        filter.add_all(Array.new(20) { |j| "h#{i}-#{j}" })
        clock.advance(3600) unless i == hours - 1
      end
      filter
    end

    it "writes each period, the template and a manifest, and restores them" do
      filter = fill(periodic(retention: 5), 3)
      expect(filter.save(dir)).to be(filter)
      expect(Dir.children(dir).sort)
        .to eq(%w[2026-11-24T13.bloom 2026-11-24T14.bloom 2026-11-24T15.bloom manifest.json template.bloom])
      manifest = JSON.parse(File.read(File.join(dir, "manifest.json")))
      expect(manifest).to include("version" => 1, "period_seconds" => 3600, "retention" => 5, "current" => "2026-11-24T15")

      restored = described_class.open(dir, clock: clock)
      expect([restored.period_seconds, restored.retention, restored.labels]).to eq([3600, 5, filter.labels])
      filter.each_period do |label, period_filter, closed|
        expect(restored.period(label)).to eq([period_filter, closed])
        expect(restored[label].frozen?).to be(closed)
      end
      restored << "new"
      expect(restored.include?("new")).to be(true)
      expect(restored.include?("h0-0", last: 3)).to be(true)
    end

    it "uses the block given to open for new periods, and refuses files of another shape" do
      fill(periodic, 2).save(dir)
      restored = described_class.open(dir, clock: clock, &factory)
      clock.advance(3600)
      restored << "x"
      expect(restored[clock.now].m).to eq(factory.call.m)
      other = -> { Bloomc::BloomFilter.new(capacity: 10, error_rate: 0.01) }
      expect { described_class.open(dir, clock: clock, &other) }.to raise_error(ArgumentError, /one shape.*different m/)
    end

    # Saved before :murmur3_mixed: periods of the formula's m and k, hashed
    # with :murmur3. The block written then still opens the directory.
    it "opens a directory saved before :murmur3_mixed with the block of then, making new periods like the saved ones" do
      m, k = Bloomc::BloomHelper.send(:formula_m_k, 3000, 0.01)
      old = -> { FormatSamples.sized_before(Bloomc::BloomFilter.new(m, k, hash: :murmur3), 3000, 0.01) }
      fill(described_class.new(period: 3600, retention: 5, clock: clock, &old), 2).save(dir)
      restored = described_class.open(dir, clock: clock) { Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01) }
      clock.advance(3600)
      restored << "x"
      expect([restored[clock.now].m, restored[clock.now].k, restored[clock.now].hash_function]).to eq([m, k, :murmur3])
      expect(restored.include?("x")).to be(true)
      expect(restored.include?("h0-0", last: 5)).to be(true)
    end

    it "restores after a restart past the retention, dropping what expired and writing gaps as nothing" do
      fill(periodic(retention: 3), 3).save(dir)
      clock.advance(2 * 3600)
      restored = described_class.open(dir, clock: clock)
      expect(restored.labels).to eq(%w[2026-11-24T15 2026-11-24T16 2026-11-24T17])
      expect(restored.include?("h2-0", last: 3)).to be(true)
      expect(restored.include?("h1-0", last: 3)).to be(false)
      expect(restored["2026-11-24T15"]).to be_frozen
      restored.save(dir)
      expect(Dir.children(dir).sort).to eq(%w[2026-11-24T15.bloom manifest.json template.bloom])
      clock.advance(10 * 3600)
      expect(described_class.open(dir, clock: clock).each_period.count { |_, f, _| !f.empty? }).to eq(0)
    end

    it "does not write a closed period again, and rewrites the current one" do
      filter = fill(periodic, 2)
      filter.save(dir)
      closed = File.join(dir, "2026-11-24T13.bloom")
      current = File.join(dir, "2026-11-24T14.bloom")
      inodes = [File.stat(closed).ino, File.stat(current).ino]
      filter << "more"
      filter.save(dir)
      expect(File.stat(closed).ino).to eq(inodes[0])
      expect(File.stat(current).ino).not_to eq(inodes[1])
      expect(Bloomc.load_file(current).include?("more")).to be(true)
    end

    it "leaves no temporary files, and saves compressed when asked" do
      filter = fill(periodic, 1)
      filter.save(dir, compress: true)
      expect(Dir.children(dir).grep(/tmp/)).to be_empty
      expect(File.size(File.join(dir, "2026-11-24T13.bloom"))).to be < filter[start].dump.bytesize / 4
      expect(described_class.open(dir, clock: clock)[start]).to eq(filter[start])
    end

    it "keeps files it does not own" do
      fill(periodic(retention: 2), 2).save(dir)
      File.write(File.join(dir, "notes.txt"), "mine")
      File.write(File.join(dir, "2020-01-01T00.bloom"), "not listed")
      clock.advance(5 * 3600)
      described_class.open(dir, clock: clock).save(dir)
      expect(Dir.children(dir).sort).to eq(%w[2020-01-01T00.bloom manifest.json notes.txt template.bloom])
    end

    describe "refuses a directory that does not fit" do
      before { fill(periodic, 2).save(dir) }

      let(:manifest_path) { File.join(dir, "manifest.json") }

      def rewrite_manifest
        manifest = JSON.parse(File.read(manifest_path))
        yield manifest
        File.write(manifest_path, JSON.generate(manifest))
      end

      it "with no manifest" do
        File.unlink(manifest_path)
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /manifest.json: no such file/)
      end

      it "with a manifest that is not JSON, or not ours" do
        File.write(manifest_path, "{not json")
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /not JSON/)
        File.write(manifest_path, "[1, 2]")
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /not a PeriodicFilter manifest/)
      end

      it "with a manifest of another version" do
        rewrite_manifest { |m| m["version"] = 2 }
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /manifest version 2/)
      end

      it "with a bad period length or retention" do
        rewrite_manifest { |m| m["period_seconds"] = -5 }
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /period must be/)
        rewrite_manifest { |m| m["period_seconds"] = 3600; m["retention"] = "24" }
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /retention/)
      end

      it "with labels that do not fit the period, or out of order" do
        rewrite_manifest { |m| m["periods"] = ["2026-11-24"] }
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /not the label/)
        rewrite_manifest { |m| m["periods"] = %w[2026-11-24T14 2026-11-24T13] }
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /out of order/)
      end

      it "with a period file whose metadata names another period" do
        skip "no filter metadata on this branch" unless Bloomc::BloomFilter.method_defined?(:metadata)

        File.rename(File.join(dir, "2026-11-24T13.bloom"), File.join(dir, "2026-11-24T12.bloom"))
        rewrite_manifest { |m| m["periods"] = %w[2026-11-24T12 2026-11-24T14] }
        expect { described_class.open(dir, clock: clock) }
          .to raise_error(Bloomc::FormatError, /T12.bloom: holds the period 2026-11-24T13:00:00Z \(3600 s\), not 2026-11-24T12:00:00Z/)
      end

      it "with a period file missing, damaged or of another shape" do
        path = File.join(dir, "2026-11-24T13.bloom")
        File.unlink(path)
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /T13.bloom: missing/)
        File.binwrite(path, factory.call.dump.tap { |d| d.setbyte(d.bytesize - 1, 1) })
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /T13.bloom: body checksum/)
        Bloomc::BloomFilter.new(capacity: 10, error_rate: 0.01).save(path)
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /T13.bloom: .*different m/)
        Bloomc::CountingBloomFilter.new(100, 3).save(path)
        expect { described_class.open(dir, clock: clock) }.to raise_error(Bloomc::FormatError, /T13.bloom: cannot combine/)
      end
    end
  end

  describe "threads" do
    it "loses no key added by several threads across rollovers" do
      ticks = 0
      lock = Mutex.new
      # Moves a minute on every 97th reading.
      moving = -> { lock.synchronize { start + (ticks += 1) / 97 * 60 } }
      filter = described_class.new(period: 60, retention: 1000, clock: moving) do
        Bloomc::BloomFilter.new(capacity: 5000, error_rate: 0.001)
      end
      keys = Array.new(4) { |t| Array.new(2000) { |i| "t#{t}-#{i}" } }
      keys.map { |mine| Thread.new { mine.each_slice(7) { |slice| slice.size == 7 ? filter.add_all(slice) : slice.each { |k| filter << k } } } }
          .each(&:join)
      expect(filter.labels.size).to be > 10
      expect(filter.include_all(keys.flatten, last: 1000).all?).to be(true)
      expect(filter.each_period.count { |_, f, closed| closed && !f.frozen? }).to eq(0)
    end

    it "lets a reader dump under #synchronize while adds wait" do
      filter = periodic
      filter << "a"
      added = Queue.new
      dumps = filter.synchronize do
        writer = Thread.new { filter << "b"; added << true }
        sleep 0.05 until writer.status == "sleep" # blocked on the lock
        out = filter.each_period.map { |_, f, _| f.dump }
        expect(added).to be_empty
        out
      end
      expect(added.pop).to be(true)
      expect(Bloomc.load(dumps.last).include?("b")).to be(false)
      expect(filter.include?("b")).to be(true)
    end
  end

  it "is declared in sig/bloomc.rbs with exactly its public methods" do
    decls = Signatures.declarations("bloomc.rbs")
    bloomc = decls.find { |d| d.name.to_s == "Bloomc" }
    decl = bloomc.members.find { |d| d.respond_to?(:name) && d.name.to_s == "PeriodicFilter" }
    methods = decl.members.grep(RBS::AST::Members::MethodDefinition)
    expect(methods.select(&:instance?).map(&:name).sort).to eq((described_class.public_instance_methods(false) + [:initialize]).sort)
    expect(methods.select(&:singleton?).map(&:name).sort).to eq(described_class.singleton_methods(false).sort)
  end
end
