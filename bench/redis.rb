# frozen_string_literal: true

# Bloom filters in Redis over loopback, in one process: bloomc's
# Bloomc::Redis::BloomFilter (positions in C, one EVALSHA per key, batches in
# one pipeline) against the usual pure-Ruby approach doing the same job: k
# positions from seeded CRC32s, then SETBIT/GETBIT. Twice: as a plain loop
# (a command, a round trip, per bit; a lookup stops at its first 0 bit), and
# pipelined (a key's k commands together; a batch's in one pipeline). Same m
# and k, same keys. Batches of 1,000 keys.
#
# Uses BLOOMC_REDIS_URL (keys bloomc:{bloomc-bench}:* and bloomc-bench-ruby,
# removed before and after), or starts a server of its own when redis-server
# is installed. Run with `bundle exec rake bench:redis`.
#
#   REDIS_BENCH_KEYS=20000   keys per measurement
#   REDIS_BENCH_ROUNDS=3     rounds; the best of each is kept

require "bloomc/redis"
require "tmpdir"
require "zlib"
require_relative "support"
require_relative "../spec/support/redis_servers"

include BenchSupport

KEYS = Integer(ENV.fetch("REDIS_BENCH_KEYS", "20000"))
ROUNDS = Integer(ENV.fetch("REDIS_BENCH_ROUNDS", "3"))
BATCH = 1000

# The usual pure-Ruby Redis Bloom filter: SETBIT/GETBIT at k CRC32 positions.
class RubyRedisBloom
  def initialize(redis, key, m, k)
    @redis = redis
    @key = key
    @m = m
    @k = k
  end

  def positions(key) = Array.new(@k) { |i| Zlib.crc32(key, i * 0x9e3779b9 & 0xffffffff) % @m }

  def loop_add(key) = positions(key).each { |p| @redis.setbit(@key, p, 1) }

  def loop_include?(key) = positions(key).all? { |p| @redis.getbit(@key, p) == 1 }

  def add(key)
    cells = positions(key)
    @redis.pipelined { |pipe| cells.each { |p| pipe.setbit(@key, p, 1) } }
  end

  def include?(key)
    cells = positions(key)
    @redis.pipelined { |pipe| cells.each { |p| pipe.getbit(@key, p) } }.all?(1)
  end

  def add_all(keys)
    cells = keys.map { |key| positions(key) }
    @redis.pipelined { |pipe| cells.each { |c| c.each { |p| pipe.setbit(@key, p, 1) } } }
  end

  def include_all(keys)
    replies = @redis.pipelined { |pipe| keys.each { |key| positions(key).each { |p| pipe.getbit(@key, p) } } }
    replies.each_slice(@k).map { |bits| bits.all?(1) }
  end

  def clear = @redis.del(@key)
end

def with_redis
  if (url = ENV.fetch("BLOOMC_REDIS_URL", nil))
    yield Redis.new(url: url), url
  else
    abort "set BLOOMC_REDIS_URL, or install redis-server (apt-get install redis-server)" unless system("command -v redis-server >/dev/null")
    Dir.mktmpdir do |dir|
      port = RedisServers.spawn(dir, "--appendonly", "no")
      yield Redis.new(url: "redis://127.0.0.1:#{port}"), "a server of its own on port #{port}"
    ensure
      RedisServers.stop_in(dir)
    end
  end
end

with_redis do |redis, where|
  begin
    Bloomc::Redis::BloomFilter.new(redis, "bloomc-bench").destroy
  rescue ArgumentError
    nil # none there
  end
  keys = hex_keys(KEYS, 1)
  absent = hex_keys(KEYS, 2)
  ours = Bloomc::Redis::BloomFilter.new(redis, "bloomc-bench", capacity: KEYS, error_rate: 0.01)
  theirs = RubyRedisBloom.new(redis, "bloomc-bench-ruby", ours.m, ours.k)
  theirs.clear
  ours << "warm" # loads the scripts
  singles = KEYS / 10 # single-key round trips are slow: a tenth of the keys

  jobs = {
    "bloomc add" => -> { keys.first(singles).each { |key| ours << key } },
    "ruby add" => -> { keys.first(singles).each { |key| theirs.add(key) } },
    "loop add" => -> { keys.first(singles).each { |key| theirs.loop_add(key) } },
    "bloomc include? hit" => -> { keys.first(singles).each { |key| ours.include?(key) } },
    "ruby include? hit" => -> { keys.first(singles).each { |key| theirs.include?(key) } },
    "loop include? hit" => -> { keys.first(singles).each { |key| theirs.loop_include?(key) } },
    "bloomc include? miss" => -> { absent.first(singles).each { |key| ours.include?(key) } },
    "ruby include? miss" => -> { absent.first(singles).each { |key| theirs.include?(key) } },
    "loop include? miss" => -> { absent.first(singles).each { |key| theirs.loop_include?(key) } },
    "bloomc add_all" => -> { keys.each_slice(BATCH) { |slice| ours.add_all(slice) } },
    "ruby add_all" => -> { keys.each_slice(BATCH) { |slice| theirs.add_all(slice) } },
    "bloomc include_all" => -> { absent.each_slice(BATCH) { |slice| ours.include_all(slice) } },
    "ruby include_all" => -> { absent.each_slice(BATCH) { |slice| theirs.include_all(slice) } }
  }
  counts = jobs.keys.to_h { |name| [name, name.include?("_all") ? KEYS : singles] }
  best = best_times(jobs, rounds: ROUNDS)
  best.default = nil

  ours_fp = ours.count_included(absent).fdiv(KEYS)
  theirs_fp = theirs.include_all(absent).count(true).fdiv(KEYS)
  rows = ["add", "include? hit", "include? miss", "add_all", "include_all"].map do |op|
    mine = counts["bloomc #{op}"] / best["bloomc #{op}"]
    other = counts["ruby #{op}"] / best["ruby #{op}"]
    looped = best["loop #{op}"] && counts["loop #{op}"] / best["loop #{op}"]
    [op, mine.round, looped&.round || "-", other.round, looped ? format("%.1fx", mine / looped) : "-", format("%.1fx", mine / other)]
  end
  print_table("Redis Bloom filter over loopback (#{where}), m=#{ours.m} k=#{ours.k}, #{KEYS} keys; batches of #{BATCH}",
              ["operation", "bloomc ops/s", "Ruby loop ops/s", "Ruby pipelined ops/s", "vs loop", "vs pipelined"], rows)
  puts format("false positives over %d absent keys: bloomc %.2f%%, Ruby CRC32 %.2f%% (target 1%%)", KEYS, ours_fp * 100, theirs_fp * 100)
  ours.destroy
  theirs.clear
end
