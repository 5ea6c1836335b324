# frozen_string_literal: true

require "spec_helper"
require "open3"

# The Redis filters through each client they take (RedisSpecSupport
# .client_forms): redis-rb's Redis and Redis::Cluster, redis-client's
# RedisClient and RedisClient::Cluster, and pools of them (ConnectionPool,
# ConnectionPool.wrap, RedisClient::Pooled), on the suite's standalone
# server and its cluster. Each filter's keys are read again through redis-rb
# (the reference client), so every form writes the same keys. The no-resend
# rule for writes, per form, is in redis_spec.rb (servers stopped while
# writes are under way).
RedisSpecSupport.with_server("Bloomc::Redis client forms specs") do
  RSpec.describe "Bloomc::Redis filters through each client form" do
    keys = Array.new(300) { |i| "key-#{i}" }.freeze
    probes = Array.new(2000) { |i| "probe-#{i}" }.freeze

    # Each kind's shape; the three of cells spread over three shards (on a
    # cluster, over its nodes).
    kinds = {
      Bloomc::Redis::BloomFilter => { m: 6000, k: 4, shards: 3 },
      Bloomc::Redis::CountingBloomFilter => { m: 6000, k: 4, shards: 3 },
      Bloomc::Redis::ContinuousBloomFilter => { m: 6000, k: 4, shards: 3, ttl: 60 },
      Bloomc::Redis::ScalableBloomFilter => { error_rate: 0.01, initial_capacity: 100 }, # 300 keys: three layers
      Bloomc::Redis::SlidingBloomFilter => { ttl: 60, error_rate: 0.01, first_size: 100 }
    }

    # Values in Redis that a write of each kind refuses, changing nothing:
    # [{ key => value }, the error]. Counts that are no number, one a shard
    # (a script's error reply: CommandError); a scalable filter's layer
    # count and a sliding filter's generation that are no such thing (a
    # CORRUPT reply: FormatError). A Hash value is written as a hash.
    counts = ->(name) { [Array.new(3) { |i| ["bloomc:{#{name}:#{i}}:count", "x"] }.to_h, [Bloomc::Redis::CommandError, /holds no count/]] }
    spoiled = {
      Bloomc::Redis::BloomFilter => counts,
      Bloomc::Redis::CountingBloomFilter => counts,
      Bloomc::Redis::ContinuousBloomFilter => counts,
      Bloomc::Redis::ScalableBloomFilter => ->(name) { [{ "bloomc:{#{name}:0}:layers" => "0" }, [Bloomc::FormatError, /unusable.*layer/]] },
      Bloomc::Redis::SlidingBloomFilter => ->(name) { [{ "bloomc:{#{name}}:gens" => { "x" => "1" } }, [Bloomc::FormatError, /unusable.*holds no generation/]] }
    }

    before(:all) { RedisSpecSupport.flushdb }

    RedisSpecSupport.client_forms.each do |form, (topology, make)|
      context "through #{form} on #{topology == :cluster ? 'a Redis Cluster' : 'a standalone server'}" do
        before(:all) do
          where = topology == :cluster ? "a Redis Cluster" : "a standalone server"
          @reference = RedisSpecSupport.connect(self, where, RedisSpecSupport.servers.fetch(where))
          @client = make.call(topology == :cluster ? RedisSpecSupport.cluster_nodes : RedisSpecSupport.url)
        end

        let(:name) { "clients-#{RSpec.current_example.id}" }

        # A name whose shard 0 shares the hash slot of +base+'s (on a
        # cluster): filters combine only there.
        def beside(base, i) = @reference.is_a?(Redis::Cluster) ? RedisSpecSupport.same_slot_name(base, i) : "#{base}-#{i}"

        kinds.each do |klass, shape|
          kind = klass.name.split("::").last

          it "adds, looks up, reopens and refuses a #{kind} as through redis-rb, changing nothing on an error" do
            filter = klass.new(@client, name, **shape)
            expect(filter.redis).to equal(@client)
            expect(filter << "a").to equal(filter)
            expect([filter.add?("b"), filter.add?("a")]).to eq([filter, nil])
            expect(filter.add_new(%w[c a d c].each)).to eq(%w[c d])
            filter.add_all(keys)
            expect(filter.include_all(%w[a b c d] + keys).all?).to be(true)
            expect([filter.include?("a"), filter.include?("never added")]).to eq([true, false])
            held = ["a", "never added", nil].map { |key| filter === key } # rubocop:disable Style/CaseEquality
            expect([filter.member?("a"), *held]).to eq([true, true, false, false])

            # The same keys as redis-rb's client writes and reads.
            seen = klass.new(@reference, name)
            expect(seen.include_all(probes)).to eq(filter.include_all(probes))
            expect(filter.count_included(probes)).to be < 100 # 1% and less per layer: about 20
            size = filter.size
            expect([size, seen.size]).to eq([307, 307]) # every add counted, of a key present too
            reopened = klass.new(@client, name)
            expect([reopened.name, reopened.include?("d"), reopened.fill_ratio]).to eq([name, true, filter.fill_ratio])
            expect { klass.new(@client, "#{name}-none") }.to raise_error(ArgumentError, /no filter named/)

            # Bad keys, a key of the filter's holding what bloomc did not
            # write, a meta key of another type: clear errors, nothing changed.
            expect { filter.add_all(["x", nil]) }.to raise_error(TypeError)
            expect { filter << 1.5 }.to raise_error(TypeError)
            values, error = spoiled.fetch(klass).call(name)
            kept = values.keys.to_h { |key| [key, @reference.dump(key)] }
            values.each do |key, value|
              @reference.del(key)
              value.is_a?(Hash) ? @reference.hset(key, value) : @reference.set(key, value)
            end
            written = keys.map { |k| "#{k}-late" }
            expect { written.each { |k| filter << k } }.to raise_error(*error)
            expect { filter.add_all(written) }.to raise_error(*error)
            kept.each { |key, dump| dump ? @reference.restore(key, 0, dump, replace: true) : @reference.del(key) }
            expect(filter.include_all(written).count(true)).to be < 20 # none added: false positives only
            expect([filter.size, filter.include?("x")]).to eq([size, false])
            @reference.rpush("bloomc:{#{name}-listed}:meta", "x")
            expect { klass.new(@client, "#{name}-listed", **shape) }.to raise_error(Bloomc::FormatError, /holds no filter's parameters/)
            expect(@reference.type("bloomc:{#{name}-listed}:meta")).to eq("list")
          ensure
            @reference.del("bloomc:{#{name}-listed}:meta")
            klass.new(@reference, name).destroy rescue ArgumentError # rubocop:disable Style/RescueModifier
          end

          next if klass == Bloomc::Redis::SlidingBloomFilter # no set operations

          it "merges a #{kind} with one opened through redis-rb, on the server" do
            unsharded = shape.except(:shards)
            mine = klass.new(@client, name, **unsharded).add_all(keys.first(200))
            theirs = klass.new(@reference, beside(name, 1), **unsharded).add_all(keys.drop(100))
            expect(mine.merge!(theirs)).to equal(mine)
            expect([mine.include_all(keys).all?, mine.size]).to eq([true, 400])
            expect(theirs.merge!(klass.new(@client, name)).size).to eq(600) # the other way round, through this form
            both = mine.union(theirs, into: beside(name, 2))
            expect([both.redis, both.size, both.all_include?(keys)]).to eq([@client, 1000, true])
          ensure
            [name, beside(name, 1), beside(name, 2)].each { |n| klass.new(@reference, n).destroy rescue ArgumentError } # rubocop:disable Style/RescueModifier
          end
        end

        next if topology == :cluster

        it "refuses to merge with a filter on another database of the server, naming both, before writing anything" do
          other_db = Redis.new(url: RedisSpecSupport.url.sub(%r{/\d+\z}, "/1"))
          mine = Bloomc::Redis::BloomFilter.new(@client, name, m: 1000, k: 3) << "a"
          theirs = Bloomc::Redis::BloomFilter.new(other_db, name, m: 1000, k: 3) << "b"
          expect { mine.merge!(theirs) }
            .to raise_error(Bloomc::UnsupportedError, %r{different Redis servers \(redis://127\.0\.0\.1:\d+, redis://127\.0\.0\.1:\d+/1\)})
          expect([mine.include?("b"), mine.size]).to eq([false, 1])
        ensure
          Bloomc::Redis::BloomFilter.new(other_db, name).destroy rescue ArgumentError # rubocop:disable Style/RescueModifier
          Bloomc::Redis::BloomFilter.new(@reference, name).destroy rescue ArgumentError # rubocop:disable Style/RescueModifier
        end
      end
    end

    context "given something else than a client" do
      it "raises TypeError naming what it takes, and creates nothing" do
        url = RedisSpecSupport.url
        [nil, "redis://127.0.0.1:6379", Object.new, BasicObject.new, Redis.new(url: url).then { |r| -> { r } }].each do |given|
          expect { Bloomc::Redis::BloomFilter.new(given, "typed", m: 10, k: 2) }
            .to raise_error(TypeError, /\Aredis must be a client of the redis or redis-client gem: Redis, Redis::Cluster .*RedisClient::Cluster/)
        end
        pools = [ConnectionPool.new(size: 1) { Object.new }, ConnectionPool.new(size: 1) { ConnectionPool.new(size: 1) { Redis.new(url: url) } }]
        pools.each do |pool|
          expect { Bloomc::Redis::CountingBloomFilter.new(pool, "typed", m: 10, k: 2) }
            .to raise_error(TypeError, /\Athe pool given as redis lent a (Object|ConnectionPool): its connections must be clients/)
        end
        expect(RedisSpecSupport.client.exists?("bloomc:{typed}:meta")).to be(false)
      end
    end

    # An app with redis-client alone (Sidekiq 7's): bloomc/redis loads
    # without the redis gem, and a RedisClient's filter works (with neither
    # gem, one LoadError names both: redis_spec.rb).
    it "loads with redis-client alone" do
      lib = File.expand_path("../../lib", __dir__)
      without_redis = "module Kernel; alias_method :spec_require, :require; " \
                      'def require(name) = name == "redis" ? raise(LoadError, "cannot load such file -- redis") : spec_require(name); end'
      use = <<~RUBY
        require "bloomc/redis"
        filter = Bloomc::Redis::BloomFilter.new(RedisClient.new(url: ARGV[0]), "redis-client-alone", m: 1000, k: 3)
        filter << "a"
        print [defined?(::Redis::Cluster).inspect, filter.include?("a"), filter.include?("b")].join(" ")
        filter.destroy
      RUBY
      out, err, status = Open3.capture3(RbConfig.ruby, "-I", lib, "-e", without_redis, "-e", use, RedisSpecSupport.url)
      expect([out, err, status.success?]).to eq(["nil true false", "", true])
    end

    # A pool is checked out for one operation at a time, never while user
    # code runs: a pool of one connection serves every filter opened on it
    # and the caller's own commands, from any thread.
    context "given a ConnectionPool of one connection" do
      let(:url) { RedisSpecSupport.url }

      before(:all) { @reference = RedisSpecSupport.client }

      after do
        { Bloomc::Redis::BloomFilter => "pooled", Bloomc::Redis::ScalableBloomFilter => "pooled-2" }.each do |klass, name|
          klass.new(@reference, name).destroy rescue ArgumentError # rubocop:disable Style/RescueModifier
        end
      end

      { "redis-rb" => ->(url) { Redis.new(url: url) }, "redis-client" => ->(url) { RedisClient.new(url: url) } }.each do |gem, connect|
        it "gives the #{gem} connection back after each operation, to other threads and to the caller's own pool.with" do
          pool = ConnectionPool.new(size: 1, timeout: 2) { connect.call(url) }
          filter = Bloomc::Redis::BloomFilter.new(pool, "pooled", m: 10_000, k: 4)
          scalable = Bloomc::Redis::ScalableBloomFilter.new(pool, "pooled-2", error_rate: 0.01, initial_capacity: 50)
          expect(Thread.new { pool.with { |lent| RedisSpecSupport.ping(lent) } }.value).to eq("PONG") # none held by the filters
          workers = Array.new(2) do |t|
            Thread.new do
              mine = Array.new(150) { |i| "t#{t}-#{i}" }
              mine.each_slice(10) { |slice| filter.add_all(slice) && scalable.add_all(slice) && filter.include?(slice.first) }
              [filter.all_include?(mine), scalable.all_include?(mine)]
            end
          end
          expect(workers.map(&:value)).to eq([[true, true], [true, true]])
          expect([filter.size, scalable.size]).to eq([300, 300])
          # The caller holding the one connection: the filter uses that one.
          pool.with do |held|
            expect([filter.add?("inside"), filter.include?("inside"), RedisSpecSupport.ping(held)]).to eq([filter, true, "PONG"])
          end
        end
      end

      it "raises ConnectionError when no connection is free in time, sending nothing" do
        pool = ConnectionPool.new(size: 1, timeout: 0.2) { RedisClient.new(url: url) }
        filter = Bloomc::Redis::BloomFilter.new(pool, "pooled", m: 1000, k: 3)
        holding = Queue.new
        done = Queue.new
        holder = Thread.new do
          pool.with { holding << :held && done.pop }
        ensure
          holding << :ended
        end
        expect(holding.pop).to eq(:held)
        expect { filter << "a" }.to raise_error(Bloomc::Redis::ConnectionError, /unreachable for filter "pooled".*ConnectionPool::TimeoutError/)
        done << true
        holder.join
        expect([filter.include?("a"), filter.size]).to eq([false, 0])
      end
    end
  end
end
