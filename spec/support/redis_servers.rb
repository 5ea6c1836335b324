# frozen_string_literal: true

require "fileutils"
require "socket"
require "timeout"

# Real Redis servers for the specs, on free loopback ports: a standalone
# server (AOF on) and a Redis Cluster of three masters. .ci/run starts them
# before the README's test command and stops them after:
#
#   eval "$(ruby spec/support/redis_servers.rb start DIR)"   # exports the URLs
#   ruby spec/support/redis_servers.rb stop DIR
#
# Without those variables the specs start the same servers themselves, on
# first use, and stop them when the run ends (spec/support/redis.rb). They
# also use RedisServers.spawn to run a server of their own (the restart spec
# kills one).
module RedisServers
  module_function

  # The servers run as they are, even where the specs run under a preloaded
  # sanitizer (rake sanitize).
  CLEAN_ENV = { "LD_PRELOAD" => nil, "ASAN_OPTIONS" => nil, "UBSAN_OPTIONS" => nil }.freeze

  # A TCP port nobody listens on, whose cluster bus port (+10000) is free too.
  def free_port
    loop do
      port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
      next if port > 55_000

      begin
        TCPServer.open("127.0.0.1", port + 10_000, &:close)
        return port
      rescue SystemCallError
        next
      end
    end
  end

  # Starts redis-server in dir on a free port; returns the port once it
  # answers PING.
  def spawn(dir, *options, port: free_port)
    FileUtils.mkdir_p(dir)
    args = ["--port", port.to_s, "--bind", "127.0.0.1", "--dir", dir, "--daemonize", "yes",
            "--pidfile", File.join(dir, "redis.pid"), "--logfile", File.join(dir, "redis.log"),
            "--save", "", *options]
    system(CLEAN_ENV, "redis-server", *args, exception: true)
    wait_for { cli(port, "PING") == "PONG" }
    port
  end

  def cli(port, *command)
    IO.popen(CLEAN_ENV, ["redis-cli", "-h", "127.0.0.1", "-p", port.to_s, *command], err: File::NULL, &:read).strip
  end

  def wait_for(seconds = 20)
    Timeout.timeout(seconds) { sleep(0.05) until yield }
  end

  def pid_in(dir)
    Integer(File.read(File.join(dir, "redis.pid")))
  rescue Errno::ENOENT, ArgumentError
    nil
  end

  def stop_in(dir)
    pid = pid_in(dir) or return
    Process.kill(:TERM, pid)
    wait_for(10) { !alive?(pid) }
  rescue Errno::ESRCH
    nil
  rescue Timeout::Error
    Process.kill(:KILL, pid)
  end

  # Stops the servers of +pids+ (SIGSTOP) while the block runs and for
  # +seconds+ in all, then continues them (SIGCONT), however the block ends.
  # A command sent meanwhile waits in the server's socket and runs when the
  # server goes on, though its client may have given up on it by then.
  def stopped(pids, seconds)
    resume_at = Process.clock_gettime(Process::CLOCK_MONOTONIC) + seconds
    pids.each { |pid| Process.kill(:STOP, pid) }
    yield
  ensure
    sleep([resume_at - Process.clock_gettime(Process::CLOCK_MONOTONIC), 0].max) if resume_at
    pids.each { |pid| Process.kill(:CONT, pid) }
  end

  def alive?(pid)
    Process.kill(0, pid)
    true
  rescue Errno::ESRCH
    false
  end

  # A Redis Cluster of three masters, in dirs root/cluster-0..2; returns
  # their host:port once the cluster is ok.
  def cluster(root)
    nodes = Array.new(3) do |i|
      spawn(File.join(root, "cluster-#{i}"), "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
            "--cluster-node-timeout", "5000", "--appendonly", "no")
    end
    addresses = nodes.map { |port| "127.0.0.1:#{port}" }
    system(CLEAN_ENV, "redis-cli", "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes",
           out: File::NULL, exception: true)
    wait_for(60) { nodes.all? { |port| cli(port, "CLUSTER", "INFO").include?("cluster_state:ok") } }
    addresses
  end

  # A standalone server (AOF on, every write synced) in root/standalone;
  # returns its URL.
  def standalone(root)
    port = spawn(File.join(root, "standalone"), "--appendonly", "yes", "--appendfsync", "always")
    "redis://127.0.0.1:#{port}/0"
  end

  # Whether redis-server and redis-cli are on PATH, so that servers can be
  # started here.
  def installed? = %w[redis-server redis-cli].all? { |tool| system("command -v #{tool} >/dev/null 2>&1") }

  # The standalone server and the cluster; prints the variables to export.
  def start(root)
    url = standalone(root)
    addresses = cluster(root)
    puts "export BLOOMC_REDIS_URL=#{url}"
    puts "export BLOOMC_REDIS_CLUSTER=#{addresses.join(',')}"
  end

  def stop(root)
    Dir.glob(File.join(root, "*")).each { |dir| stop_in(dir) if File.directory?(dir) }
    FileUtils.rm_rf(root)
  end
end

if $PROGRAM_NAME == __FILE__
  command, root = ARGV
  abort "usage: #{$PROGRAM_NAME} start|stop DIR" unless %w[start stop].include?(command) && root
  RedisServers.public_send(command, File.expand_path(root))
end
