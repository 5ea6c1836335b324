# frozen_string_literal: true

require "spec_helper"
require "open3"
require "tmpdir"

# The extension declares itself Ractor-safe (rb_ext_ractor_safe): its methods
# run in any Ractor. Objects are not shareable; sending one to a Ractor copies
# it, and the copy is independent. The timer thread stays in the main Ractor.
# Ractors run in a subprocess: they are experimental in Ruby 3.1 and their
# threads would outlive the example.
RSpec.describe "Ractor support" do
  def run_ruby(code)
    lib = File.expand_path("../../lib", __dir__)
    out, err, status = Open3.capture3(RbConfig.ruby, "-W0", "-I", lib, "-e", code)
    raise "subprocess failed (#{status.exitstatus}): #{err}" unless status.success?

    out
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

  it "refuses to make a filter shareable, and runs the timer only in the main Ractor" do
    out = run_ruby(<<~RUBY)
      require "bloomc"
      shareable = begin
        Ractor.make_shareable(Bloomc::BloomFilter.new(10, 1).freeze)
        :shared
      rescue Ractor::Error => error
        error.class
      end
      timer = Ractor.new do
        Bloomc::ContinuousBloomFilter.new(100, 2, 1).start_timer
        :started
      rescue Bloomc::Error => e
        e.message
      end.take
      p [shareable, timer]
    RUBY
    expect(out.strip).to eq('[Ractor::Error, "the timer thread runs only in the main Ractor"]')
  end
end
