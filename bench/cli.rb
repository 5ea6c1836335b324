# frozen_string_literal: true

# `bloomc dedup` on a file of many lines with many duplicates, against
# `awk '!seen[$0]++'` and `sort -u` on the same file, in one run: wall time
# and peak memory (GNU time's maximum resident set) of each, output to
# /dev/null. awk keeps every distinct line, so its memory grows with them;
# bloomc's is its filter's, fixed by --capacity and --error.
#
#   CLI_BENCH_LINES=10000000    lines in the file
#   CLI_BENCH_DISTINCT=1000000  distinct lines among them
#
# Run with `bundle exec rake bench:cli`.

require "tmpdir"
require_relative "support"

include BenchSupport

LINES = Integer(ENV.fetch("CLI_BENCH_LINES", "10000000"))
DISTINCT = Integer(ENV.fetch("CLI_BENCH_DISTINCT", "1000000"))
EXE = File.expand_path("../exe/bloomc", __dir__)
TIME = "/usr/bin/time"

abort "#{TIME} (GNU time, package `time`) measures peak memory: install it" unless File.executable?(TIME)

# Runs a shell command under GNU time; returns [seconds, peak MB, output lines].
def measure(command, input)
  report = File.join(Dir.tmpdir, "bloomc-bench-time-#{Process.pid}")
  counted = IO.popen([TIME, "-f", "%e %M", "-o", report, "sh", "-c", "#{command} < '#{input}' | wc -l"], &:read).to_i
  seconds, kib = File.read(report).split.map(&:to_f)
  [seconds, kib / 1024, counted]
ensure
  File.delete(report) if report && File.exist?(report)
end

Dir.mktmpdir do |dir|
  input = File.join(dir, "lines.txt")
  started = now
  rng = Random.new(7)
  distinct = Array.new(DISTINCT) { |i| "#{rng.bytes(6).unpack1('H*')}-#{i}" }
  File.open(input, "wb") do |f|
    (LINES / 100_000).times { f.write(Array.new(100_000) { distinct[rng.rand(DISTINCT)] }.join("\n") << "\n") }
  end
  puts format("%d lines (%d distinct), %.0f MB, written in %.1f s", LINES, DISTINCT, File.size(input) / 1e6, now - started)

  capacity = DISTINCT * 2
  lib = File.expand_path("../lib", __dir__)
  awk = File.basename(File.realpath(ENV.fetch("PATH").split(":").map { |d| File.join(d, "awk") }.find { |f| File.executable?(f) }))
  jobs = {
    "bloomc dedup (--capacity #{capacity}, --error 1e-6)" => "ruby -I#{lib} #{EXE} dedup --capacity #{capacity} --error 1e-6",
    "awk '!seen[$0]++' (#{awk})" => "awk '!seen[$0]++'",
    "sort -u" => "LC_ALL=C sort -u -S 25%"
  }
  rows = jobs.map do |name, command|
    seconds, mb, out = measure(command, input)
    [name, format("%.2f", seconds), format("%.0f", mb), out]
  end
  base = rows[1][1].to_f
  rows.each { |row| row << format("%.2fx", base / row[1].to_f) }
  print_table("Deduplicating #{LINES} lines, #{DISTINCT} distinct", ["command", "seconds", "peak MB", "lines out", "speed vs awk"], rows)
end
