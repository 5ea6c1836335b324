# frozen_string_literal: true

require "spec_helper"
require "tmpdir"

# The same contract (spec/support/filter_contract.rb) on every backend.
RSpec.describe "the Bloom filter contract" do
  describe Bloomc::BloomFilter do
    def build = Bloomc::BloomFilter.new(20_000, 5, seed: 7)
    def other_shape = Bloomc::BloomFilter.new(20_001, 5, seed: 7)
    def union(a, b) = a | b
    def intersection(a, b) = a & b

    it_behaves_like "a Bloom filter's contract"
  end

  describe "a mapped Bloomc::BloomFilter (BloomFilter.open)" do
    around do |example|
      Dir.mktmpdir do |dir|
        @dir = dir
        @opened = []
        example.run
      ensure
        @opened.each(&:close)
      end
    end

    def open_new(**shape) = Bloomc::BloomFilter.open(File.join(@dir, "f#{@opened.size}.bloom"), **shape).tap { |f| @opened << f }
    def build = open_new(m: 20_000, k: 5, seed: 7)
    def other_shape = open_new(m: 20_001, k: 5, seed: 7)
    def union(a, b) = a | b
    def intersection(a, b) = a & b

    it_behaves_like "a Bloom filter's contract"
  end

  RedisSpecSupport.with_server("the Bloom filter contract on Redis") do
    { "a standalone server" => -> { RedisSpecSupport.client },
      "a Redis Cluster" => -> { RedisSpecSupport.cluster_client } }.each do |where, connect|
      describe "Bloomc::Redis::BloomFilter on #{where}" do
        before(:all) do
          cluster = where.include?("Cluster")
          skip "no cluster (BLOOMC_REDIS_CLUSTER)" if cluster && RedisSpecSupport.cluster_nodes.empty? && !RedisSpecSupport.required?
          @redis = connect.call
        end

        before { @created = [] }
        after { @created.each(&:destroy) }

        # A name of its own for each filter. On a cluster its one shard
        # shares the hash slot of the example's first filter, so that they
        # combine (RedisSpecSupport.same_slot_name); on a standalone server
        # any name would do.
        define_method(:fresh_name) do
          base = "contract-#{RSpec.current_example.id}"
          where.include?("Cluster") ? RedisSpecSupport.same_slot_name(base, @created.size) : "#{base}-#{@created.size}"
        end

        def open_new(**shape) = Bloomc::Redis::BloomFilter.new(@redis, fresh_name, **shape).tap { |f| @created << f }
        def build = open_new(m: 20_000, k: 5, seed: 7)
        def other_shape = open_new(m: 20_001, k: 5, seed: 7)
        # On a standalone server a | b, a filter named "A|B"; on a cluster
        # that name's slot is not the operands', so into: a name of theirs.
        define_method(:union) do |a, b|
          (where.include?("Cluster") ? a.union(b, into: fresh_name) : a | b).tap { |f| @created << f }
        end
        define_method(:intersection) do |a, b|
          (where.include?("Cluster") ? a.intersection(b, into: fresh_name) : a & b).tap { |f| @created << f }
        end

        it_behaves_like "a Bloom filter's contract"
      end
    end
  end
end
