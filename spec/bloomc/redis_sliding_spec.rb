# frozen_string_literal: true

require "spec_helper"

# Bloomc::Redis::SlidingBloomFilter on a standalone server and on a Redis
# Cluster. The server's clock cannot be simulated: these specs use real ttls
# of about a second, and say what they measure against the client's
# monotonic clock, which the server's TIME (whole ms) can only lag.
RedisSpecSupport.with_server("Bloomc::Redis::SlidingBloomFilter specs") do
  RSpec.describe Bloomc::Redis::SlidingBloomFilter do
    def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

    # The first layer's keys of a new generation, as bf_sliding_predicted
    # gives them, from the keys the live generations took (oldest first).
    def predicted(taken)
      seen = taken.last
      before = taken.size > 1 ? taken[-2] : 0
      seen += [seen - before, seen / 2].min if before.positive? && seen > before
      [seen + (seen / 16) + 64, 2**40].min
    end

    # The filter's generations as the server holds them: start (ms) =>
    # [initial capacity, adds, layer counts...].
    def table(filter) = @redis.hgetall("bloomc:{#{filter.name}}:gens").transform_values { |v| v.split(",").map(&:to_i) }

    # Every Redis key a filter's table names (its bitmaps), with the table.
    def named_keys(filter)
      bitmaps = table(filter).flat_map { |start, (_, _, *counts)| counts.each_index.map { |i| "bloomc:{#{filter.name}}:gen:#{start}:#{i}" } }
      ["bloomc:{#{filter.name}}:gens", *bitmaps]
    end

    before(:all) { RedisSpecSupport.flushdb }

    RedisSpecSupport.servers.each do |where, connect|
      context "on #{where}" do
        before(:all) { @redis = RedisSpecSupport.connect(self, where, connect) }

        let(:name) { "sliding-#{RSpec.current_example.id}" }
        let(:connect_again) { connect }

        after { described_class.new(@redis, name).destroy rescue ArgumentError } # rubocop:disable Style/RescueModifier

        it "sizes each generation's layers as the local filter does, and answers as it does within a window" do
          filter = described_class.new(@redis, name, ttl: 60, error_rate: 0.01, first_size: 100, seed: 7)
          local = Bloomc::SlidingBloomFilter.new(ttl: 60, error_rate: 0.01, first_size: 100, seed: 7, clock: -> { 0.0 })
          keys = Array.new(1000) { |i| "key-#{i}" }
          answers = keys.first(300).map { |key| [filter.add?(key).nil?, local.add?(key).nil?] }
          expect(answers.map(&:first)).to eq(answers.map(&:last))
          expect(filter.add_new(keys.drop(300).each)).to eq(local.add_new(keys.drop(300)))
          rows = local.send(:layer_table)
          gens = table(filter)
          expect(gens.size).to eq(1)
          expect(gens.values.first).to eq([100, 1000, *rows.map { |row| row[3] }])
          expect([filter.m, filter.size, filter.windows.map { |w| w[:layers] }]).to eq([local.m, 1000, [rows.size]])
          expect(rows.size).to be >= 3
          probes = Array.new(5000) { |i| "probe-#{i}" }
          expect(filter.include_all(probes)).to eq(local.include_all(probes))
          expect(filter.all_include?(keys)).to be(true)
          expect(filter.fill_ratio).to be_within(1e-12).of(local.fill_ratio)
          expect(filter.estimated_count).to be_within(1e-6).of(local.estimated_count)
          expect(filter.false_positive_rate).to be_within(1e-12).of(local.false_positive_rate)
          reopened = described_class.new(@redis, name)
          expect([reopened.ttl, reopened.error_rate, reopened.generations, reopened.first_size, reopened.include?(keys[0])])
            .to eq([60.0, 0.01, 4, 100, true])
          expect(reopened.inspect).to eq(%(#<Bloomc::Redis::SlidingBloomFilter "#{name}" ttl=60.0 error_rate=0.01 generations=4>))
          expect { described_class.new(@redis, name, ttl: 60, error_rate: 0.01, first_size: 100, seed: 7, generations: 2) }
            .to raise_error(ArgumentError, /different /)
          filter.clear
          expect([filter.empty?, filter.size, filter.include?(keys[0]), table(filter)]).to eq([true, 0, false, {}])
        end

        it "keeps every key for ttl after its add and drops it by ttl * (1 + 1 / generations), the server expiring each generation itself" do
          ttl = 0.8
          filter = described_class.new(@redis, name, ttl: ttl, error_rate: 0.01, first_size: 64)
          filler = 0
          fill = -> { filter.add_all(Array.new(20) { "filler-#{filler += 1}" }) } # generations keep starting
          fill.call
          keys = Array.new(300) { |i| "kept-#{i}" }
          sent = now
          filter.add_all(keys)
          added = now
          checks = 0
          while now < sent + ttl - 0.06
            fill.call
            expect(filter.all_include?(keys)).to be(true), "a key missed #{now - sent} s after its add"
            checks += 1
            sleep 0.05
          end
          expect(checks).to be >= 5
          fill.call while now < added + (ttl * 1.25) + 0.01
          expect(filter.count_included(keys)).to be <= 12 # false positives at 1%: about 3
          expect(filter.windows.size).to be_between(1, 5)
          names = named_keys(filter)
          expect(names.size).to be > 1
          sleep (ttl * 1.25) + 0.1 # no write since: the server expires every generation itself
          expect(@redis.exists(*names)).to eq(0)
          expect([filter.size, filter.windows, filter.include?("filler-1")]).to eq([0, [], false])
        end

        it "errs at most at error_rate while generations grow layers past their first sizes" do
          filter = described_class.new(@redis, name, ttl: 4, error_rate: 0.01, first_size: 64)
          started = now
          filter.add_all(Array.new(600) { |i| "first-#{i}" })
          sleep [started + 1.05 - now, 0].max # the next window (ttl / 4)
          filter.add_all(Array.new(2000) { |i| "second-#{i}" })
          windows = filter.windows
          expect(windows.size).to eq(2)
          expect(windows.map { |w| w[:layers] }).to all(be >= 2) # each outgrew its first layer within its window
          expect(table(filter).sort.map { |_, row| row[0] }).to eq([64, predicted([windows[0][:keys]])])
          probes = Array.new(20_000) { |i| "absent-#{i}" }
          rate = filter.count_included(probes).fdiv(probes.size)
          sigma = Math.sqrt(0.01 * 0.99 / probes.size)
          expect(rate).to be <= 0.01 + (4 * sigma)
          expect(filter.false_positive_rate).to be <= 0.01
        end

        it "loses no key and starts each generation once under writers adding at once" do
          ttl = 1.2
          described_class.new(@redis, name, ttl: ttl, error_rate: 0.01, first_size: 64)
          stop = now + (ttl * 1.6)
          most = 0
          writers = Array.new(4) do |w|
            Thread.new do
              mine = described_class.new(connect_again.call, name)
              added = []
              missed = 0
              i = 0
              while now < stop
                batch = Array.new(5) { "writer-#{w}-#{i += 1}" }
                batch.each_with_index { |key, j| j.even? ? mine << key : mine.add?(key) }
                mine.add_all(batch.map { |key| "#{key}-batch" })
                batch += batch.map { |key| "#{key}-batch" }
                added << [now, batch]
                missed += mine.include_all(batch).count(false) # at once
              end
              [added, missed]
            end
          end
          watcher = described_class.new(connect_again.call, name)
          while writers.any?(&:alive?)
            most = [most, watcher.windows.size, table(watcher).size].max
            sleep 0.02
          end
          added, missed = writers.map(&:value).transpose
          expect(missed).to eq([0] * 4)
          checked_from = now
          recent = added.flatten(1).select { |at, _| at > checked_from - 0.4 }.flat_map(&:last)
          expect(recent.size).to be > 100
          expect(watcher.include_all(recent).count(false)).to eq(0)
          expect(now - checked_from).to be < ttl - 0.45 # the lookups ran within the keys' ttl
          expect(most).to be_between(2, 5) # generations + 1 at most
          sizes = table(watcher).sort.map { |_, (capacity, _, *counts)| [capacity, counts.sum] }
          sizes.each_cons(2) { |(_, taken), (capacity, _)| expect(capacity).to be >= 64 + taken } # sized from the one before
        end

        it "keeps every key of a filter in one hash slot, and refuses bad keys and combinations without a change" do
          filter = described_class.new(@redis, name, ttl: 30, error_rate: 0.01)
          filter.add_all(Array.new(2000) { |i| "key-#{i}" })
          slots = [*named_keys(filter), "bloomc:{#{name}}:meta"].map { |key| RedisClient::Cluster::KeySlotConverter.convert(key) }
          expect(slots.uniq).to eq([RedisSpecSupport.key_slot(name)])
          before = [table(filter), filter.size]
          expect { filter.add(1.5) }.to raise_error(TypeError)
          expect { filter.add_all(["fresh", nil]) }.to raise_error(TypeError)
          expect { filter.add_new(["fresh", 2.5]) }.to raise_error(TypeError)
          expect { filter.include_all(["fresh", Object.new]) }.to raise_error(TypeError)
          expect([table(filter), filter.size, filter.include?("fresh")]).to eq([*before, false])
          %i[to_local dump].each { |op| expect { filter.public_send(op) }.to raise_error(Bloomc::UnsupportedError) }
          other = described_class.new(@redis, name)
          [-> { filter | other }, -> { filter & other }, -> { filter.merge!(other) },
           -> { filter.union(filter, into: "x") }].each { |call| expect(&call).to raise_error(Bloomc::UnsupportedError, /cannot be combined/) }
          expect { described_class.new(@redis, name, ttl: 0.001, error_rate: 0.01) }.to raise_error(ArgumentError, /ttl/)
          expect { described_class.new(@redis, "#{name}-none") }.to raise_error(ArgumentError, /no filter named/)
          frozen = described_class.new(@redis, name).freeze
          expect { frozen.add("x") }.to raise_error(FrozenError)
          expect([frozen.include?("key-1"), frozen.include_all(%w[key-2 x])]).to eq([true, [true, false]]) # it still reads
        end

        it "raises FormatError for a table it did not write" do
          filter = described_class.new(@redis, name, ttl: 30, error_rate: 0.01).add("a")
          key = "bloomc:{#{name}}:gens"
          @redis.hset(key, @redis.hkeys(key).first, "64,1,many")
          fresh = described_class.new(@redis, name)
          [-> { fresh.include?("a") }, -> { fresh.add("b") }, -> { filter.add("c") }, -> { fresh.windows }]
            .each { |call| expect(&call).to raise_error(Bloomc::FormatError, /gens holds no generation/) }
          filter.clear
          expect(filter.add?("a")).to be(filter)
        end
      end
    end
  end
end
