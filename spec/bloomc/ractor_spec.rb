# frozen_string_literal: true

require "spec_helper"
require "open3"
require "tmpdir"

# The extension declares itself Ractor-safe (rb_ext_ractor_safe): its methods
# run in any Ractor. A filter that is not frozen is not shareable; sending one
# to a Ractor copies it, and the copy is independent. A frozen filter on the
# heap is shareable (Ractor.make_shareable), and Ractors look keys up in it at
# once; a mapped filter never is. The timer thread stays in the main Ractor.
# Ractors run in a subprocess: they are experimental in Ruby 3.1 and their
# threads would outlive the example.
RSpec.describe "Ractor support" do
  def run_ruby(code, stdin_data: "")
    lib = File.expand_path("../../lib", __dir__)
    out, err, status = Open3.capture3(RbConfig.ruby, "-W0", "-I", lib, "-e", code, stdin_data: stdin_data, binmode: true)
    raise "subprocess failed (#{status.exitstatus}): #{err}" unless status.success?

    out
  end

  let(:keys) { Array.new(600) { |i| "k#{i}" } }
  let(:probes) { keys + Array.new(1400) { |i| "absent#{i}" } + [7, :k3] }

  # A filter of every kind holding keys, each as its dump (the subprocess
  # loads them), with the answers it gives here for probes.
  def every_kind
    filters = Kinds::LIST.reject(&:built_once?).to_h { |kind| [kind.name, Kinds.sized(kind.name, 1000, 0.01)] }
    filters.each_value { |f| f.add_all(keys) }
    filters["BinaryFuseFilter"] = Bloomc::BinaryFuseFilter.build(keys)
    filters.map { |name, f| [name, f.dump, f.include_all(probes)] }
  end

  it "calls every class from a non-main Ractor" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      r = Ractor.new do
        f = Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01)
        f << "a"
        f << 7
        c = Bloomc::ContinuousBloomFilter.new(1000, 3, 0)
        c << "x"
        c.inc_time_slot
        b = Bloomc::BitBucketField.new(4, 3)
        b.inc(1)
        [f.include?("a"), f.include?(7), f.include?("z"), c.include?("x"), f.bits.total_set > 0,
         Bloomc::FNV.fnv1a_32("foobar"), Bloomc::Murmur3.hash32("abc", 1),
         Bloomc::BloomHelper.find_m_k(100, 0.1), b.to_s, Bloomc::BitField.new(9).set(3).to_s]
      end
      p r.take
    RUBY
    expect(out.strip).to eq(
      [true, true, false, true, true, Bloomc::FNV.fnv1a_32("foobar"), Bloomc::Murmur3.hash32("abc", 1),
       [480, 3], "0000 0001 0000", "000100000"].inspect
    )
  end

  it "calls the libBf family and the blocked filter from a non-main Ractor, and copies them when sent" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      make = lambda do
        [Bloomc::BlockedBloomFilter.new(capacity: 100, error_rate: 0.01),
         Bloomc::CountingBloomFilter.new(capacity: 100, error_rate: 0.01),
         Bloomc::SpectralBloomFilter.new(capacity: 100, error_rate: 0.01, algorithm: :rm),
         Bloomc::BitwiseBloomFilter.new(capacity: 100, error_rate: 0.01, width: 1),
         Bloomc::StableBloomFilter.new(capacity: 100, error_rate: 0.01, random_seed: 5),
         Bloomc::A2BloomFilter.new(capacity: 100, error_rate: 0.01)]
      end
      built = Ractor.new do
        filters = Bloomc::BlockedBloomFilter.new(capacity: 100, error_rate: 0.01), *Ractor.receive
        filters.each { |f| 2.times { f.add("a") } }
        filters.map { |f| [f.include?("a"), f.respond_to?(:count) ? f.count("a") : nil] }
      end
      built.send(make.call.drop(1))
      sent = make.call
      inside = Ractor.new(sent) { |fs| fs.map { |f| f << "inside"; f.include?("inside") } }.take
      p [built.take, inside, sent.map { |f| f.include?("inside") }]
    RUBY
    expect(out.strip).to eq([[[true, nil], [true, 2], [true, 2], [true, 2], [true, nil], [true, nil]],
                             [true] * 6, [false] * 6].inspect)
  end

  it "grows, refuses, merges and dumps a scalable filter in a non-main Ractor, and copies one sent there" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      inside = Ractor.new do
        f = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 4)
        keys = Array.new(100) { |i| "r\#{i}" }
        fresh = f.add_new(keys)
        f << 7
        capped = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 4, max_capacity: 5)
        capped.add_all(%w[a b c d e])
        refused = begin
          capped.add_all(%w[x y z])
        rescue Bloomc::CapacityError => e
          e.class
        end
        union = f | Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 4).add_all(%w[u v])
        loaded = Bloomc.load(f.dump(compress: true)) == f
        [fresh.size > 95, f.layers.size, f.all_include?(keys + [7]), f.add?("r0"), refused, capped.size,
         union.include_all(%w[u v r99]), loaded]
      end.take
      sent = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 2).add_all(%w[a b c])
      copied = Ractor.new(sent) { |g| g.add_all(Array.new(50) { |i| "in\#{i}" }); [g.include?("a"), g.include?("in49"), g.layers.size] }.take
      p [inside, copied, sent.include?("in49"), sent.layers.size]
    RUBY
    expect(out.strip).to eq([[true, 5, true, nil, Bloomc::CapacityError, 5, [true, true, true], true],
                             [true, true, 5], false, 2].inspect)
  end

  it "copies a filter sent to a Ractor; the copy is independent" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      f = Bloomc::BloomFilter.new(1000, 3)
      f << "before"
      inside = Ractor.new(f) { |g| g << "inside"; [g.include?("before"), g.include?("inside")] }.take
      c = Bloomc::ContinuousBloomFilter.new(1000, 3, 0)
      c << "k"
      copied = Ractor.new(c) { |g| g.include?("k") }.take
      4.times { GC.start }
      p [inside, f.include?("inside"), copied]
    RUBY
    expect(out.strip).to eq("[[true, true], false, true]")
  end

  it "copies a filter of every kind, sized by capacity and carrying metadata, and a continuous filter whose timer runs" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      #{Kinds::SMALL_FILTER_SOURCE}
      copied = Bloomc::Format::KINDS.each_value.map do |name|
        f = small_filter(name)
        f.metadata = { "from" => "main" }
        Ractor.new(f) { |g| [g.include?("a"), g.metadata] }.take == [true, { "from" => "main" }] || name
      end
      c = Bloomc::ContinuousBloomFilter.new(capacity: 100, error_rate: 0.01, ttl: 60).start_timer
      c << "k"
      inside = Ractor.new(c) { |g| [g.include?("k"), g.timer_running?, g.stop_timer.equal?(g)] }.take
      p [copied.uniq, inside, c.timer_running?, c.stop_timer.timer_running?]
    RUBY
    expect(out.strip).to eq([[true], [true, false, true], true, false].inspect)
  end

  # Nothing loaded in the main Ractor beforehand: a library that requires
  # on first use (zlib for compression) raises Ractor::IsolationError there.
  it "dumps, saves and loads, compressed or not, in a non-main Ractor" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      path = File.join(#{Dir.tmpdir.dump}, "ractor-\#{Process.pid}.bloom")
      r = Ractor.new(path) do |file|
        f = Bloomc::BloomFilter.new(1000, 3)
        f << "a"
        f.save(file, compress: true)
        [Bloomc.load(f.dump(compress: true)).include?("a"), Bloomc.load(f.dump).include?("a"),
         Bloomc.load_file(file).include?("a"), Bloomc.load_file(file).include?("b")]
      ensure
        File.delete(file) if File.exist?(file)
      end
      p r.take
    RUBY
    expect(out.strip).to eq("[true, true, true, false]")
  end

  it "runs the timer only in the main Ractor" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      timer = Ractor.new do
        Bloomc::ContinuousBloomFilter.new(100, 2, 1).start_timer
        :started
      rescue Bloomc::Error => e
        e.message
      end.take
      p timer
    RUBY
    expect(out.strip).to eq('"the timer thread runs only in the main Ractor"')
  end

  # Each Ractor asks for every probe, one by one and in batches, many times
  # over, while the other does the same: a lookup that wrote anything shared
  # (or read a half-written clock) would show as a different answer.
  it "shares a frozen filter of every kind; Ractors look keys up in it at once and answer as the main Ractor does" do
    out = run_ruby(<<~RUBY, stdin_data: Marshal.dump([every_kind, probes]))
      require "bloomc"
      kinds, probes = Marshal.load($stdin.read)
      probes = Ractor.make_shareable(probes)
      results = kinds.map do |name, dump, expected|
        f = Ractor.make_shareable(Bloomc.load(dump).freeze)
        # a dump by what it loads as (a sliding filter's also says when it was made)
        readers = [f.hash, f.inspect, Bloomc.load(f.dump).hash, f.count_included(probes)]
        serial = f.include_all(probes)
        ractors = Array.new(2) do
          Ractor.new(f, probes, readers) do |g, keys, before|
            same = Array.new(20) do
              g.include_all(keys) == keys.map { |key| g.include?(key) } && g.count_included(keys) == g.include_all(keys).count(true)
            end.all?
            answers = g.include_all(keys)
            [answers, same, [g.hash, g.inspect, Bloomc.load(g.dump).hash, g.count_included(keys)] == before,
             g == g.dup, Bloomc.load(g.dump) == g]
          end
        end
        took = ractors.map(&:take)
        [name, Ractor.shareable?(f), serial == expected,
         took.all? { |answers, *checks| answers == serial && checks.all? }]
      end
      p results
    RUBY
    expect(eval(out)).to eq(every_kind.map { |name, *| [name, true, true, true] }) # rubocop:disable Security/Eval
  end

  it "raises FrozenError for a write to a shared filter inside a Ractor, and the filter stays as it was" do
    out = run_ruby(<<~RUBY, stdin_data: Marshal.dump(every_kind))
      require "bloomc"
      results = Marshal.load($stdin.read).map do |name, dump, _|
        f = Ractor.make_shareable(Bloomc.load(dump).freeze)
        before = Bloomc.load(f.dump)
        writes = Ractor.new(f) do |g|
          %i[add add_all clear merge! delete inc_time_slot].filter_map do |write|
            next unless g.respond_to?(write)

            arg = { add: ["new"], add_all: [%w[new other]], merge!: [g.dup], delete: ["k1"] }.fetch(write, [])
            begin
              g.public_send(write, *arg)
              [write, :written]
            rescue FrozenError, Bloomc::UnsupportedError => e
              [write, e.class]
            end
          end
        end.take
        [name, writes.map(&:last).uniq, writes.map(&:first).include?(:clear), f == before]
      end
      p results
    RUBY
    # A binary fuse filter cannot be written at all, frozen or not.
    expect(eval(out)).to eq(every_kind.map do |name, *| # rubocop:disable Security/Eval
      [name, [name == "BinaryFuseFilter" ? Bloomc::UnsupportedError : FrozenError], true, true]
    end)
  end

  it "shares a filter only once it is frozen, as Ruby's own objects; make_shareable freezes it, stopping a timer" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      f = Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01).add_all(%w[a b])
      unfrozen = [Ractor.shareable?(f), f.frozen?]
      copied = Ractor.new(f) { |g| g << "inside"; g.include?("inside") }.take
      shared = Ractor.make_shareable(f)
      c = Bloomc::ContinuousBloomFilter.new(capacity: 100, error_rate: 0.01, ttl: 60).start_timer
      c << "live"
      Ractor.make_shareable(c)
      timer = [c.frozen?, c.timer_running?, c.stop_timer.equal?(c)]
      started = begin
        c.start_timer
      rescue FrozenError
        FrozenError
      end
      clone = Bloomc::ContinuousBloomFilter.new(100, 2, 0).clone(freeze: true)
      inside = Ractor.new(c, Ractor.make_shareable(clone)) { |g, h| [g.include?("live"), h.frozen?] }.take
      p [unfrozen, copied, f.include?("inside"), shared.equal?(f), f.frozen?, Ractor.shareable?(f), timer, started, inside]
    RUBY
    expect(out.strip).to eq([[false, false], true, false, true, true, true, [true, false, true], FrozenError,
                             [true, true]].inspect)
  end

  it "refuses to share a mapped filter, writable or read-only, and leaves it open and usable" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      require "tmpdir"
      Dir.mktmpdir do |dir|
        path = File.join(dir, "shared.bloom")
        refusals = [Bloomc::BloomFilter, Bloomc::ContinuousBloomFilter, Bloomc::CountingBloomFilter].map do |klass|
          shape = klass == Bloomc::ContinuousBloomFilter ? { m: 1000, k: 3, ttl: 0 } : { m: 1000, k: 3 }
          File.delete(path) if File.exist?(path)
          writer = klass.open(path, **shape)
          writer << "a"
          writer.flush
          reader = klass.open(path, readonly: true)
          [writer.freeze, reader].map do |mapped|
            refused = begin
              Ractor.make_shareable(mapped)
              :shared
            rescue Ractor::Error => e
              e.message.start_with?("can not make shareable object for #<\#{klass}")
            end
            [refused, Ractor.shareable?(mapped), mapped.include?("a")]
          end.tap do
            copy = Ractor.make_shareable(reader.dup.freeze)
            raise "a heap copy is not shareable" unless Ractor.new(copy) { |g| g.include?("a") }.take

            reader.close
            writer.close
          end
        end
        p [refusals, Bloomc::CountingBloomFilter.open(path, readonly: true, &:frozen?)]
      end
    RUBY
    expect(out.strip).to eq([[[[true, false, true]] * 2] * 3, true].inspect)
  end
end
