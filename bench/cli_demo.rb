# frozen_string_literal: true

# The main job, with the bloomc command as a user runs it: an access log of
# two million requests over half a million URLs is deduplicated with
# `bloomc dedup`, a filter of its URLs is built with `bloomc build` and
# described with `bloomc info`, and `bloomc query` is asked about 200,000
# URLs the log never had. Prints each command, its time, and what it found
# against the exact answer. Run with `bundle exec rake demo`
# (DEMO_LINES=n for another size).

require "set"
require "tmpdir"
require "open3"

LINES = Integer(ENV.fetch("DEMO_LINES", "2000000"))
DISTINCT = LINES / 4
EXE = [RbConfig.ruby, "-I", File.expand_path("../lib", __dir__), File.expand_path("../exe/bloomc", __dir__)].freeze

def now = Process.clock_gettime(Process::CLOCK_MONOTONIC)

# Runs bloomc with args, stdin from +input+ (a path) or none; returns stdout.
def bloomc(*args, input: nil)
  shown = args.map { |arg| arg.start_with?("/") ? File.basename(arg) : arg }
  shown = shown.size > 10 ? "#{shown.first(3).join(' ')} ... (#{shown.size - 3} URLs)" : shown.join(" ")
  started = now
  out, err, status = Open3.capture3(*EXE, *args, stdin_data: input ? File.binread(input) : "", binmode: true)
  abort "bloomc #{shown} failed (#{status.exitstatus}): #{err}" unless [0, 1].include?(status.exitstatus)
  puts format("$ bloomc %-60s %6.2f s", shown + (input ? " < #{File.basename(input)}" : ""), now - started)
  out
end

Dir.mktmpdir do |dir|
  rng = Random.new(2026)
  urls = Array.new(DISTINCT) { |i| "https://shop-#{i % 300}.example.org/items/#{i}?ref=#{rng.rand(1 << 30).to_s(36)}" }
  log = File.join(dir, "access.log")
  # Popular pages come back often: a URL's chance falls with its rank.
  File.open(log, "wb") do |f|
    LINES.times.each_slice(100_000) do |slice|
      f.write(slice.map { urls[(DISTINCT * (rng.rand**2.5)).to_i] }.join("\n") << "\n")
    end
  end
  distinct = File.foreach(log).to_set.size
  puts "an access log of #{LINES} requests, #{distinct} distinct URLs (#{File.size(log) / 1_000_000} MB)"
  puts

  out = bloomc("dedup", "--capacity", DISTINCT.to_s, "--error", "1e-6", log)
  kept = out.count("\n")
  puts "  #{kept} lines out, #{distinct} distinct in: #{distinct - kept} unique lines taken for repeats " \
       "(expected about #{(distinct * 1e-6).round(2)} at 1e-6)"

  filter = File.join(dir, "urls.bloom")
  bloomc("build", "--capacity", DISTINCT.to_s, "--error", "0.001", "-o", filter, log)
  puts bloomc("info", filter).gsub(/^/, "  ")

  unseen = File.join(dir, "unseen.txt")
  File.binwrite(unseen, Array.new(200_000) { |i| "https://shop-#{i % 300}.example.org/items/#{DISTINCT + i}?ref=new\n" }.join)
  found = bloomc("query", filter, input: unseen).count("\n")
  puts format("  %d of 200000 never-seen URLs reported present: %.3f%% (target 0.1%%)", found, found / 2000.0)
  sample = File.foreach(log).first(1000).map(&:chomp).uniq
  missing = bloomc("query", "--invert", filter, *sample.first(200)).count("\n")
  puts "  #{missing} of #{sample.first(200).size} logged URLs reported absent (must be 0)"
  abort "a logged URL was lost" unless missing.zero?
end
