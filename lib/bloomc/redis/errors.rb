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

    # Whether an error of redis-rb (or redis-clustering) means that a server
    # could not be reached, rather than that it refused a command.
    # @api private
    def self.connection_error?(error)
      return true if error.is_a?(::Redis::BaseConnectionError) || error.is_a?(::RedisClient::ConnectionError)
      return false unless defined?(::Redis::Cluster::InitialSetupError)

      case error
      when ::Redis::Cluster::InitialSetupError, ::Redis::Cluster::NodeMightBeDown then true
      when ::Redis::Cluster::CommandErrorCollection
        !error.errors.empty? && error.errors.values.all? { |inner| connection_error?(inner) }
      else false
      end
    end
  end
end
