# frozen_string_literal: true

require "spec_helper"
require "bigdecimal"
require "set"
require "tmpdir"

# (With redis-client alone it loads: redis_clients_spec.rb.)
RSpec.describe "bloomc/redis without the redis and redis-client gems" do
  it "raises a LoadError that names the gem to add" do
    hide_redis = "module Kernel; alias_method :real_require, :require; def require(name) = " \
                 '%w[redis redis-client].include?(name) ? raise(LoadError, "cannot load such file -- " + name) : real_require(name); end'
    lib = File.expand_path("../../lib", __dir__)
    out = IO.popen([RbConfig.ruby, "-I", lib, "-e", hide_redis, "-e",
                    'begin; require "bloomc/redis"; rescue LoadError => e; print e.message; end'], &:read)
    expect(out).to include("bloomc/redis needs the redis gem (redis-rb 5) or the redis-client gem", 'add `gem "redis"` to your Gemfile')
  end
end

RedisSpecSupport.with_server("Bloomc::Redis specs") do
  RSpec.describe Bloomc::Redis do
    keys = Array.new(2000) { |i| "key-#{i}" }.freeze
    probes = Array.new(5000) { |i| "probe-#{i}" }.freeze

    # The same filter kinds, locally and in Redis, with the same shape:
    # kind => [the local filter's own keywords, the keywords both take (a
    # Redis filter must be given them too: extra)].
    kinds = {}
    extra = {}
    { "BloomFilter" => [{}, {}], "CountingBloomFilter" => [{ width: 4 }, {}],
      "ContinuousBloomFilter" => [{}, { ttl: 60 }] }.each do |kind, (local_kw, shared_kw)|
      redis_class = Bloomc::Redis.const_get(kind)
      kinds[redis_class] = ->(m, k) { Kinds.plain(kind, m, k, seed: 7, **local_kw, **shared_kw) }
      extra[redis_class] = shared_kw
    end

    before(:all) { RedisSpecSupport.flushdb }

    RedisSpecSupport.servers.each do |where, connect|
      context "on #{where}" do
        before(:all) { @redis = RedisSpecSupport.connect(self, where, connect) }

        let(:name) { "spec-#{RSpec.current_example.id}" }

        kinds.each do |klass, local_of|
          describe klass do
            def build(klass, **shape) = klass.new(@redis, name, **shape)

            after { klass.new(@redis, name).destroy rescue ArgumentError } # rubocop:disable Style/RescueModifier

            it "answers every lookup as the local filter of the same shape, false positives included" do
              filter = build(klass, m: 20_000, k: 5, seed: 7, **extra.fetch(klass, {}))
              local = local_of.call(20_000, 5)
              keys.first(200).each { |key| filter << key }
              filter.add_all(keys.drop(200).each) # any Enumerable
              local.add_all(keys)
              expect(filter.include_all(keys).all?).to be(true)
              expect(filter.include_all(probes)).to eq(local.include_all(probes))
              expect(probes.first(50).map { |key| filter.include?(key) }).to eq(local.include_all(probes.first(50)))
              expect(filter.count_included(probes)).to eq(local.count_included(probes))
              expect([filter.all_include?(keys), filter.any_include?(["never-added"])]).to eq([true, false])
              expect(filter.size).to eq(2000)
              expect([filter.m, filter.k, filter.shards]).to eq([20_000, 5, 1])
            end

            if klass.instance_method(:initialize).parameters.include?(%i[key hash])
              it "places keys as the local filter does with hash: :murmur3_mixed, and keeps it in its meta" do
                shape = { m: 3000, k: 6, seed: 7, hash: :murmur3_mixed, **extra.fetch(klass, {}) }
                filter = build(klass, **shape).add_all(keys.first(300))
                local = Kinds.plain(klass.name.split("::").last, 3000, 6, seed: 7, hash: :murmur3_mixed,
                                                                          **extra.fetch(klass, {})).add_all(keys.first(300))
                expect(filter.include_all(probes)).to eq(local.include_all(probes))
                expect(klass.new(@redis, name).hash_function).to eq(:murmur3_mixed)
              end
            end

            it "splits into shards, each key's cells in one, and still answers every key" do
              filter = build(klass, capacity: 5000, error_rate: 0.01, shards: 6, **extra.fetch(klass, {}))
              filter.add_all(keys)
              expect(filter.all_include?(keys)).to be(true)
              expect(filter.count_included(probes)).to be < 5000 * 0.02 # 1% target, 2000 keys of 5000
              expect(filter.size).to eq(2000)
              expect(filter.shards).to eq(6)
              expect(filter << "s1" << "s2" << "s3").to equal(filter) # self, so that adds chain
              expect(filter.add("s4")).to equal(filter)
              expect([filter.size, filter.all_include?(%w[s1 s2 s3 s4])]).to eq([2004, true])
            end

            # Set#add?'s answers: new when the filter did not include the key
            # (a cell changed; a count was 0; not live), false positives
            # included. Unsharded, the expectations come from a local filter's
            # include? before each add; sharded, from the Redis filter's own
            # include? before each add?, and for add_new from a twin that
            # adds the batch's keys one at a time with add?.
            # :slow: a round trip per key, on a cluster too
            it "says which keys were new (add?, add_new) as a local filter of the same shape would, sharded or not", :slow do
              stream = (keys.first(180) + keys.first(25) + keys[180, 120]).shuffle(random: Random.new(5))
              singles, batch = stream.each_slice(150).to_a.then { |first, *rest| [first, rest.flatten] }
              [1, 5].each do |shards|
                shape = { m: 1200, k: 4, seed: 7, shards: shards, **extra.fetch(klass, {}) }
                filter = klass.new(@redis, "#{name}-#{shards}", **shape)
                twin = klass.new(@redis, "#{name}-#{shards}-twin", **shape) if shards > 1
                local = local_of.call(1200, 4) if shards == 1
                seen = Set[]
                false_positives = 0
                answers = singles.map do |key|
                  was = local ? local.include?(key) : filter.include?(key)
                  false_positives += 1 if was && !seen.include?(key)
                  seen << key
                  local&.add(key)
                  twin&.add(key)
                  [was ? nil : filter, filter.add?(key)]
                end
                expect(answers.map(&:last)).to eq(answers.map(&:first))
                expected = batch.select do |key|
                  was = local ? local.include?(key) : !twin.add?(key)
                  false_positives += 1 if was && !seen.include?(key)
                  seen << key
                  local&.add(key)
                  !was
                end
                expect(filter.add_new(batch.each)).to eq(expected) # any Enumerable
                expect(false_positives).to be_between(3, 60) # keys never added, said present (the filter fills to 63%)
                expect(filter.size).to eq(stream.size)
                expect(filter.all_include?(stream)).to be(true)
                expect(filter.include_all(probes)).to eq(local.include_all(probes)) if local
                expect(filter.include_all(probes)).to eq(twin.include_all(probes)) if twin
                [filter, twin].compact.each(&:destroy)
              end
            end

            it "returns the new keys of a batch as the objects given, in order, each at its first occurrence" do
              filter = build(klass, m: 100_000, k: 5, **extra.fetch(klass, {}))
              first = +"dup"
              again = +"dup"
              sym = :sym
              filter << "old"
              answer = filter.add_new([first, "old", 12, again, sym, 12, sym, "x"])
              expect(answer).to eq(["dup", 12, :sym, "x"])
              expect(answer[0]).to equal(first)
              expect(filter.add_new([])).to eq([])
              expect(filter.add_new(Set["x", "y"])).to eq(["y"])
              expect(filter.add_new({ "z" => 1 }.each_key)).to eq(["z"])
              expect([filter.add?("z"), filter.add?(:fresh)]).to eq([nil, filter])
              expect(filter.size).to eq(14)
            end

            it "refuses bad arguments to add? and add_new, writing nothing" do
              filter = build(klass, m: 1000, k: 3, **extra.fetch(klass, {}))
              expect { filter.add?(nil) }.to raise_error(TypeError)
              expect { filter.add?(1.5) }.to raise_error(TypeError)
              expect { filter.add_new(5) }.to raise_error(TypeError, /Enumerable/)
              expect { filter.add_new("abc") }.to raise_error(TypeError, /Enumerable/)
              expect { filter.add_new(["x", "y", [1]]) }.to raise_error(TypeError)
              expect { filter.add_new(["x", nil]) }.to raise_error(TypeError)
              expect { filter.add? }.to raise_error(ArgumentError)
              expect([filter.size, filter.any_include?(%w[x y])]).to eq([0, false])
            end

            it "keeps the capacity and error rate it was created with, and says when more keys than that came in" do
              filter = build(klass, capacity: 150, error_rate: 1e-6, shards: 3, **extra.fetch(klass, {}))
              expect([filter.capacity, filter.error_rate, klass.new(@redis, name).capacity]).to eq([150, 1e-6, 150])
              expect(filter.over_capacity?).to be(false)
              if klass == Bloomc::Redis::ContinuousBloomFilter
                # An estimate from the live cells: 2,000 keys over a capacity of 150.
                filter.add_all(keys.first(120) * 3)
                expect(filter.over_capacity?).to be(false)
                filter.add_all(keys)
                expect(filter.over_capacity?).to be(true)
              else
                # Exactly the keys that were new (at 1e-6, no false positive among these).
                filter.add_all(keys.first(50))
                keys[50, 50].each { |key| filter << key }
                keys[100, 40].each { |key| filter.add?(key) }
                filter.add_new(keys[140, 10] + keys.first(150))
                20.times { filter << keys[7] }
                expect([filter.size, filter.over_capacity?]).to eq([320, false])
                filter << keys[150]
                expect(filter.over_capacity?).to be(true)
                if klass == Bloomc::Redis::CountingBloomFilter
                  filter.delete(keys[150]) # its count back to 0: no longer counted
                  expect(filter.over_capacity?).to be(false)
                  2.times { filter.delete(keys[0]) } # its count was 2: one delete to 0
                  filter.add_new([keys[150], "one more"])
                  expect(filter.over_capacity?).to be(true)
                end
              end
              filter.clear
              expect([filter.over_capacity?, @redis.exists?("bloomc:{#{name}:0}:distinct"), filter.capacity]).to eq([false, false, 150])
              filter.destroy
              sized = build(klass, m: 100, k: 2, **extra.fetch(klass, {})).add_all(keys)
              expect([sized.capacity, sized.error_rate, sized.over_capacity?]).to eq([nil, nil, false]) # none without a capacity
            end

            it "keeps its parameters beside it and refuses to open them differently" do
              build(klass, m: 1000, k: 3, **extra.fetch(klass, {})) << "a"
              reopened = klass.new(@redis, name)
              expect([reopened.m, reopened.k, reopened.include?("a")]).to eq([1000, 3, true])
              expect { build(klass, m: 1001, k: 3, **extra.fetch(klass, {})) }
                .to raise_error(ArgumentError, /different m \(1000, asked for 1001\)/)
              expect { build(klass, m: 1000, k: 3, shards: 2, **extra.fetch(klass, {})) }.to raise_error(ArgumentError, /different shards/)
              other = (kinds.keys - [klass]).first
              expect { other.new(@redis, name) }.to raise_error(ArgumentError, /is a \w+, not a/)
              expect { klass.new(@redis, "#{name}-none") }.to raise_error(ArgumentError, /no filter named/)
            end

            it "refuses bad names, shapes and keys with clear errors, changing nothing" do
              expect { klass.new(nil, name, m: 10, k: 2) }.to raise_error(TypeError, /client of the redis or redis-client gem/)
              expect { klass.new(@redis, "a{b}", m: 10, k: 2) }.to raise_error(ArgumentError, /without braces/)
              expect { klass.new(@redis, :sym, m: 10, k: 2) }.to raise_error(ArgumentError, /non-empty String/)
              expect { build(klass, m: 0, k: 2, **extra.fetch(klass, {})) }.to raise_error(ArgumentError)
              expect { build(klass, m: 10, k: 2, shards: 0, **extra.fetch(klass, {})) }.to raise_error(ArgumentError, /shards/)
              expect { build(klass, m: 2**40, k: 2, **extra.fetch(klass, {})) }.to raise_error(ArgumentError, /Redis string/)
              expect(@redis.exists?("bloomc:{#{name}}:meta")).to be(false) # nothing was created
              filter = build(klass, m: 1000, k: 3, **extra.fetch(klass, {}))
              filter << "kept"
              expect { filter << nil }.to raise_error(TypeError)
              expect { filter.add_all(["x", 1.5]) }.to raise_error(TypeError)
              expect { filter.include_all(5) }.to raise_error(TypeError)
              expect([filter.size, filter.include?("x")]).to eq([1, false])
            end

            it "refuses with CommandError, changing nothing, when a key of its own holds another type" do
              filter = build(klass, m: 1000, k: 3, **extra.fetch(klass, {}))
              cells = if klass == Bloomc::Redis::ContinuousBloomFilter # this period's bitmap, and the next's
                        period = (filter.ttl * 500).round
                        now = @redis.time.then { |s, us| s * 1000 + us / 1000 }
                        [0, 1].map { |later| "bloomc:{#{name}:0}:gen:#{now / period + later}" }
                      else
                        ["bloomc:{#{name}:0}:cells"]
                      end
              cells.each { |key| @redis.rpush(key, "x") }
              expect { filter << "a" }.to raise_error(Bloomc::Redis::CommandError, /WRONGTYPE/)
              expect { filter.add_all(%w[a b c]) }.to raise_error(Bloomc::Redis::CommandError, /WRONGTYPE/)
              expect { filter.include_all(%w[a b]) }.to raise_error(Bloomc::Redis::CommandError, /WRONGTYPE/)
              expect(filter.size).to eq(0) # the count was not raised for cells never set
              cells.each { |key| @redis.del(key) }
              @redis.set("bloomc:{#{name}:0}:count", "not a number")
              expect { filter << "a" }.to raise_error(Bloomc::Redis::CommandError, /holds no count/)
              expect { filter.add_all(%w[a b]) }.to raise_error(Bloomc::Redis::CommandError, /holds no count/)
              @redis.del("bloomc:{#{name}:0}:count")
              unless klass == Bloomc::Redis::ContinuousBloomFilter # the others count the keys new to them
                @redis.set("bloomc:{#{name}:0}:distinct", "not a number")
                expect { filter << "a" }.to raise_error(Bloomc::Redis::CommandError, /distinct holds no count/)
                expect { filter.add_new(%w[a b]) }.to raise_error(Bloomc::Redis::CommandError, /distinct holds no count/)
                expect { filter.delete("a") }.to raise_error(Bloomc::Redis::CommandError, /distinct holds no count/) if filter.respond_to?(:delete)
                @redis.del("bloomc:{#{name}:0}:distinct")
              end
              expect(filter.include_all(%w[a b])).to eq([false, false]) # no cell was set by the refused adds
              @redis.set("bloomc:{#{name}-meta}:meta", "x")
              expect { build(klass, m: 1000, k: 3, **extra.fetch(klass, {})).class.new(@redis, "#{name}-meta", m: 10, k: 2, **extra.fetch(klass, {})) }
                .to raise_error(Bloomc::FormatError, /holds no filter's parameters/)
              @redis.del("bloomc:{#{name}-meta}:meta")
            end

            it "refuses writes through a frozen object, as a local filter does" do
              filter = build(klass, m: 1000, k: 3, **extra.fetch(klass, {}))
              filter << "a"
              filter.freeze
              [-> { filter << "b" }, -> { filter.add("b") }, -> { filter.add?("b") }, -> { filter.add_all(%w[b]) },
               -> { filter.add_new(%w[b]) }, -> { filter.clear }, -> { filter.destroy }].each do |write|
                expect(&write).to raise_error(FrozenError)
              end
              expect([filter.include?("a"), filter.include?("b"), filter.size]).to eq([true, false, 1])
            end

            it "clears its cells and count, keeping its parameters" do
              filter = build(klass, m: 1000, k: 3, **extra.fetch(klass, {}))
              filter.add_all(keys.first(100))
              expect(filter.clear).to equal(filter)
              expect([filter.size, filter.any_include?(keys.first(100))]).to eq([0, false])
              expect(klass.new(@redis, name).k).to eq(3)
            end

            # The local API on the server: stats from BITCOUNT (bits), a
            # script over the counters, the live generations; set operations
            # by BITOP and scripts, on a cluster between names whose shards
            # share hash slots (same_slot_name).
            describe "the local filters' API" do
              # Filter i beside the example's own: on a cluster, a name whose
              # shard 0 shares the slot of the example's (same_slot_name).
              define_method(:twin_name) do |i|
                (@twins ||= {})[i] ||= where.include?("Cluster") ? RedisSpecSupport.same_slot_name(name, i) : "#{name}-#{i}"
              end

              after { @twins&.each_value { |twin| klass.new(@redis, twin).destroy rescue ArgumentError } } # rubocop:disable Style/RescueModifier

              it "has the seed, empty?, and the stats of the local filter of the same shape, computed on the server" do
                filter = build(klass, m: 70_001, k: 4, seed: 7, **extra.fetch(klass, {})) # 3 scans of 32,768 counters
                local = local_of.call(70_001, 4)
                expect([filter.seed, filter.empty?, filter.fill_ratio, filter.estimated_count]).to eq([7, true, 0.0, 0.0])
                filter.add_all(keys)
                local.add_all(keys)
                expect(filter.empty?).to be(false)
                expect(filter.fill_ratio).to be_within(1e-12).of(local.fill_ratio)
                expect(filter.estimated_count).to be_within(1e-6).of(local.estimated_count)
                expect(filter.estimated_count).to be_within(100).of(2000)
                expect(filter.false_positive_rate).to be_within(1e-15).of(local.false_positive_rate)
                expect(filter.hash_function).to eq(local.hash_function) if local.respond_to?(:hash_function)
                filter.clear
                expect([filter.empty?, filter.fill_ratio]).to eq([true, 0.0])
              end

              it "sums the stats over shards" do
                filter = build(klass, m: 60_000, k: 4, seed: 7, shards: 5, **extra.fetch(klass, {}))
                filter.add_all(keys)
                expect(filter.estimated_count).to be_within(100).of(2000)
                expect(filter.fill_ratio).to be_within(0.03).of(1 - Math.exp(-4 * 2000 / 60_000.0))
                expect(filter.false_positive_rate).to be_within(0.3 * filter.false_positive_rate).of(filter.fill_ratio**4)
              end

              it "merges, unites and intersects as the local filters do, on the server" do
                shape = { m: 20_000, k: 4, seed: 7, **extra.fetch(klass, {}) }
                a = build(klass, **shape).add_all(keys.first(1200))
                b = klass.new(@redis, twin_name(1), **shape).add_all(keys.drop(800))
                local_a = local_of.call(20_000, 4).add_all(keys.first(1200))
                local_b = local_of.call(20_000, 4).add_all(keys.drop(800))
                both = a.union(b, into: twin_name(2))
                common = a.intersection(b, into: twin_name(3))
                expect([both.class, both.name, both.m, both.k, both.seed]).to eq([klass, twin_name(2), 20_000, 4, 7])
                expect(both.include_all(keys + probes)).to eq((local_a | local_b).include_all(keys + probes))
                expect(common.include_all(keys + probes)).to eq((local_a & local_b).include_all(keys + probes))
                expect([both.size, common.size]).to eq([2400, 1200])
                if klass == Bloomc::Redis::CountingBloomFilter
                  expect(keys.first(900).map { |key| both.count(key) }).to eq(keys.first(900).map { |key| (local_a | local_b).count(key) })
                  expect(keys.first(900).map { |key| common.count(key) }).to eq(keys.first(900).map { |key| (local_a & local_b).count(key) })
                end
                expect(a.merge!(b)).to equal(a)
                expect([a.include_all(keys + probes), a.size]).to eq([both.include_all(keys + probes), 2400])
                expect(a.fill_ratio).to be_within(1e-12).of((local_a | local_b).fill_ratio)
                expect(b.intersection(a, into: b.name)).to equal(b) # into one of the two: that one changes
                expect(b.include_all(keys + probes)).to eq((local_b & (local_a | local_b)).include_all(keys + probes))
              end

              it "refuses other kinds and shapes, |, & and a frozen receiver, with clear errors" do
                shape = { m: 2000, k: 3, **extra.fetch(klass, {}) }
                a = build(klass, **shape)
                wider = klass.new(@redis, twin_name(1), **extra.fetch(klass, {}), m: 2001, k: 3)
                expect { a.merge!(wider) }.to raise_error(ArgumentError, /different m \(2000 and 2001\)/)
                other = (kinds.keys - [klass]).first
                stranger = other.new(@redis, "#{name}-#{other.name.split('::').last}", m: 2000, k: 3, **extra.fetch(other, {}))
                expect { a.merge!(stranger) }.to raise_error(ArgumentError, /cannot combine a #{klass} with a #{other}/)
                stranger.destroy
                expect { a.merge!(local_of.call(2000, 3)) }.to raise_error(ArgumentError, /cannot combine/)
                expect { a | wider }.to raise_error(ArgumentError, /different m \(2000 and 2001\)/)
                expect { a & wider }.to raise_error(ArgumentError, /different m/)
                %w[| &].each { |op| expect { klass.new(@redis, "#{a.name}#{op}#{wider.name}") }.to raise_error(ArgumentError, /no filter named/) }
                expect { a.union(a, into: nil) }.to raise_error(TypeError, /into:/)
                expect { a.freeze.merge!(klass.new(@redis, name)) }.to raise_error(FrozenError)
              end

              it "names a | b and a & b after the two, replacing that filter when called again; on a cluster refuses, writing nothing" do
                shape = { m: 20_000, k: 4, seed: 7, **extra.fetch(klass, {}) }
                a = build(klass, **shape).add_all(keys.first(1200))
                b = klass.new(@redis, twin_name(1), **shape).add_all(keys.drop(800))
                local_a = local_of.call(20_000, 4).add_all(keys.first(1200))
                local_b = local_of.call(20_000, 4).add_all(keys.drop(800))
                united = @twins[:united] = "#{a.name}|#{b.name}" # destroyed after
                common = @twins[:common] = "#{a.name}&#{b.name}"
                if where.include?("Cluster")
                  expect(RedisSpecSupport.key_slot("#{united}:0")).not_to eq(RedisSpecSupport.key_slot("#{name}:0")) # the case at hand
                  expect { a | b }.to raise_error(Bloomc::UnsupportedError, /#{Regexp.escape(united.inspect)}, whose shards lie elsewhere: merge! one into the other, or union\(other, into: NAME\).*to_local/)
                  expect { a & b }.to raise_error(Bloomc::UnsupportedError, /names its result #{Regexp.escape(common.inspect)}.*: intersection\(other, into: NAME\)/)
                  [united, common].each { |made| expect { klass.new(@redis, made) }.to raise_error(ArgumentError, /no filter named/) }
                  expect([a.size, b.size, a.include_all(keys).count(true)]).to eq([1200, 1200, local_a.include_all(keys).count(true)])
                else
                  both = a | b
                  expect([both.class, both.name, both.size]).to eq([klass, united, 2400])
                  expect(both.include_all(keys + probes)).to eq((local_a | local_b).include_all(keys + probes))
                  both_way = a & b
                  expect([both_way.class, both_way.name, both_way.size]).to eq([klass, common, 1200])
                  expect(both_way.include_all(keys + probes)).to eq((local_a & local_b).include_all(keys + probes))
                  held = -> { @redis.keys.select { |key| key.start_with?("bloomc:{#{united}") }.sort }
                  before = held.call
                  b.add_all(probes.first(300))
                  local_b.add_all(probes.first(300))
                  again = a | b # the same filter, its cells replaced
                  expect([again.name, again.size]).to eq([united, 2700])
                  expect(again.include_all(keys + probes)).to eq((local_a | local_b).include_all(keys + probes))
                  expect(held.call).to eq(before) unless klass == Bloomc::Redis::ContinuousBloomFilter # its keys follow the clock
                  expect([a.size, b.size]).to eq([1200, 1500]) # the operands stay as they were
                end
              end

              it "combines sharded filters shard by shard where the shards share slots, and says why not where they do not" do
                shape = { m: 9000, k: 3, shards: 3, **extra.fetch(klass, {}) }
                a = build(klass, **shape).add_all(keys.first(300))
                b = klass.new(@redis, "#{name}-far", **shape).add_all(keys[300, 300])
                if where.include?("Cluster")
                  expect { a.merge!(b) }.to raise_error(Bloomc::UnsupportedError, /shards 0 lie in different hash slots .*slot \d+.*slot \d+/)
                  expect(a.include_all(keys[300, 300]).count(true)).to be < 30 # nothing was merged
                else
                  a.merge!(b)
                  expect([a.all_include?(keys.first(600)), a.size]).to eq([true, 600])
                end
                b.destroy
              end
            end
          end
        end

        describe Bloomc::Redis::ScalableBloomFilter do
          let(:params) { { error_rate: 0.01, initial_capacity: 100, seed: 7 } }

          after { Bloomc::Redis::ScalableBloomFilter.new(@redis, name).destroy rescue ArgumentError } # rubocop:disable Style/RescueModifier

          it "reads through a frozen object, learning of layers another writer added, and refuses its writes" do
            params = { error_rate: 0.01, initial_capacity: 50 }
            frozen = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params).freeze
            Bloomc::Redis::ScalableBloomFilter.new(@redis, name).add_all(keys.first(400)) # past the first layers
            expect([frozen.include?(keys[399]), frozen.include_all(keys.first(400)).all?, frozen.layer_count]).to eq([true, true, frozen.layers.size])
            expect { frozen << "x" }.to raise_error(FrozenError)
          end

          def layer_rows(filter) = filter.layers.map { |layer| [layer.m, layer.k, layer.capacity, layer.count] }

          it "grows as the local scalable filter of the same parameters, layer for layer, answering as it does" do
            filter = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params)
            local = Bloomc::ScalableBloomFilter.new(**params)
            expect([filter.empty?, filter.layer_count, filter.size]).to eq([true, 1, 0])
            answers = keys.first(300).map { |key| [filter.add?(key).nil?, local.add?(key).nil?] }
            expect(answers.map(&:first)).to eq(answers.map(&:last))
            expect(filter.add_new(keys.drop(300).each)).to eq(local.add_new(keys.drop(300))) # one pipeline, several layers added
            expect(layer_rows(filter)).to eq(local.layers.map { |layer| [layer.m, layer.k, layer.capacity, layer.count] })
            expect(filter.layer_count).to eq(5)
            expect(filter.include_all(probes)).to eq(local.include_all(probes))
            expect([filter.size, filter.all_include?(keys), filter.m]).to eq([local.size, true, local.m])
            expect(filter.fill_ratio).to be_within(1e-12).of(local.fill_ratio)
            expect(filter.estimated_count).to be_within(1e-6).of(local.estimated_count)
            expect(filter.false_positive_rate).to be_within(1e-12).of(local.false_positive_rate)
            reopened = Bloomc::Redis::ScalableBloomFilter.new(@redis, name)
            expect([reopened.error_rate, reopened.initial_capacity, reopened.growth, reopened.include_all(probes)])
              .to eq([0.01, 100, 2.0, local.include_all(probes)])
            expect { Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params, growth: 3) }.to raise_error(ArgumentError, /different growth/)
            filter.clear
            expect([filter.empty?, filter.layer_count, filter.size, filter.include?(keys[0])]).to eq([true, 1, 0, false])
          end

          it "adds each layer once, atomically, under writers in threads and processes adding at once" do
            Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params)
            connect_again = where.include?("Cluster") ? -> { RedisSpecSupport.cluster_client } : -> { RedisSpecSupport.client }
            batches = Array.new(6) { |w| Array.new(500) { |i| "writer-#{w}-#{i}" } }
            pids = batches.last(2).map do |batch|
              fork do
                mine = Bloomc::Redis::ScalableBloomFilter.new(connect_again.call, name)
                batch.each_slice(50) { |slice| mine.add_all(slice) }
                exit!(0)
              end
            end
            batches.first(4).map do |batch|
              Thread.new do
                mine = Bloomc::Redis::ScalableBloomFilter.new(connect_again.call, name)
                batch.each_with_index { |key, i| i.even? ? mine << key : mine.add_all([key]) }
              end
            end.each(&:join)
            expect(pids.map { |pid| Process.wait2(pid).last.success? }).to eq([true, true])
            filter = Bloomc::Redis::ScalableBloomFilter.new(@redis, name)
            rows = layer_rows(filter)
            expect(filter.all_include?(batches.flatten)).to be(true)
            expect(filter.size).to eq(3000)
            expect(rows[0...-1].map { |_, _, capacity, count| count == capacity }.uniq).to eq([true]) # none over, none left short
            expect(rows.last[3]).to be <= rows.last[2]
            expect(rows.sum { |row| row[3] }).to be_between(2950, 3000) # keys new to it: all but a few false positives
            expect(rows.map { |row| row[0..2] }).to eq(Bloomc::ScalableBloomFilter.new(**params).then { |l| (0...rows.size).map { |i| l.send(:layer_shape, i).rotate } }.map { |m, k, capacity| [m, k, capacity] })
          end

          it "stops at max_capacity with CapacityError, and refuses what it does not support yet" do
            filter = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params, max_capacity: 250)
            filter.add_all(keys.first(240))
            expect { filter.add_all(keys[240, 30]) }.to raise_error(Bloomc::CapacityError, /max_capacity \(250\)/)
            expect(filter.layers.sum(&:count)).to be <= 250
            expect(filter.include?(keys[0])).to be(true)
            expect(filter.add?(keys[0])).to be_nil # a key held is no new key
            %i[to_local dump].each { |op| expect { filter.public_send(op) }.to raise_error(Bloomc::UnsupportedError) }
            expect { filter & Bloomc::Redis::ScalableBloomFilter.new(@redis, name) }.to raise_error(Bloomc::UnsupportedError, /no exact intersection/)
            expect { filter.intersection(filter, into: "#{name}-common") }.to raise_error(Bloomc::UnsupportedError, /no exact intersection/)
            expect { Bloomc::Redis::ScalableBloomFilter.new(@redis, "#{name}-common") }.to raise_error(ArgumentError, /no filter named/)
          end

          # Issue 32: a layer count of 0 or -1 hid every layer (include? of a
          # key added said false), one of 100,000,000 had the client allocate
          # that many layers' arguments, and layers and m raised TypeError or
          # NoMethodError.
          it "raises FormatError, never a false negative or an allocation, for a layer count, a count or bits it did not write" do
            filter = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params).add_all(keys.first(250))
            layers_key = "bloomc:{#{name}:0}:layers"
            stored = @redis.get(layers_key)
            %w[0 -1 100000000 1.5 two 100].each do |count|
              @redis.set(layers_key, count)
              fresh = Bloomc::Redis::ScalableBloomFilter.new(@redis, name) # knows of no layers yet
              { "include?" => -> { fresh.include?(keys[0]) }, "include_all" => -> { fresh.include_all(keys.first(3)) },
                "add" => -> { fresh.add("new") }, "add_new" => -> { fresh.add_new(%w[new]) }, "layers" => -> { fresh.layers },
                "m" => -> { fresh.m }, "layer_count" => -> { fresh.layer_count }, "fill_ratio" => -> { fresh.fill_ratio },
                "merge!" => -> { fresh.merge!(fresh) } }.each do |what, call|
                expected = count == "two" ? Bloomc::Error : Bloomc::FormatError # the write scripts' own check of a counter: CommandError
                expect(&call).to raise_error(expected, /layers/), "#{what} with a layer count of #{count}"
              end
            end
            @redis.set(layers_key, stored)
            @redis.set("bloomc:{#{name}:0}:layer:0:count", "many")
            expect { filter.layers }.to raise_error(Bloomc::FormatError, /layer:0:count \("many"/)
            @redis.set("bloomc:{#{name}:0}:layer:0:count", "100")
            @redis.set("bloomc:{#{name}:0}:layer:#{stored.to_i - 1}:count", "-3")
            expect { filter.add("another new key") }.to raise_error(Bloomc::FormatError, /count holds no count/)
            expect { filter.layers }.to raise_error(Bloomc::FormatError, /count \("-3"/)
            @redis.setrange("bloomc:{#{name}:0}:layer:0", 100_000, "\xff" * 1000) # 8,000 bits beyond the layer's m
            expect { filter.fill_ratio }.to raise_error(Bloomc::FormatError, /layer:0 has \d+ bits set, beyond the layer's/)
            filter.clear # every layer the parameters allow, whatever the count said
            expect(filter.layer_count).to eq(1)
            expect(filter.layers.map(&:count)).to eq([0])
            meta = "bloomc:{#{name}}:meta"
            { "m" => "12345", "k" => "1", "hash" => "1", "seed" => "0x7" }.each do |field, value|
              was = @redis.hget(meta, field)
              @redis.hset(meta, field, value)
              expect { Bloomc::Redis::ScalableBloomFilter.new(@redis, name) }.to raise_error(Bloomc::FormatError, /unusable parameters \(/), field
              @redis.hset(meta, field, was)
            end
          end

          describe "set operations" do
            # Filter i beside the example's own, in its hash slot on a cluster.
            define_method(:twin_name) do |i|
              (@twins ||= {})[i] ||= where.include?("Cluster") ? RedisSpecSupport.same_slot_name(name, i) : "#{name}-#{i}"
            end

            after { @twins&.each_value { |twin| Bloomc::Redis::ScalableBloomFilter.new(@redis, twin).destroy rescue ArgumentError } } # rubocop:disable Style/RescueModifier

            def rows_and_bits(filter) = filter.layers.map { |layer| [layer.m, layer.k, layer.capacity, layer.count, (layer.fill_ratio * layer.m).round] }

            # Two filters, in Redis and locally, of 4 layers and 2.
            def pair(params, keys)
              a = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params).add_all(keys.first(700))
              b = Bloomc::Redis::ScalableBloomFilter.new(@redis, twin_name(1), **params).add_all(keys[600, 250])
              [a, b, Bloomc::ScalableBloomFilter.new(**params).add_all(keys.first(700)), Bloomc::ScalableBloomFilter.new(**params).add_all(keys[600, 250])]
            end

            it "unites as the local scalable filter does, both ways, layer for layer: union, merge! and |" do
              a, b, local_a, local_b = pair(params, keys)
              expect([a.layer_count, b.layer_count]).to eq([local_a.layers.size, local_b.layers.size])
              expect(a.layer_count).to be > b.layer_count
              [[a, b, local_a | local_b, twin_name(2)], [b, a, local_b | local_a, twin_name(3)]].each do |first, second, local, into|
                both = first.union(second, into: into)
                expect([both.class, both.name, both.layer_count, both.size]).to eq([Bloomc::Redis::ScalableBloomFilter, into, local.layers.size, local.size])
                expect(rows_and_bits(both)).to eq(rows_and_bits(local))
                expect(both.all_include?(keys.first(850))).to be(true)
                expect(both.include_all(probes)).to eq(local.include_all(probes))
                expect(both.estimated_count).to be_within(1e-6).of(local.estimated_count)
              end
              expect([a.size, b.size, rows_and_bits(a)]).to eq([700, 250, rows_and_bits(local_a)]) # the operands stay as they were
              if where.include?("Cluster")
                expect { a | b }.to raise_error(Bloomc::UnsupportedError, /names its result #{Regexp.escape("#{a.name}|#{b.name}".inspect)}.*merge!/)
              else
                united = (@twins[:united] = "#{a.name}|#{b.name}")
                expect((a | b).then { |f| [f.name, rows_and_bits(f)] }).to eq([united, rows_and_bits(local_a | local_b)])
                expect(rows_and_bits(a | b)).to eq(rows_and_bits(local_a | local_b)) # replaced, not added to
              end
              expect(b.merge!(a)).to equal(b) # b takes a's layers it lacked
              expect([rows_and_bits(b), b.size]).to eq([rows_and_bits(local_b.merge!(local_a)), local_b.size])
              expect(a.union(b, into: a.name)).to equal(a)
              expect([rows_and_bits(a), a.size]).to eq([rows_and_bits(local_a.merge!(local_b)), local_a.size])
              a << "after-the-union" # the add script goes on from the layers the union left
              local_a << "after-the-union"
              expect(rows_and_bits(a)).to eq(rows_and_bits(local_a))
            end

            it "refuses filters of other parameters, naming the first that differs, and changes nothing" do
              a, b, = pair(params, keys)
              before = [rows_and_bits(a), rows_and_bits(b), a.size, b.size]
              { error_rate: 0.02, initial_capacity: 200, growth: 3, tightening: 0.5, even_layers: 4, max_capacity: 5000, seed: 8 }.each_with_index do |(param, value), i|
                other = Bloomc::Redis::ScalableBloomFilter.new(@redis, twin_name(10 + i), **params, param => value)
                shown = param == :max_capacity ? "none" : params.fetch(param, Bloomc::ScalableBloomFilter.new(error_rate: 0.01).public_send(param))
                expect { a.merge!(other) }.to raise_error(ArgumentError, /different #{param} \(#{shown} and #{value}(\.0)?\)/)
                expect { other.union(a, into: twin_name(2)) }.to raise_error(ArgumentError, /different #{param}/)
                expect { a | other }.to raise_error(ArgumentError, /different #{param}/)
              end
              expect { a.merge!(Bloomc::ScalableBloomFilter.new(**params)) }.to raise_error(ArgumentError, /cannot combine/)
              expect { a.merge!(Bloomc::Redis::BloomFilter.new(@redis, twin_name(4), m: 100, k: 3)) }.to raise_error(ArgumentError, /cannot combine/)
              Bloomc::Redis::BloomFilter.new(@redis, twin_name(4)).destroy
              expect { Bloomc::Redis::ScalableBloomFilter.new(@redis, twin_name(2)) }.to raise_error(ArgumentError, /no filter named/)
              expect([rows_and_bits(a), rows_and_bits(b), a.size, b.size]).to eq(before)
              expect { a.freeze.merge!(b) }.to raise_error(FrozenError)
            end

            if where.include?("Cluster") # slots only on a cluster
              it "refuses, writing nothing, filters whose hash slots differ on a cluster" do
                a = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params).add_all(keys.first(300))
                far = (@twins ||= {})[:far] = "#{name}-far"
                expect(RedisSpecSupport.key_slot("#{far}:0")).not_to eq(RedisSpecSupport.key_slot("#{name}:0")) # the case at hand
                b = Bloomc::Redis::ScalableBloomFilter.new(@redis, far, **params).add_all(keys.drop(300).first(300))
                expect { a.merge!(b) }.to raise_error(Bloomc::UnsupportedError, /different hash slots.*keep the keys in one filter/)
                expect([a.size, a.include_all(keys.drop(300).first(300)).count(true)]).to eq([300, Bloomc::ScalableBloomFilter.new(**params).add_all(keys.first(300)).count_included(keys.drop(300).first(300))])
              end
            end

            it "loses no key to writers in threads adding while merge! runs, and counts every add" do
              connect_again = where.include?("Cluster") ? -> { RedisSpecSupport.cluster_client } : -> { RedisSpecSupport.client }
              a = Bloomc::Redis::ScalableBloomFilter.new(@redis, name, **params)
              sources = Array.new(4) do |i|
                Bloomc::Redis::ScalableBloomFilter.new(@redis, twin_name(i + 1), **params).add_all(Array.new(300) { |j| "source-#{i}-#{j}" })
              end
              batches = Array.new(4) { |w| Array.new(600) { |i| "writer-#{w}-#{i}" } }
              started = Queue.new
              writers = batches.map do |batch|
                Thread.new do
                  mine = Bloomc::Redis::ScalableBloomFilter.new(connect_again.call, name)
                  started << true
                  batch.each_slice(10) { |slice| mine.add_all(slice) }
                end
              end
              4.times { started.pop }
              sources.each { |source| 3.times { a.merge!(source) } } # a source merged again adds nothing new but its size
              writers.each(&:join)
              expect(a.all_include?(batches.flatten)).to be(true)
              expect(sources.map { |source| a.all_include?(Array.new(300) { |j| "source-#{sources.index(source)}-#{j}" }) }).to eq([true] * 4)
              expect(a.size).to eq(2400 + (4 * 3 * 300))
              expect(a.layer_count).to be > sources.map(&:layer_count).max # the writers' adds started layers meanwhile
            end
          end
        end

        describe Bloomc::Redis::CountingBloomFilter do
          after { Bloomc::Redis::CountingBloomFilter.new(@redis, name).destroy rescue ArgumentError } # rubocop:disable Style/RescueModifier

          it "counts, deletes and saturates as the local counting filter does" do
            filter = Bloomc::Redis::CountingBloomFilter.new(@redis, name, m: 500, k: 3, width: 2)
            local = Bloomc::CountingBloomFilter.new(500, 3, width: 2)
            ops = [%w[add a]] * 5 + [%w[add b]] * 2 + [%w[delete a], %w[delete b], %w[delete c], %w[add d]]
            ops.each do |op, key|
              next expect(filter.delete(key)).to eq(local.delete(key)) if op == "delete"

              local.add(key)
              expect(filter.add(key)).to equal(filter) # self, as the local counting filter
            end
            %w[a b c d].each { |key| expect(filter.count(key)).to eq(local.count(key)) }
            expect(filter.count("a")).to eq(3) # saturated at 2**2 - 1, and never decremented from there
            expect(filter.to_local).to eq(local)
            expect(filter.size).to eq(local.size)
          end

          it "finds a key new again once deletes take its count to 0, and new while a saturated cell stays" do
            filter = Bloomc::Redis::CountingBloomFilter.new(@redis, name, m: 5000, k: 3, width: 2)
            expect([filter.add?("a"), filter.add?("a")]).to eq([filter, nil])
            2.times { filter.delete("a") }
            expect([filter.count("a"), filter.add?("a")]).to eq([0, filter])
            expect(filter.add_new(%w[a b b])).to eq(%w[b])
            4.times { filter << "b" } # its cells saturate at 3 and stay
            5.times { filter.delete("b") }
            expect([filter.count("b"), filter.add?("b")]).to eq([3, nil])
            bit = Bloomc::Redis::CountingBloomFilter.new(@redis, "#{name}-bit", m: 5000, k: 3, width: 1) # a cell of 1 bit is saturated at 1
            local = Bloomc::CountingBloomFilter.new(5000, 3, width: 1)
            answers = %w[a a b a].map { |key| [bit.add?(key), local.include?(key).tap { local << key }] }
            expect(answers.map { |answer, was| [answer.nil?, was] }).to eq([[false, false], [true, true], [false, false], [true, true]])
            expect([bit.delete("a"), bit.count("a"), bit.add?("a")]).to eq([local.delete("a"), local.count("a"), nil])
            bit.destroy
          end
        end
      end
    end

    context "on a standalone server" do
      let(:redis) { RedisSpecSupport.client }

      def round_trips(&block) = RedisSpecSupport.sends(&block).first

      it "combines on a standalone server without redis-clustering loaded (no Redis::Cluster of its own)" do
        lib = File.expand_path("../../lib", __dir__)
        script = 'require "bloomc/redis"; r = Redis.new(url: ARGV[0]); n = ARGV[1]; ' \
                 'a = Bloomc::Redis::BloomFilter.new(r, n, m: 1000, k: 3) << "x"; b = Bloomc::Redis::BloomFilter.new(r, n + "-b", m: 1000, k: 3) << "y"; ' \
                 'c = a | b; print [defined?(RedisClient::Cluster).inspect, a.merge!(b).include?("y"), c.name, c.all_include?(%w[x y])].inspect; ' \
                 "[a, b, c].each(&:destroy)"
        out = IO.popen([RbConfig.ruby, "-I", lib, "-e", script, RedisSpecSupport.url, "no-clustering"], err: %i[child out], &:read)
        expect(out).to eq('["nil", true, "no-clustering|no-clustering-b", true]')
      end

      it "does each operation in one round trip, and a batch over several shards in one pipeline" do
        filter = Bloomc::Redis::CountingBloomFilter.new(redis, "round-trips", m: 10_000, k: 7, shards: 4)
        filter << "warm" # loads the scripts
        filter.include_all(["warm"])
        filter.count("warm")
        filter.delete("warm")
        expect(round_trips { filter << "a" }).to eq(1)
        expect(round_trips { filter.include?("a") }).to eq(1)
        expect(round_trips { filter.count("a") }).to eq(1)
        expect(round_trips { filter.delete("a") }).to eq(1)
        expect(round_trips { filter.add_all(keys) }).to eq(1)
        expect(round_trips { filter.include_all(probes) }).to eq(1)
        expect(round_trips { filter.size }).to eq(1)
        filter.destroy
      end

      it "loads a local dump and gives it back bit for bit", :slow do
        local = Bloomc::BloomFilter.new(capacity: 10_000, error_rate: 0.001, seed: 3)
        local.add_all(keys)
        remote = Bloomc::Redis::BloomFilter.from_local(redis, "dumped", local)
        bytes = local.send(:export_core)[1].byteslice(0, (local.m + 7) / 8)
        expect(redis.get("bloomc:{dumped:0}:cells").ljust(bytes.bytesize, "\0")).to eq(bytes) # the same bytes in Redis
        expect(remote.include_all(probes)).to eq(local.include_all(probes))
        expect(Bloomc.load(remote.dump)).to eq(local)
        expect(remote.to_local.size).to eq(2000)
        remote.destroy

        [1, 5, 32].each do |width| # 1: a counter of one bit is not a Bloom filter's bit
          counting = Bloomc::CountingBloomFilter.new(3001, 4, width: width)
          keys.first(300).each_with_index { |key, i| (i % 7 + 1).times { counting << key } }
          copy = Bloomc::Redis::CountingBloomFilter.from_local(redis, "dumped-c", counting)
          expect(keys.first(300).map { |key| copy.count(key) }).to eq(keys.first(300).map { |key| counting.count(key) })
          expect(copy.include_all(probes)).to eq(counting.include_all(probes))
          expect(Bloomc.load(copy.dump)).to eq(counting)
          built = Bloomc::Redis::CountingBloomFilter.new(redis, "built-c", m: 3001, k: 4, width: width)
          keys.first(300).each_with_index { |key, i| (i % 7 + 1).times { built << key } }
          expect(built.to_local).to eq(counting)
          [copy, built].each(&:destroy)
        end
        expect(redis.keys("*:loading")).to be_empty # loads write beside the cells, then rename

        # A day's ttl: the server's clock does not move to another period
        # during the spec (each key keeps its age, the slots their numbers).
        continuous = Bloomc::ContinuousBloomFilter.new(50_000, 5, 86_400, seed: 9)
        keys.each_slice(500).with_index do |slice, i|
          continuous.inc_time_slot if i.positive? # slices 3 ticks old (the first) to 0
          continuous.add_all(slice)
        end
        moved = Bloomc::Redis::ContinuousBloomFilter.from_local(redis, "dumped-t", continuous)
        expect(moved.include_all(keys)).to eq(continuous.include_all(keys))
        expect(moved.include_all(keys).count(true)).to eq(1500)
        expect(moved.include_all(probes)).to eq(continuous.include_all(probes))
        # Back at the same slot, each copied key at most one tick younger
        # (from_local stores a bucket a period newer than its age): the keys
        # added 1 and 0 ticks ago outlive two more ticks there, here only
        # the newest.
        back = moved.to_local
        expect(back.send(:current_slot)).to eq(continuous.send(:current_slot))
        expect(back.include_all(keys)).to eq(continuous.include_all(keys))
        expect(Bloomc.load(moved.dump)).to eq(back)
        2.times { [back, continuous].each(&:inc_time_slot) }
        expect([back.count_included(keys), continuous.count_included(keys)]).to eq([1000, 500])
        moved.destroy
      end

      it "carries a local filter's size into Redis, the keys new to it as far as its fill tells, and limits it has" do
        local = Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01)
        local.add_all(keys.first(900) * 2)
        copy = Bloomc::Redis::BloomFilter.from_local(redis, "carried", local)
        expect([copy.size, copy.capacity, copy.error_rate, copy.over_capacity?]).to eq([1800, 1000, 0.01, false])
        expect(redis.get("bloomc:{carried:0}:distinct")).to eq("900") # a sized local filter counts its new keys exactly
        back = copy.to_local
        expect([back.capacity, back.error_rate, back.over_capacity?]).to eq([1000, 0.01, false])
        expect(back.add_all(keys.first(101)).over_capacity?).to be(false) # the count came back with it: 900, not 0 or 1800
        expect(back.add_all(keys.drop(900).first(150)).over_capacity?).to be(true) # a few of them may be false positives, not new
        copy.destroy
        unsized = Bloomc::BloomFilter.new(9586, 7).add_all(keys.first(900) * 2) # built from m and k: no count kept through a v1 file
        copy = Bloomc::Redis::BloomFilter.from_local(redis, "carried", unsized)
        expect([copy.size, copy.capacity, copy.to_local.capacity]).to eq([1800, nil, nil])
        expect(redis.get("bloomc:{carried:0}:distinct").to_i).to be_within(27).of(900) # 3%, from the fill; at most the size
        copy.destroy
        tiny = Bloomc::CountingBloomFilter.new(1000, 3).add_all(%w[a b])
        expect(redis.get("bloomc:{carried:0}:distinct")).to be_nil
        copy = Bloomc::Redis::CountingBloomFilter.from_local(redis, "carried", tiny)
        expect([copy.size, redis.get("bloomc:{carried:0}:distinct")]).to eq([2, "2"])
        copy.destroy
        # A local filter that knows its capacity and error rate passes them on.
        { Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01) => Bloomc::Redis::BloomFilter,
          Bloomc::CountingBloomFilter.new(capacity: 1000, error_rate: 0.01) => Bloomc::Redis::CountingBloomFilter,
          Bloomc::ContinuousBloomFilter.new(capacity: 1000, error_rate: 0.01, ttl: 86_400) => Bloomc::Redis::ContinuousBloomFilter }.each do |limited, klass|
          limited.add_all(keys.first(1100))
          copy = klass.from_local(redis, "carried", limited)
          expect([copy.capacity, copy.error_rate, copy.over_capacity?]).to eq([1000, 0.01, true])
          ttl = klass == Bloomc::Redis::ContinuousBloomFilter ? { ttl: 86_400 } : {}
          expect(klass.new(redis, "carried", capacity: 1000, error_rate: 0.01, **ttl).all_include?(keys.first(1100))).to be(true)
          copy.destroy
        end
      end

      # A key added just before a local tick and copied just after is a tick
      # old; if the server's clock is further into its period than the local
      # one, storing it at that age would end it early.
      it "keeps a key copied by from_local for at least ttl after its add, whatever the two clocks' phases" do
        period = 0.2
        server_ms = -> { redis.time.then { |s, us| s * 1000 + us / 1000 } }
        sleep(0.001) until (server_ms.call % 200).between?(100, 110) # the server half a period in
        local = Bloomc::ContinuousBloomFilter.new(10_000, 5, 2 * period).start_timer
        epoch = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) - epoch }
        sleep(period - 0.01 - clock.call)
        local << "k"
        added = clock.call
        skip "woke too late to add before the local tick" if added > period - 0.002
        sleep([period + 0.03 - clock.call, 0].max)
        moved = Bloomc::Redis::ContinuousBloomFilter.from_local(redis, "phases", local)
        local.stop_timer
        found = []
        while clock.call < added + 0.37
          found << moved.include?("k")
          sleep(0.01)
        end
        expect(found.size).to be >= 5
        expect(found.uniq).to eq([true])
        moved.destroy
      end

      it "keeps a continuous filter's keys for at least ttl and drops them by 1.5 ttl, on the server's clock" do
        filter = Bloomc::Redis::ContinuousBloomFilter.new(redis, "ttl", m: 10_000, k: 5, ttl: 0.4)
        clock = -> { Process.clock_gettime(Process::CLOCK_MONOTONIC) }
        started = clock.call
        filter.add_all(%w[a b c])
        added = clock.call
        # Each sample: the least and the most time that can have passed between
        # the add and the lookups (a slow machine widens the gap, not the bounds).
        seen = []
        while clock.call - started < 1.0
          before = clock.call
          all = filter.all_include?(%w[a b c])
          any = filter.any_include?(%w[a b c])
          seen << [before - added, clock.call - started, all, any]
          sleep(0.02)
        end
        within = seen.select { |_, most, _, _| most < 0.38 }
        after = seen.select { |least, _, _, _| least > 0.61 }
        expect([within.size, after.size]).to all(be >= 3)
        expect(within.map { |_, _, all, _| all }.uniq).to eq([true])
        expect(after.map { |_, _, _, any| any }.uniq).to eq([false])
        expect(filter.ttl).to eq(0.4)
        filter.destroy
      end

      # A key in both filters, at different ages: the union finds it as long
      # as the younger copy lives, the intersection as long as the older one
      # (cumulative ORs, AND, XOR in continuous_combine).
      it "gives a key a continuous union keeps its younger age and an intersection its older one" do
        shape = { m: 10_000, k: 5, ttl: 2 } # a period of 1 s
        older = Bloomc::Redis::ContinuousBloomFilter.new(redis, "ages-older", **shape)
        younger = Bloomc::Redis::ContinuousBloomFilter.new(redis, "ages-younger", **shape)
        generations = ->(filter) { redis.keys("bloomc:{#{filter.name}:0}:gen:*").map { |key| Integer(key[/\d+\z/]) }.sort }
        now = -> { redis.time.then { |s, us| (s * 1000 + us / 1000) / 1000 } }
        older.add_all(%w[both only-older])
        sleep(0.02) until now.call > generations.call(older).max
        younger.add_all(%w[both only-younger])
        old_gen, young_gen = [older, younger].map { |filter| generations.call(filter).max }
        expect(young_gen).to be > old_gen

        union = older.union(younger, into: "ages-union")
        common = older.intersection(younger, into: "ages-common")
        expect(generations.call(union)).to eq([old_gen, young_gen])
        expect(union.all_include?(%w[both only-older only-younger])).to be(true)
        expect(redis.bitcount("bloomc:{ages-union:0}:gen:#{young_gen}")).to eq(redis.bitcount("bloomc:{ages-younger:0}:gen:#{young_gen}"))
        expect(generations.call(common)).to eq([old_gen]) # the older age only
        expect(redis.bitcount("bloomc:{ages-common:0}:gen:#{old_gen}")).to be_between(1, 5) # the cells of "both"
        expect(common.include_all(%w[both only-older only-younger])).to eq([true, false, false])
        expect([union.size, common.size]).to eq([4, 2])
        [older, younger, union, common].each(&:destroy)
      end

      it "brings back no key after the clock has gone round many periods" do
        filter = Bloomc::Redis::ContinuousBloomFilter.new(redis, "zombies", m: 2000, k: 3, ttl: 0.02)
        filter.add_all(keys.first(500))
        found = []
        40.times do # 40 periods of 10 ms: a 4-bit slot ring would have wrapped twice
          found << filter.count_included(keys.first(500))
          sleep(0.01)
        end
        expect(found.drop(4).max).to eq(0)
        filter.destroy
      end

      it "loses no key with 8 writers, threads and processes, adding at once" do
        filter = Bloomc::Redis::BloomFilter.new(redis, "writers", capacity: 10_000, error_rate: 0.001)
        slices = keys.each_slice(250).to_a
        pids = slices.first(4).map do |slice|
          fork do
            mine = Bloomc::Redis::BloomFilter.new(RedisSpecSupport.client, "writers")
            slice.each_slice(50).with_index { |part, i| i.even? ? mine.add_all(part) : part.each { |key| mine << key } }
            exit!(0)
          end
        end
        threads = slices.drop(4).map do |slice|
          Thread.new do
            mine = Bloomc::Redis::BloomFilter.new(RedisSpecSupport.client, "writers")
            slice.each_slice(50).with_index { |part, i| i.even? ? mine.add_all(part) : part.each { |key| mine << key } }
          end
        end
        threads.each(&:join)
        statuses = pids.map { |pid| Process.wait2(pid)[1].exitstatus }
        expect(statuses).to eq([0] * 4)
        expect(filter.all_include?(keys)).to be(true)
        expect(filter.size).to eq(2000)
        filter.destroy
      end

      # bloomc is changing how capacity: and error_rate: pick m and k
      # (Bloomc.sizing_arguments); BloomHelper.find_m_k keeps the old numbers,
      # which a filter an earlier bloomc created in Redis has, without a
      # capacity or error_rate in its meta. Here the new sizing is made to
      # differ, whatever the two give on this branch.
      it "reopens a filter by capacity: and error_rate: sized either way, and compares stored limits like the other parameters" do
        resized = lambda do |original, m, k, capacity, error_rate|
          capacity ? original.call(m, k, capacity, error_rate).then { |new_m, new_k| [new_m + 8, new_k + 1] } : original.call(m, k, capacity, error_rate)
        end
        old_m, old_k = Bloomc::BloomHelper.find_m_k(1000, 0.01)
        new_m, new_k = Bloomc.sizing_arguments(nil, nil, 1000, 0.01)
        kinds.each_key do |klass|
          shape = { capacity: 1000, error_rate: 0.01, **extra.fetch(klass, {}) }
          # As an earlier bloomc wrote it from capacity: 1000, error_rate: 0.01.
          klass.new(redis, "legacy", m: old_m, k: old_k, **extra.fetch(klass, {}))
          expect(redis.hkeys("bloomc:{legacy}:meta")).not_to include("capacity", "error_rate")
          allow(Bloomc).to receive(:sizing_arguments).and_wrap_original(&resized)
          reopened = klass.new(redis, "legacy", **shape)
          expect([reopened.m, reopened.k, reopened.capacity, reopened.error_rate]).to eq([old_m, old_k, nil, nil])
          expect(reopened.over_capacity?).to be(false) # no capacity known
          fresh = klass.new(redis, "resized", **shape) # created with the new numbers, and its limits
          expect([fresh.m, fresh.k, fresh.capacity, fresh.error_rate]).to eq([new_m + 8, new_k + 1, 1000, 0.01])
          expect(klass.new(redis, "resized", **shape).m).to eq(new_m + 8)
          expect(klass.new(redis, "resized", m: new_m + 8, k: new_k + 1, **extra.fetch(klass, {})).capacity).to eq(1000) # m: and k: keep them
          expect { klass.new(redis, "resized", **shape, capacity: 1001) }.to raise_error(ArgumentError, /different m/)
          expect { klass.new(redis, "legacy", **shape, error_rate: 0.02) }.to raise_error(ArgumentError, /different m/)
          redis.hset("bloomc:{resized}:meta", "capacity", "999") # as if another capacity gave the same m and k
          expect { klass.new(redis, "resized", **shape) }.to raise_error(ArgumentError, /different capacity \(999, asked for 1000\)/)
          redis.hset("bloomc:{resized}:meta", "capacity", "1000", "error_rate", "0.02")
          expect { klass.new(redis, "resized", **shape) }.to raise_error(ArgumentError, /different error_rate \(0.02, asked for 0.01\)/)
          expect(klass.new(redis, "resized").error_rate).to eq(0.02)
          redis.hset("bloomc:{legacy}:meta", "m", (old_m + 1).to_s) # neither sizing
          expect { klass.new(redis, "legacy", **shape) }.to raise_error(ArgumentError, /different m/)
          %w[legacy resized].each { |name| klass.new(redis, name).destroy }
        end
        # Limits kept as given: a whole capacity as an Integer, the rate as a Float.
        [[1000.0, Rational(1, 100), 1000, 0.01], [2500.5, 0.05, 2500.5, 0.05], [10**12, BigDecimal("0.001"), 10**12, 0.001]].each do |capacity, rate, kept, kept_rate|
          filter = Bloomc::Redis::BloomFilter.new(redis, "limits", capacity: capacity, error_rate: rate, shards: 8192)
          expect([filter.capacity, filter.error_rate]).to eq([kept, kept_rate])
          expect(Bloomc::Redis::BloomFilter.new(redis, "limits", capacity: kept, error_rate: kept_rate, shards: 8192).capacity).to eq(kept)
          filter.destroy
        end
      end

      # Before :murmur3_mixed became the default, capacity: and error_rate:
      # sized by the formula and hashed with :murmur3: such a filter opens by
      # them alone, keeping its hash and its m; with hash: :murmur3_mixed it
      # is refused.
      it "reopens a filter made before :murmur3_mixed by capacity: and error_rate:, keeping its hash" do
        old_m, old_k = Bloomc::BloomHelper.send(:formula_m_k, 1000, 0.01)
        expect(old_m).not_to eq(Bloomc.sizing_arguments(nil, nil, 1000, 0.01)[0])
        [Bloomc::Redis::BloomFilter, Bloomc::Redis::ContinuousBloomFilter].each do |klass|
          klass.new(redis, "before", m: old_m, k: old_k, hash: :murmur3, **extra.fetch(klass, {})).add("kept")
          redis.hset("bloomc:{before}:meta", "capacity", "1000", "error_rate", "0.01")
          reopened = klass.new(redis, "before", capacity: 1000, error_rate: 0.01, **extra.fetch(klass, {}))
          expect([reopened.m, reopened.k, reopened.hash_function]).to eq([old_m, old_k, :murmur3])
          expect(reopened.include?("kept")).to be(true)
          expect { klass.new(redis, "before", capacity: 1000, error_rate: 0.01, hash: :murmur3_mixed, **extra.fetch(klass, {})) }
            .to raise_error(ArgumentError, /different hash/)
          fresh = klass.new(redis, "after", capacity: 1000, error_rate: 0.01, **extra.fetch(klass, {}))
          expect(fresh.hash_function).to eq(:murmur3_mixed)
          %w[before after].each { |name| klass.new(redis, name).destroy }
        end
        # a local filter made before, copied in and out, keeps its probes
        local = Bloomc::CountingBloomFilter.new(1000, 5, hash: :murmur3).add_all(%w[a b c])
        copied = Bloomc::Redis::CountingBloomFilter.from_local(redis, "copied", local)
        expect([copied.hash_function, copied.include_all(%w[a b c]), copied.to_local == local]).to eq([:murmur3, [true] * 3, true])
        copied.destroy
        old = Bloomc::Redis::ScalableBloomFilter.new(redis, "before", error_rate: 0.01, initial_capacity: 100, hash: :murmur3)
        expect(Bloomc::Redis::ScalableBloomFilter.new(redis, "before", error_rate: 0.01, initial_capacity: 100).m).to eq(old.m)
        expect(old.m).not_to eq(Bloomc::Redis::ScalableBloomFilter.new(redis, "after", error_rate: 0.01, initial_capacity: 100).m)
        %w[before after].each { |name| Bloomc::Redis::ScalableBloomFilter.new(redis, name).destroy }
      end

      it "refuses parameters in Redis it cannot use, and rounds a ttl up to whole milliseconds" do
        Bloomc::Redis::BloomFilter.new(redis, "corrupt", m: 100, k: 3)
        redis.hset("bloomc:{corrupt}:meta", "shards", "0")
        expect { Bloomc::Redis::BloomFilter.new(redis, "corrupt") }.to raise_error(Bloomc::FormatError, /unusable parameters \(shards 0\)/)
        redis.hdel("bloomc:{corrupt}:meta", "shards")
        expect { Bloomc::Redis::BloomFilter.new(redis, "corrupt") }.to raise_error(Bloomc::FormatError, /unusable/)
        redis.del("bloomc:{corrupt}:meta")
        Bloomc::Redis::BloomFilter.new(redis, "corrupt", capacity: 100, error_rate: 0.01)
        [%w[capacity 0], %w[capacity -5], %w[capacity many], %w[capacity Infinity], %w[error_rate 1.5], %w[error_rate 0], %w[error_rate x]].each do |field, value|
          redis.hset("bloomc:{corrupt}:meta", "capacity", "100", "error_rate", "0.01")
          redis.hset("bloomc:{corrupt}:meta", field, value)
          expect { Bloomc::Redis::BloomFilter.new(redis, "corrupt") }.to raise_error(Bloomc::FormatError, /unusable parameters \(#{field}/)
        end
        redis.del("bloomc:{corrupt}:meta")
        expect(Bloomc::Redis::ContinuousBloomFilter.new(redis, "odd-ttl", m: 100, k: 2, ttl: 0.0029).ttl).to eq(0.004)
        # 4.014 * 500 is 2007.0000000000002 in Floats: the ttl written is meant
        expect(Bloomc::Redis::ContinuousBloomFilter.new(redis, "even-ttl", m: 100, k: 2, ttl: 4.014).ttl).to eq(4.014)
        Bloomc::Redis::ContinuousBloomFilter.new(redis, "even-ttl").destroy
        expect(Bloomc::Redis::ContinuousBloomFilter.new(redis, "exact-ttl", m: 100, k: 2, ttl: BigDecimal("0.0031")).ttl).to eq(0.004)
        Bloomc::Redis::ContinuousBloomFilter.new(redis, "exact-ttl").destroy
        tiny = Bloomc::Redis::ContinuousBloomFilter.new(redis, "tiny-ttl", m: 100, k: 2, ttl: 1e-12) # a period of 1 ms at least
        expect(tiny.ttl).to eq(0.002)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        found = (tiny << "a").include?("a")
        # found for 2 ms at least: an add answered later (fsync of the AOF on a busy disk) may have expired
        expect(found).to be(true) if Process.clock_gettime(Process::CLOCK_MONOTONIC) - started < 0.002
        tiny.destroy
        [Float::NAN, Float::INFINITY, 0, -1].each do |ttl|
          expect { Bloomc::Redis::ContinuousBloomFilter.new(redis, "bad-ttl", m: 100, k: 2, ttl: ttl) }.to raise_error(ArgumentError, /ttl must be/)
        end
        Bloomc::Redis::ContinuousBloomFilter.new(redis, "odd-ttl").destroy
      end

      # Issue 32: counts read back with to_i took "many" for 0 and a negative
      # count as it was; a cells string longer than the filter gave a fill
      # above 1.
      it "raises FormatError for a count, a slot or a cells string it did not write" do
        bloom = Bloomc::Redis::BloomFilter.new(redis, "tampered", capacity: 100, error_rate: 0.01)
        bloom.add_all(%w[a b c])
        %w[many -3 1.5].each do |count|
          redis.set("bloomc:{tampered:0}:count", count)
          expect { bloom.size }.to raise_error(Bloomc::FormatError, /tampered:0\}:count \(#{Regexp.escape(count.inspect)}: not a whole number/)
          redis.set("bloomc:{tampered:0}:distinct", count)
          expect { bloom.over_capacity? }.to raise_error(Bloomc::FormatError, /distinct/)
        end
        redis.set("bloomc:{tampered:0}:count", "3")
        redis.set("bloomc:{tampered:0}:distinct", "3")
        redis.setrange("bloomc:{tampered:0}:cells", 10_000, "\xff" * 200) # 1,600 bits, where m is 959
        expect { bloom.fill_ratio }.to raise_error(Bloomc::FormatError, /cells has \d+ cells set, beyond the \d+ of a shard/)
        bloom.destroy
        continuous = Bloomc::Redis::ContinuousBloomFilter.new(redis, "tampered-slot", m: 100, k: 2, ttl: 60)
        continuous << "a"
        redis.set("bloomc:{tampered-slot:0}:slot", "15")
        expect { continuous.to_local }.to raise_error(Bloomc::FormatError, /slot \("15": not a whole number in 0..14\)/)
        continuous.destroy
      end

      it "raises ConnectionError, never a false answer, when Redis cannot be reached" do
        port = RedisServers.free_port
        gone = Redis.new(url: "redis://127.0.0.1:#{port}", reconnect_attempts: 0, timeout: 0.5)
        expect { Bloomc::Redis::BloomFilter.new(gone, "x", m: 10, k: 2) }
          .to raise_error(Bloomc::Redis::ConnectionError, /unreachable for filter "x"/)
      end
    end

    # Servers of this context's own, stopped (SIGSTOP) for 1.2 s while writes
    # are under way from clients that give up after 0.3 s and may reconnect
    # twice: a client that sent a write again after its timeout would have it
    # run up to three times (a cluster client up to twelve) once the server
    # goes on. Each write runs on a filter of its own, in a thread of its own,
    # all during one stop; a twin filter of the same shape, prepared alike,
    # does the same write once on a client that is never stopped. Afterwards
    # each shard of each filter must hold what it held before (and then the
    # caller got ConnectionError) or what its twin's shard holds.
    context "on servers stopped (SIGSTOP) while writes are under way", :slow do
      slow = { timeout: 0.3, reconnect_attempts: 2 }

      # The client forms (RedisSpecSupport.client_forms) the writes go
      # through: redis-rb's (the first) for every kind, and each other path
      # to redis-client's call_once (a RedisClient as it is, through a pool,
      # redis-client's own pool, a RedisClient::Cluster) for the counting
      # filter, whose delete shows a write run twice most plainly.
      forms = { standalone: ["a Redis", "a RedisClient", "a ConnectionPool of Redis", "a ConnectionPool of RedisClient", "a RedisClient::Pooled"],
                cluster: ["a Redis::Cluster", "a RedisClient::Cluster", "a ConnectionPool of RedisClient::Cluster"] }

      before(:all) do
        @dir = Dir.mktmpdir
        @standalone = RedisServers.spawn(File.join(@dir, "standalone"))
        @cluster = RedisServers.cluster(File.join(@dir, "cluster"))
      end

      after(:all) do
        Dir.glob(File.join(@dir, "**", "redis.pid")).each { |pid| RedisServers.stop_in(File.dirname(pid)) }
        FileUtils.rm_rf(@dir)
      end

      # Writes of every kind: each is given a filter where "p" was added three
      # times, and returns what the write returned.
      writes = {
        "add of a new key" => ->(f) { f.add("a") },
        "add? of a new key" => ->(f) { f.add?("a") },
        "add? of a present key" => ->(f) { f.add?("p") },
        "add_all" => ->(f) { f.add_all(%w[a b c d e f g h]) },
        "add_new" => ->(f) { f.add_new(%w[a b p a c d e f]) }
      }
      counting_writes = { "delete" => ->(f) { f.delete("p") } }

      # What a shard of filter +name+ holds: its cells (a continuous filter's
      # live generations ORed, so that a period boundary between a filter's
      # write and its twin's does not matter) and its counters.
      def shard_state(redis, filter, name, shard)
        prefix = "bloomc:{#{name}:#{shard}}"
        cells = if filter.is_a?(Bloomc::Redis::ContinuousBloomFilter)
                  period = (filter.ttl * 500).round
                  gen = redis.time.then { |s, us| s * 1000 + us / 1000 } / period
                  ((gen - 3)..(gen + 1)).map { |g| (redis.get("#{prefix}:gen:#{g}") || "").b.bytes }
                                        .reduce([]) { |a, b| Array.new([a.size, b.size].max) { |i| (a[i] || 0) | (b[i] || 0) } }
                else
                  (redis.get("#{prefix}:cells") || "").b.bytes
                end
        [cells.pack("C*").sub(/\0+\z/, ""), redis.get("#{prefix}:count").to_i, redis.get("#{prefix}:distinct").to_i]
      end

      def connect(topology, form = nil, **options)
        if form
          make = RedisSpecSupport.client_forms.fetch(form).last
          make.call(topology == :standalone ? "redis://127.0.0.1:#{@standalone}" : @cluster.map { |node| "redis://#{node}" }, **options)
        elsif topology == :standalone
          Redis.new(url: "redis://127.0.0.1:#{@standalone}", **options)
        else
          Redis::Cluster.new(nodes: @cluster.map { |node| "redis://#{node}" }, **options)
        end
      end

      def pids(topology)
        return [RedisServers.pid_in(File.join(@dir, "standalone"))] if topology == :standalone

        Array.new(3) { |i| RedisServers.pid_in(File.join(@dir, "cluster", "cluster-#{i}")) }
      end

      # The writes whose repeat the state would not show (a second clear, a
      # filter's parameters created twice), counted as the client sends
      # them: once, where a read is sent again (reconnect_attempts: 2; a
      # cluster client's router also tries the node again). One shard: a
      # cluster client sends a pipeline to each node involved.
      { "a standalone server" => :standalone, "a Redis Cluster" => :cluster }.each do |where, topology|
        forms.fetch(topology).each do |form|
          it "sends every other write once through #{form} on #{where} (a new filter's parameters, clear, destroy, from_local), and a read again" do
            fast = connect(topology)
            shape = { m: 1000, k: 3 }
            local = Bloomc::BloomFilter.new(1000, 3).add_all(%w[a b])
            Bloomc::Redis::BloomFilter.new(fast, "warm", **shape).add("a").include?("a") # scripts loaded
            Bloomc::Redis::ContinuousBloomFilter.new(fast, "warm-c", **shape, ttl: 60).clear
            # Each is given a slow client of its own, opens what it needs and
            # returns the write to make while the servers are stopped.
            ops = {
              "a new filter's parameters" => ->(redis) { -> { Bloomc::Redis::BloomFilter.new(redis, "fresh", **shape) } },
              "clear" => ->(redis) { Bloomc::Redis::BloomFilter.new(redis, "cleared", **shape).then { |f| -> { f.clear } } },
              "a continuous clear" => ->(redis) { Bloomc::Redis::ContinuousBloomFilter.new(redis, "cleared-c", **shape, ttl: 60).then { |f| -> { f.clear } } },
              "destroy" => ->(redis) { Bloomc::Redis::BloomFilter.new(redis, "doomed", **shape).then { |f| -> { f.destroy } } },
              "from_local" => ->(redis) { -> { Bloomc::Redis::BloomFilter.from_local(redis, "copied", local) } },
              "include? (a read)" => ->(redis) { Bloomc::Redis::BloomFilter.new(redis, "warm").then { |f| -> { f.include?("a") } } }
            }.transform_values { |op| op.call(connect(topology, form, **slow).tap { |client| RedisSpecSupport.ping(client) }) } # connected
            threads = nil
            RedisServers.stopped(pids(topology), 1.2) do
              threads = ops.map { |what, op| Thread.new { [what, *RedisSpecSupport.sends(&op)] } }
              sleep(0.05)
            end
            aggregate_failures do
              threads.map(&:value).each do |what, sent, error|
                if what.start_with?("include?")
                  expect(sent).to be > 1, "#{what}: sent #{sent} times"
                else
                  expect([sent, error.class]).to eq([1, Bloomc::Redis::ConnectionError]), "#{what}: sent #{sent} times, #{error.inspect}"
                end
              end
            end
          end
        end
      end

      { "a standalone server" => :standalone, "a Redis Cluster" => :cluster }.each do |where, topology|
        forms.fetch(topology).product(kinds.keys).each do |form, klass|
          next unless form == forms.fetch(topology).first || klass == Bloomc::Redis::CountingBloomFilter

          it "runs each write of a #{klass.name.split('::').last} through #{form} on #{where} at most once, raising ConnectionError when it did not run" do
            shape = { m: 1000, k: 3, shards: 3, **extra.fetch(klass, {}) }
            shape[:ttl] = 3600 if klass == Bloomc::Redis::ContinuousBloomFilter
            fast = connect(topology)
            ops = klass == Bloomc::Redis::CountingBloomFilter ? writes.merge(counting_writes) : writes
            prefix = "stall-#{klass.name.split('::').last}"

            prepared = lambda do |name, redis|
              filter = klass.new(redis, name, **shape)
              3.times { filter << "p" }
              filter
            end
            # Every script loaded, so that no write meets NOSCRIPT during the stop.
            warm = prepared.call("#{prefix}-warm", fast)
            ops.each_value { |write| write.call(warm) }

            cases = ops.map.with_index do |(what, write), i|
              name = "#{prefix}-#{i}"
              twin = prepared.call("#{name}-twin", fast)
              twin_result = write.call(twin)
              prepared.call(name, fast)
              filter = klass.new(connect(topology, form, **slow), name) # a slow client of its own, connected
              before = Array.new(3) { |shard| shard_state(fast, filter, name, shard) }
              twin_state = Array.new(3) { |shard| shard_state(fast, twin, "#{name}-twin", shard) }
              { what: what, write: write, filter: filter, name: name, before: before, twin: twin_state,
                twin_result: twin_result.equal?(twin) ? :self : twin_result }
            end

            threads = nil
            RedisServers.stopped(pids(topology), 1.2) do
              threads = cases.map do |c|
                Thread.new do
                  result = c[:write].call(c[:filter])
                  result.equal?(c[:filter]) ? :self : result
                rescue StandardError => e # ConnectionError, or a failure the checks report
                  e
                end
              end
              sleep(0.05) # every write sent
            end
            outcomes = threads.map(&:value)
            sleep(0.3) # the commands waiting in the servers' sockets run

            aggregate_failures do
              cases.zip(outcomes).each do |c, outcome|
                after = Array.new(3) { |shard| shard_state(fast, c[:filter], c[:name], shard) }
                after.each_with_index do |state, shard|
                  expect([c[:before][shard], c[:twin][shard]]).to include(state), "#{c[:what]}: shard #{shard} ran the write more than once"
                end
                next unless after.each_index.all? { |shard| [c[:before][shard], c[:twin][shard]].include?(after[shard]) }

                if after == c[:twin]
                  expect([c[:twin_result], Bloomc::Redis::ConnectionError]).to include(outcome.is_a?(Exception) ? outcome.class : outcome),
                                                                               "#{c[:what]}: returned #{outcome.inspect}"
                else
                  expect(outcome).to be_a(Bloomc::Redis::ConnectionError), "#{c[:what]}: not run, yet #{outcome.inspect}"
                end
              end
            end
          end
        end
      end
    end

    # A server of this spec's own, with AOF, killed and started again.
    context "on a server that is killed and restarted", :slow do
      around do |example|
        Dir.mktmpdir do |dir|
          @dir = dir
          example.run
        ensure
          Dir.glob(File.join(dir, "*")).each { |sub| RedisServers.stop_in(sub) if File.directory?(sub) }
          RedisServers.stop_in(dir)
        end
      end

      it "finds every key added before a SIGKILL once Redis is back (AOF), and raises while it is down" do
        port = RedisServers.spawn(@dir, "--appendonly", "yes", "--appendfsync", "always")
        redis = Redis.new(url: "redis://127.0.0.1:#{port}", reconnect_attempts: 0, timeout: 1)
        filter = Bloomc::Redis::CountingBloomFilter.new(redis, "durable", capacity: 5000, error_rate: 0.001)
        filter.add_all(keys.first(1000))
        keys.drop(1000).first(20).each { |key| filter << key } # each fsynced: kept few
        Process.kill(:KILL, RedisServers.pid_in(@dir))
        RedisServers.wait_for { !RedisServers.alive?(RedisServers.pid_in(@dir)) }
        expect { filter.include?(keys[0]) }.to raise_error(Bloomc::Redis::ConnectionError)
        RedisServers.spawn(@dir, "--appendonly", "yes", "--appendfsync", "always", port: port)
        expect(filter.all_include?(keys.first(1020))).to be(true) # scripts loaded again, keys all there
        expect(filter.size).to eq(1020)
      end

      it "raises ConnectionError from a cluster that lost a master, for single keys and batches" do
        nodes = RedisServers.cluster(@dir)
        cluster = Redis::Cluster.new(nodes: nodes.map { |node| "redis://#{node}" }, reconnect_attempts: 0, timeout: 0.5)
        filter = Bloomc::Redis::BloomFilter.new(cluster, "lost", capacity: 10_000, error_rate: 0.01, shards: 6)
        filter.add_all(keys)
        Process.kill(:KILL, RedisServers.pid_in(File.join(@dir, "cluster-1")))
        calls = [-> { filter.include_all(keys) }, -> { filter.size }, -> { filter.add_all(keys) },
                 -> { keys.each { |key| filter.include?(key) } }]
        calls.each { |call| expect(&call).to raise_error(Bloomc::Redis::ConnectionError) }
      end
    end
  end
end
