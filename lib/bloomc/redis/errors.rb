# frozen_string_literal: true

# Part of bloomc/redis (require "bloomc/redis"): its errors.

module Bloomc
  module Redis
    # The Redis server cannot be reached, or the connection broke or timed
    # out during an operation; the operation's outcome is unknown (an add
    # may have landed). A write is never sent twice (see Filter#send_once),
    # so it ran once or not at all.
    class ConnectionError < Bloomc::Error; end

    # Redis refused an operation: a key of the filter's holds another type
    # (WRONGTYPE), the server is out of memory (OOM), ... The redis gem's
    # error is the cause. Nothing of the refused script call was written.
    class CommandError < Bloomc::Error; end

    # The errors of the clients (redis-rb, redis-clustering, redis-client,
    # redis-cluster-client) and of a pool (connection_pool) that a filter
    # turns into its own, of the gems loaded.
    # @api private
    def self.client_errors
      Connection.loaded("Redis::BaseError", "RedisClient::Error", "ConnectionPool::PoolShuttingDownError", "ConnectionPool::TimeoutError")
    end

    # Whether a client's error is a server's refusal of a command.
    # @api private
    def self.command_error?(error) = Connection.loaded("Redis::CommandError", "RedisClient::CommandError").any? { |type| error.is_a?(type) }

    # Whether a client's error means that a server could not be reached,
    # rather than that it refused a command: a broken connection or a
    # timeout, a cluster whose nodes did not answer (every node's error of
    # a collection such), or a pool that lent no connection in time (or
    # was shut down).
    # @api private
    def self.connection_error?(error)
      case error
      when *Connection.loaded("Redis::BaseConnectionError", "RedisClient::ConnectionError", "Redis::Cluster::InitialSetupError",
                              "Redis::Cluster::NodeMightBeDown", "RedisClient::Cluster::InitialSetupError",
                              "RedisClient::Cluster::NodeMightBeDown", "ConnectionPool::PoolShuttingDownError",
                              "ConnectionPool::TimeoutError")
        true
      when *Connection.loaded("Redis::Cluster::CommandErrorCollection", "RedisClient::Cluster::ErrorCollection")
        !error.errors.empty? && error.errors.values.all? { |inner| connection_error?(inner) }
      else false
      end
    end
  end
end
