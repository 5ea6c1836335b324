# frozen_string_literal: true

require "bloomc"

# redis-rb when it is there; else redis-client alone (as Sidekiq 7 apps
# have it): the filters take a client of either (redis/connection.rb).
begin
  require "redis"
rescue LoadError => e
  begin
    require "redis-client"
  rescue LoadError
    raise LoadError, "bloomc/redis needs the redis gem (redis-rb 5) or the redis-client gem: add `gem \"redis\"` to " \
                     "your Gemfile (and `gem \"redis-clustering\"` for Redis Cluster) [#{e.message}]"
  end
end

module Bloomc
  # Filters kept in Redis, shared by every process and host that opens them
  # by name: Bloomc::Redis::BloomFilter, CountingBloomFilter,
  # ContinuousBloomFilter, ScalableBloomFilter and SlidingBloomFilter. A
  # key's positions are computed here, in C, exactly as for the local
  # filters; each operation is one round trip (a Lua script
  # that does all k cells atomically) and the batch forms are pipelined.
  #
  # +redis+ is a Redis or, for a Redis Cluster, a Redis::Cluster (gems redis
  # and redis-clustering), a RedisClient or RedisClient::Cluster (gems
  # redis-client and redis-cluster-client), or a ConnectionPool of any of
  # them, checked out for each operation (docs/REDIS.md, "The clients they
  # take"). With +shards: N+ a filter is N
  # Redis keys, and a key's cells all lie in the shard its hash picks, so a
  # large filter spreads over a cluster's nodes and each operation still goes
  # to one of them.
  #
  # The Redis keys of filter NAME: "bloomc:{NAME}:meta" (a hash of its
  # parameters) and, per shard i, "bloomc:{NAME:i}:cells" and
  # "bloomc:{NAME:i}:count" (the continuous filter: "bloomc:{NAME:i}:gen:G",
  # one per clock period; the sliding filter: "bloomc:{NAME}:gens" and
  # "bloomc:{NAME}:gen:START:LAYER", all in the meta hash's slot). Bit offsets follow Redis' order (bit 0 is the high
  # bit of byte 0), mapped so that the cells string of an unsharded
  # BloomFilter holds the same bytes as the local filter's cells.
  module Redis
  end
end

# The pieces, in order: the filters need the errors and scripts, and the
# three classes their base class (filter.rb, with the stats and set
# operations in local_api.rb).
require_relative "redis/errors"
require_relative "redis/connection"
require_relative "redis/scripts"
require_relative "redis/filter"
require_relative "redis/local_api"
require_relative "redis/bloom_filter"
require_relative "redis/counting_bloom_filter"
require_relative "redis/continuous_bloom_filter"
require_relative "redis/layered"
require_relative "redis/scalable_bloom_filter"
require_relative "redis/sliding_bloom_filter"
