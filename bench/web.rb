# frozen_string_literal: true

require "json"
require "net/http"
require "open3"
require "rbconfig"
require "timeout"
require "tmpdir"

require_relative "support"
require_relative "http"
require_relative "js_reader"

# The web part of `rake bench` (issue 22), in the same process as the rest:
# bytes on the wire (bench/http.rb); requests a second of `bloomc serve` for
# 200, 304, gzip and range answers, measured by wrk (Debian's package) over
# loopback on this machine, beside Rack's ConditionalGet and Deflater in the
# app's place (issue 35) and a floor of the same run: a bare Rack lambda on
# Puma with the same threads, answering 304 with nothing to do; and the
# JavaScript reader's lookups a second in Node beside Ruby's include?
# (bench/js_reader.rb).
#
#   ruby -Ilib bench/web.rb (rake bench:web)
module WebBench
  module_function

  ROOT = File.expand_path("..", __dir__)
  SECONDS = 5
  # wrk's threads and connections: one thread leaves the other core to the
  # server; 16 connections keep Puma's threads busy.
  WRK = %w[-t1 -c16].freeze

  # The seed document's example: a BloomFilter for 3,000 keys at 1%, full.
  def example_filter
    Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01).add_all(Array.new(3000) { |i| "user-#{i}" })
  end

  # { wire:, serve:, js: } for targets.
  def run(rounds:)
    { wire: WireBench.run, serve: serve_rates, js: (JsReaderBench.run(rounds: rounds) if node?) }
  end

  def node? = system("#{JsReaderBench::NODE} --version", out: File::NULL, err: File::NULL)

  # The files bloomc serve is measured on: the example filter (full: not
  # gzipped) and a sparse one, 1M at 1% holding 1,000 keys (1.2 MB, 16 KB
  # gzipped).
  def bench_dir(dir)
    example_filter.save(File.join(dir, "changed.bloom"))
    Bloomc::BloomFilter.new(capacity: 1_000_000, error_rate: 0.01).add_all(Array.new(1000) { |i| "key-#{i}" })
                       .save(File.join(dir, "sparse.bloom"))
  end

  GZIP = "Accept-Encoding: gzip"

  def serve_rates
    puts "\n== bloomc serve: requests a second (wrk #{WRK.join(' ')} -d#{SECONDS}s over loopback)"
    return puts("   wrk is not installed (apt-get install wrk): not measured") || {} unless system("command -v wrk > /dev/null")

    Dir.mktmpdir do |dir|
      bench_dir(dir)
      rates = {}
      serving("bloomc serve", [RbConfig.ruby, "-I#{ROOT}/lib", "#{ROOT}/exe/bloomc", "serve", "--port", "0", dir]) do |url|
        etag = Net::HTTP.get_response(URI("#{url}changed"))["etag"]
        rates["serve 200"] = wrk("#{url}changed")
        rates["serve 304"] = wrk("#{url}changed", "If-None-Match: #{etag}")
        rates["serve gzip 200 (sparse, 1.2 MB)"] = wrk("#{url}sparse", GZIP)
        rates["serve 206 (bytes=0-99)"] = wrk("#{url}sparse", "Range: bytes=0-99")
      end
      rates.merge!(rack_rates(dir))
      serving("bare lambda", [RbConfig.ruby, "-I#{ROOT}/lib", "-e", BARE_LAMBDA]) { |url| rates["bare lambda 304"] = wrk(url) }
      print_table("requests a second", ["", "req/s"], rates.map { |name, rate| [name, rate ? format("%.0f", rate) : "n/a"] })
      rates
    end
  end

  # Rack's middleware in the place of the app's own pieces, one at a time,
  # each on a server like bloomc serve's: what keeping the app's own log,
  # conditional GET and gzip saves.
  def rack_rates(dir)
    rates = {}
    rack = ->(piece, &block) { serving(piece, [RbConfig.ruby, "-I#{ROOT}/lib", "-e", RACK_MIDDLEWARE, dir, piece], &block) }
    etag = nil
    rack.call("logger") do |url|
      etag = Net::HTTP.get_response(URI("#{url}changed"))["etag"]
      rates["Rack::CommonLogger 200"] = wrk("#{url}changed")
      rates["Rack::CommonLogger 304"] = wrk("#{url}changed", "If-None-Match: #{etag}")
    end
    rack.call("conditional") { |url| rates["Rack::ConditionalGet 304"] = wrk("#{url}changed", "If-None-Match: #{etag}") }
    rack.call("deflater") { |url| rates["Rack::Deflater gzip 200 (sparse, 1.2 MB)"] = wrk("#{url}sparse", GZIP) }
    rates
  end

  # A server script: +setup+, then the Rack app +app+ (Ruby source) on Puma
  # with the threads bloomc serve uses, on a free loopback port, its URL
  # printed on stderr after +label+.
  def self.puma_script(label, app, setup = "")
    <<~RUBY
      require "bloomc/serve"
      #{setup}
      server = Puma::Server.new(#{app}, nil, min_threads: 1, max_threads: Bloomc::Serve::THREADS,
                                log_writer: Puma::LogWriter.null, environment: "production")
      server.add_tcp_listener("127.0.0.1", 0)
      $stderr.puts "#{label} at http://127.0.0.1:\#{server.connected_ports.first}/"
      trap("INT") { exit }
      server.run.join
    RUBY
  end

  # A Rack lambda that answers 304 with nothing to do: the most a Ruby
  # server answers here.
  BARE_LAMBDA = puma_script("bare lambda", "->(_env) { [304, {}, []] }")

  # bloomc serve's stack with one of Rack's pieces in the place of the
  # app's own: logger, Rack::CommonLogger for bloomc serve's request log;
  # conditional or deflater, Rack::ConditionalGet or Rack::Deflater (per
  # request, at zlib's default) over Bloomc::RackApp asked without the
  # request's validators and Accept-Encoding, so that it answers 200 with
  # the identity bytes.
  RACK_MIDDLEWARE = puma_script("Rack's middleware", "stack", <<~RUBY)
    $stdout.sync = true
    app = Bloomc::RackApp.new(ARGV.fetch(0))
    plain = lambda do |env|
      app.call(env.reject { |key, _| %w[HTTP_ACCEPT_ENCODING HTTP_IF_NONE_MATCH HTTP_IF_MODIFIED_SINCE].include?(key) })
    end
    stack = case ARGV.fetch(1)
            when "logger" then Rack::CommonLogger.new(app, $stdout)
            when "conditional" then Bloomc::Serve::RequestLog.new(Rack::ConditionalGet.new(plain), $stdout)
            when "deflater" then Bloomc::Serve::RequestLog.new(Rack::Deflater.new(plain), $stdout)
            end
  RUBY

  # Runs +command+, a server that prints its URL on stderr, and yields the
  # URL; its request log (stdout) is thrown away.
  def serving(name, command)
    err, writer = IO.pipe
    pid = Process.spawn(*command, in: File::NULL, out: File::NULL, err: writer)
    writer.close
    line = Timeout.timeout(30) { err.gets }
    raise "#{name} did not start: #{line}" unless line&.include?("http://")

    yield line[%r{http://\S+/}]
  ensure
    Process.kill("INT", pid) if pid
    Process.wait(pid) if pid
    err&.close
  end

  # Requests a second by wrk, nil when it failed.
  def wrk(url, *headers)
    args = ["wrk", *WRK, "-d#{SECONDS}s", *headers.flat_map { |header| ["-H", header] }, url]
    out, status = Open3.capture2e(*args)
    return nil unless status.success? && !out.include?("Socket errors") && !out.match?(/Non-2xx or 3xx responses/)

    out[%r{Requests/sec:\s+([\d.]+)}, 1]&.to_f
  end

  def targets(res, row:)
    rate = res[:serve]["serve 304"]
    floor = res[:serve]["bare lambda 304"]
    checks = { "304s" => rate && [format("%.0f/s", rate), rate >= 3000] }
    checks["(bare lambda #{floor ? format('%.0f/s', floor) : 'n/a'})"] = nil
    rows = [row.("bloomc serve: conditional GETs answered 304, a second", ">= 3,000/s", checks)]
    js = (res[:js] || {}).flat_map do |name, by|
      by.map { |which, (rate_js, _)| ["#{name} #{which}", [format("%.2fM/s", rate_js / 1e6), rate_js >= JsReaderBench::TARGET]] }
    end
    rows << row.("JavaScript reader: has() on 40-byte keys in Node", ">= 3M/s", js.empty? ? { "node" => nil } : js.to_h)
  end
end

if $PROGRAM_NAME == __FILE__
  require "bloomc"
  include BenchSupport

  res = WebBench.run(rounds: Integer(ENV.fetch("BENCH_ROUNDS", "5")))
  print_targets_alone(WebBench, res)
end
