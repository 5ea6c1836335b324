# frozen_string_literal: true

require "spec_helper"
require "open3"
require "rbconfig"
require "timeout"
require "tmpdir"

# Every ```ruby block of README.md and docs/*.md runs as written (issue 35:
# blocks used data they never defined, and a reader's paste stopped at
# "undefined local variable or method"). The rules a block follows:
#
# - It stands alone: it runs by itself, in a fresh Ruby (the bundle's, with
#   lib/ on the load path) in an empty temporary directory, with nothing
#   loaded: it requires what it uses (bloomc, bloomc/redis, bloomc/rack),
#   defines the data it uses and writes the files it reads, so that a
#   reader can paste it into plain `ruby`. The directory holds an empty
#   filters/, the one the RackApp examples serve. A failure names the
#   document's line and shows the block's stderr.
# - A line that ends in "# => VALUE", VALUE a plain literal (true, false,
#   nil, a number, a String, an Array of them) that ends the comment or is
#   followed by ":", ";", "," or " (", is checked: its statement's value must
#   == VALUE (DocSnippets.with_checks). Other "# =>" comments are prose.
# - A block that uses Redis finds its servers in REDIS_URL (which Redis.new
#   reads when given no URL) and REDIS_CLUSTER_NODES (the masters' URLs,
#   comma-separated): the spec's own servers (spec/support/redis.rb), the
#   standalone one flushed before each block. It names no other server
#   (a "redis://" URL but as ENV.fetch's default for those two), so that it
#   never writes to a Redis the spec does not own.
# - A block that reads FILTERS_URL gets `bloomc serve filters/` running in
#   its directory, at that URL.
# - A block fenced ```ruby config.ru is a rackup file: it is built by
#   Rack::Builder and must answer GET / without a server error.
# - A block fenced ```ruby norun is not run (an irb transcript, a Rails
#   initializer): each shows here as pending, so that they stay few.
RSpec.describe "The Ruby blocks of the README and docs/" do
  root = File.expand_path("../..", __dir__)
  lib = File.join(root, "lib")
  runner = File.join(root, "spec", "support", "doc_snippets", "run.rb")

  # [stdout, stderr, status] of argv run in dir with stdin_data on stdin;
  # killed after seconds.
  def run_for(env, argv, dir, stdin_data, seconds)
    Open3.popen3(env, *argv, chdir: dir) do |stdin, stdout, stderr, wait|
      out = Thread.new { stdout.read }
      err = Thread.new { stderr.read }
      stdin.write(stdin_data)
      stdin.close
      unless wait.join(seconds)
        Process.kill("KILL", wait.pid)
        wait.join
        return [out.value, "#{err.value}\n(killed after #{seconds} s)", wait.value]
      end
      [out.value, err.value, wait.value]
    end
  end

  # The environment that gives the block its Redis servers; skips the
  # example where there are none (but in CI, where that fails).
  def redis_env(snippet)
    own = snippet.code.gsub(/ENV\.fetch\("(?:REDIS_URL|REDIS_CLUSTER_NODES)", "[^"]*"\)/, "")
    raise "#{snippet.where} names a Redis server: use Redis.new, which reads REDIS_URL, or ENV.fetch(\"REDIS_URL\", URL)" if own.include?("redis://")

    reason = RedisSpecSupport.unavailable
    raise "BLOOMC_REDIS_REQUIRED=1 but #{reason}" if reason && RedisSpecSupport.required?

    skip "#{snippet.where} uses Redis: #{reason}" if reason

    RedisSpecSupport.flushdb
    env = { "REDIS_URL" => RedisSpecSupport.url }
    return env unless snippet.code.include?("REDIS_CLUSTER_NODES")

    nodes = RedisSpecSupport.cluster_nodes
    skip "#{snippet.where} uses a Redis Cluster: none is running (BLOOMC_REDIS_CLUSTER)" if nodes.empty? && !RedisSpecSupport.required?
    env.merge("REDIS_CLUSTER_NODES" => nodes.join(","))
  end

  # `bloomc serve DIR/filters` on a free port, for FILTERS_URL.
  include ServeProcess

  after { stop_serve }

  snippets = DocSnippets.all(root)

  it "finds the blocks" do
    expect(snippets.map(&:path).uniq).to include("README.md", "docs/FILTERS.md", "docs/HTTP.md")
  end

  snippets.each do |snippet|
    unless snippet.run?
      it("#{snippet.where} (not run: ```ruby #{snippet.options.join(' ')})") { skip "fenced as not run" }
      next
    end

    it "#{snippet.where} runs as written" do
      if snippet.rack? && !OptionalGems.installed?("rack") && !ENV["BLOOMC_RACK_REQUIRED"]
        skip "#{snippet.where} needs the rack gem, which is not installed"
      end
      env = snippet.redis? ? redis_env(snippet) : {}
      Dir.mktmpdir("bloomc-doc") do |dir|
        Dir.mkdir(File.join(dir, "filters"))
        if snippet.code.include?("FILTERS_URL")
          skip "the rack and puma gems are not installed" unless OptionalGems.installed?("rack", "puma") || ENV["BLOOMC_SERVE_REQUIRED"]
          env["FILTERS_URL"] = start_serve(File.join(dir, "filters")).chomp("/")
        end
        argv = [RbConfig.ruby, "-I", lib, runner, snippet.path, snippet.first_code_line.to_s]
        argv << "config.ru" if snippet.rackup?
        out, err, status = run_for(env, argv, dir, DocSnippets.with_checks(snippet), 120)
        expect(status.success?).to be(true),
                                   "#{snippet.where} failed (#{status}):\n#{err}#{"\nstdout:\n#{out}" unless out.empty?}"
      end
    end
  end
end
