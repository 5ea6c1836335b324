# frozen_string_literal: true

require_relative "redis_servers"

# The Redis servers the Redis specs run against: BLOOMC_REDIS_URL (a
# standalone server; the specs flush its database) and BLOOMC_REDIS_CLUSTER
# (host:port of the cluster's masters, comma-separated), as .ci/run exports
# them. Without a reachable server the specs skip with one line, unless
# BLOOMC_REDIS_REQUIRED=1 (CI), where they fail.
module RedisSpecSupport
  module_function

  def url = ENV.fetch("BLOOMC_REDIS_URL", "redis://127.0.0.1:6379/15")

  def cluster_nodes = ENV.fetch("BLOOMC_REDIS_CLUSTER", "").split(",").map { |node| "redis://#{node}" }

  def required? = ENV["BLOOMC_REDIS_REQUIRED"] == "1"

  # Loads bloomc/redis and pings the server; the reason when it cannot.
  def unavailable
    require "bloomc/redis"
    require "redis-clustering"
    Redis.new(url: url, timeout: 1).ping
    nil
  rescue LoadError, Redis::BaseError, SystemCallError => e
    "#{e.class}: #{e.message}"
  end

  # Counts what this thread sends while RedisSpecSupport.sends runs: each
  # command or pipeline, every time a client sends it (a redis-client
  # middleware, so an attempt the client makes again counts again).
  module CountSends
    def call(command, config) = (Thread.current[:bloomc_sends] += 1 if Thread.current[:bloomc_sends]).then { super }
    def call_pipelined(commands, config) = (Thread.current[:bloomc_sends] += 1 if Thread.current[:bloomc_sends]).then { super }
  end

  # [the commands and pipelines the block sent, in this thread, each
  # attempt counted; the Bloomc::Redis::ConnectionError it raised, or nil].
  def sends
    Thread.current[:bloomc_sends] = 0
    error = begin
      yield
      nil
    rescue Bloomc::Redis::ConnectionError => e
      e
    end
    [Thread.current[:bloomc_sends], error]
  ensure
    Thread.current[:bloomc_sends] = nil
  end

  # Runs the block (which defines the specs) when a server answers.
  def with_server(what)
    reason = unavailable
    if reason.nil?
      RedisClient.register(CountSends)
      yield
    elsif required?
      raise "BLOOMC_REDIS_REQUIRED=1 but no Redis at #{url} (#{reason})"
    else
      warn "#{what}: skipped, no Redis server at #{url} (set BLOOMC_REDIS_URL, or run .ci/run)"
    end
  end

  def client = Redis.new(url: url)

  def cluster_client = Redis::Cluster.new(nodes: cluster_nodes)
end
