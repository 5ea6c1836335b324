# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis"): the clients its filters
# take, behind one interface.

module Bloomc
  module Redis
    # The client a filter was given, as its filters use it. Every form ends
    # in a client of redis-client's interface (call_v, and pipelined with
    # call_v and call_once_v), which is what the filters talk to:
    #
    # - a Redis or Redis::Cluster (redis-rb 5, redis-clustering): the
    #   RedisClient (Redis::Client, Redis::Cluster::Client) inside it, under
    #   its own lock (Redis#synchronize), as redis-rb sends every command;
    # - a RedisClient or RedisClient::Cluster (redis-client,
    #   redis-cluster-client): itself, as it is (a RedisClient is not
    #   thread-safe: share a pool between threads);
    # - a pool of those: a ConnectionPool (connection_pool), what
    #   ConnectionPool.wrap made, or redis-client's own (RedisClient::Pooled,
    #   from RedisClient.config(...).new_pool): a connection checked out for
    #   each operation and given back at its end, never held while user code
    #   runs. A nested checkout in one thread gets the same connection, so
    #   an operation of several steps (a script loaded, then called again)
    #   and a caller inside pool.with both keep to one.
    #
    # The gems are found when loaded, never required here: each is optional.
    # Anything else: TypeError.
    class Connection
      ACCEPTED = "a client of the redis or redis-client gem: Redis, Redis::Cluster (redis-clustering), RedisClient, " \
                 "RedisClient::Cluster (redis-cluster-client), or a ConnectionPool (or RedisClient::Pooled) of one of those"

      CLASS_OF = Kernel.instance_method(:class)
      private_constant :CLASS_OF

      # The classes of +names+ that are loaded (a gem not required has none).
      def self.loaded(*names) = names.filter_map { |name| Object.const_get(name, false) if Object.const_defined?(name, false) }

      # How +client+ reaches redis-client's interface: :redis_rb (a Redis,
      # Redis::Cluster included), :redis_client (itself), or nil.
      def self.kind_of_client(client)
        case client
        when *loaded("Redis") then :redis_rb
        when *loaded("RedisClient", "RedisClient::Cluster") then :redis_client
        end
      end

      # Whether +client+ is a cluster's (Redis::Cluster, RedisClient::Cluster).
      def self.cluster_client?(client)
        case client
        when *loaded("Redis::Cluster", "RedisClient::Cluster") then true
        else false
        end
      end

      # @return [Object] the client the filter was given
      attr_reader :given

      # Checks +given+'s class; a pool's connections are checked as they
      # are lent (no connection is taken here).
      def initialize(given)
        @given = given
        @pool = pool_of(given)
        @seen = {} # whether the pool lends a cluster's clients, once one is lent
        unless @pool
          @kind = checked_kind(given)
          @seen[:cluster] = self.class.cluster_client?(given)
        end
        freeze
      end

      # Whether the client is a Redis Cluster's (a pool: asked of one of
      # its connections, once).
      def cluster?
        with { nil } unless @seen.key?(:cluster)
        @seen[:cluster]
      end

      # Yields a client of redis-client's interface (see the class comment)
      # for one operation; the block's value.
      def with(&block)
        return reach(@kind, @given, block) unless @pool

        @pool.with do |client|
          kind = checked_kind(client)
          @seen[:cluster] = self.class.cluster_client?(client) unless @seen.key?(:cluster)
          reach(kind, client, block)
        end
      end

      # The server the client talks to, as a URL ("redis://HOST:PORT/DB",
      # without the database 0), so that two clients of any form compare
      # equal on one server and database; for a cluster, its startup nodes.
      def server
        with do |client|
          next client.server_url unless cluster?

          "a Redis Cluster (#{client.config.startup_nodes.keys.join(', ')})"
        end
      end

      private

      # The pool +given+ is, or nil. A ConnectionPool.wrap wrapper forwards
      # every method (is_a? included) to a connection: it is recognized by
      # its class first.
      def pool_of(given)
        case given
        when *self.class.loaded("ConnectionPool::Wrapper") then given.wrapped_pool
        when *self.class.loaded("ConnectionPool", "RedisClient::Pooled") then given
        end
      end

      # +client+'s kind (kind_of_client), or TypeError.
      def checked_kind(client)
        kind = self.class.kind_of_client(client)
        return kind if kind

        type = CLASS_OF.bind_call(client) # a BasicObject has no #class
        raise TypeError, "redis must be #{ACCEPTED}, not #{type}" unless @pool

        raise TypeError, "the pool given as redis lent a #{type}: its connections must be clients of the redis " \
                         "or redis-client gem (Redis, Redis::Cluster, RedisClient, RedisClient::Cluster)"
      end

      # redis-rb's client under its lock, as redis-rb sends its own commands.
      def reach(kind, client, operation)
        kind == :redis_rb ? client.send(:synchronize, &operation) : operation.call(client)
      end
    end
    private_constant :Connection
  end
end
