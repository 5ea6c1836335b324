# frozen_string_literal: true

require "tmpdir"
require_relative "redis_servers"

# The Redis servers the Redis specs run against. The specs flush the
# standalone server's database and write keys to the cluster, so they touch
# only servers they started themselves or that an environment variable names
# explicitly:
#
# - BLOOMC_REDIS_URL: a standalone server, whose database the specs flush;
# - BLOOMC_REDIS_CLUSTER: host:port of a cluster's masters, comma-separated.
#
# .ci/run starts its own servers and exports both (see redis_servers.rb).
# For each variable that is not set, the specs start a server of their own
# (redis-server from PATH, on free loopback ports, in a temporary directory)
# on first use and stop it when the run ends; there is no default URL, so a
# developer's Redis on 127.0.0.1:6379 is never used, let alone flushed.
# Without redis-server (and with no variable set) the specs skip with one
# line saying so, unless BLOOMC_REDIS_REQUIRED=1 (CI), where they fail.
module RedisSpecSupport
  module_function

  # The standalone server's URL: BLOOMC_REDIS_URL, else one started here;
  # nil when neither is possible.
  def url
    return @url if defined?(@url)

    @url = ENV.fetch("BLOOMC_REDIS_URL") { RedisServers.standalone(own_root) if RedisServers.installed? }
  end

  # The cluster's masters ("redis://host:port"): BLOOMC_REDIS_CLUSTER, else
  # a cluster started here; [] when neither is possible.
  def cluster_nodes
    @cluster_nodes ||= begin
      given = ENV.fetch("BLOOMC_REDIS_CLUSTER", nil)
      addresses = if given then given.split(",")
                  elsif RedisServers.installed? then RedisServers.cluster(own_root)
                  else []
                  end
      addresses.map { |node| "redis://#{node}" }.freeze
    end
  end

  # A temporary directory for the servers started here, removed with them
  # when the process that started them exits (a forked child's exit leaves
  # them running).
  def own_root
    @own_root ||= Dir.mktmpdir("bloomc-redis-").tap do |root|
      owner = Process.pid
      at_exit { RedisServers.stop(root) if Process.pid == owner }
    end
  end

  def required? = ENV["BLOOMC_REDIS_REQUIRED"] == "1"

  # Loads bloomc/redis and pings the server; the reason when it cannot.
  def unavailable
    require "bloomc/redis"
    require "redis-clustering"
    require "connection_pool"
    return "BLOOMC_REDIS_URL is not set and redis-server is not installed to start one" unless url

    Redis.new(url: url, timeout: 1).ping
    nil
  rescue LoadError, Redis::BaseError, SystemCallError => e
    "no Redis server at #{url} (#{e.class}: #{e.message})"
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
      raise "BLOOMC_REDIS_REQUIRED=1 but #{reason}"
    else
      warn "#{what}: skipped, #{reason} (install redis-server, or set BLOOMC_REDIS_URL to a server whose database may be flushed)"
    end
  end

  def client = Redis.new(url: url)

  # Empties the standalone server's database: one started here, or the one
  # BLOOMC_REDIS_URL names (which says that it may be flushed); url has no
  # default, so no other server can be flushed.
  def flushdb
    raise "no Redis server to flush" unless url

    client.flushdb
  end

  def cluster_client = Redis::Cluster.new(nodes: cluster_nodes)

  # The clients a filter takes, by form: "a FORM" => [:standalone or
  # :cluster, a lambda of the server's URL (a cluster's node URLs) and the
  # client's options (timeout:, reconnect_attempts:)]. A pool lends two
  # connections.
  def client_forms
    {
      "a Redis" => [:standalone, ->(url, **options) { Redis.new(url: url, **options) }],
      "a RedisClient" => [:standalone, ->(url, **options) { RedisClient.new(url: url, **options) }],
      "a ConnectionPool of Redis" => [:standalone, ->(url, **options) { ConnectionPool.new(size: 2) { Redis.new(url: url, **options) } }],
      "a ConnectionPool of RedisClient" => [:standalone, ->(url, **options) { ConnectionPool.new(size: 2) { RedisClient.new(url: url, **options) } }],
      "a RedisClient::Pooled" => [:standalone, ->(url, **options) { RedisClient.config(url: url, **options).new_pool(size: 2) }],
      "a ConnectionPool.wrap of Redis" => [:standalone, ->(url, **options) { ConnectionPool.wrap(size: 2) { Redis.new(url: url, **options) } }],
      "a Redis::Cluster" => [:cluster, ->(nodes, **options) { Redis::Cluster.new(nodes: nodes, **options) }],
      "a RedisClient::Cluster" => [:cluster, ->(nodes, **options) { RedisClient.cluster(nodes: nodes, **options).new_client }],
      "a ConnectionPool of Redis::Cluster" =>
        [:cluster, ->(nodes, **options) { ConnectionPool.new(size: 2) { Redis::Cluster.new(nodes: nodes, **options) } }],
      "a ConnectionPool of RedisClient::Cluster" =>
        [:cluster, ->(nodes, **options) { ConnectionPool.new(size: 2) { RedisClient.cluster(nodes: nodes, **options).new_client } }]
    }
  end

  # Sends PING through a client of any form (client_forms), which connects
  # it (a pool: one of its connections).
  def ping(client)
    case client
    when Redis then client.ping
    when RedisClient, RedisClient::Cluster then client.call("PING")
    else client.with { |lent| ping(lent) }
    end
  end

  # Where the specs run each example: { "a standalone server" => a lambda
  # that connects, "a Redis Cluster" => ... }.
  def servers = { "a standalone server" => -> { client }, "a Redis Cluster" => -> { cluster_client } }

  # In a before(:all) of the context of +where+: skips it where there is no
  # cluster (and none is required); returns a client.
  def connect(example_group, where, connect)
    example_group.skip "no cluster (BLOOMC_REDIS_CLUSTER)" if where.include?("Cluster") && cluster_nodes.empty? && !required?
    connect.call
  end

  # The name of filter +index+ of a family whose first shard ("{NAME:0}")
  # lies in the hash slot of +base+'s (filter 0 is +base+): a Redis Cluster
  # combines two filters only where their shards share a slot, which names
  # do by chance, about one in 16,384.
  def same_slot_name(base, index)
    return base if index.zero?

    slot = key_slot("#{base}:0")
    (0..).lazy.map { |i| "#{base}-#{index}-#{i}" }.find { |name| key_slot("#{name}:0") == slot }
  end

  def key_slot(tag) = RedisClient::Cluster::KeySlotConverter.convert("{#{tag}}")
end
