# frozen_string_literal: true

# `bloomc dedup` on a file of many lines with many duplicates, against
# `awk '!seen[$0]++'` and `sort -u` on the same file, in one run: wall time
# and peak memory (GNU time's maximum resident set) of each, output to
# /dev/null. awk keeps every distinct line, so its memory grows with them;
# bloomc's is its filter's, fixed by --capacity and --error.
#
# Then `bloomc query --delimiter , --fields 1,3` against DCSO's `bloom
# check` with the same split (Debian package golang-github-dcso-bloom-cli;
# its fields count from 0): the lines of a CSV log whose first or third
# field is in a published list of indicators, each tool with its own filter
# of the same list at the same rate. Issue 23's target: bloomc at least 1.5x
# bloom's throughput.
#
#   CLI_BENCH_LOG_LINES=1000000  lines of the log
#
#   CLI_BENCH_LINES=10000000    lines in the file
#   CLI_BENCH_DISTINCT=1000000  distinct lines among them
#
# Run with `bundle exec rake bench:cli`.

require "tmpdir"
require_relative "support"

include BenchSupport

LINES = Integer(ENV.fetch("CLI_BENCH_LINES", "10000000"))
LOG_LINES = Integer(ENV.fetch("CLI_BENCH_LOG_LINES", "1000000"))
INDICATORS = 100_000
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

# query --fields against DCSO's bloom check on one log and one list.
Dir.mktmpdir do |dir|
  unless system("command -v bloom > /dev/null")
    puts "\nDCSO's bloom is not installed (apt-get install golang-github-dcso-bloom-cli): query --fields not compared"
    next
  end

  rng = Random.new(11)
  indicators = Array.new(INDICATORS) { |i| "#{rng.bytes(5).unpack1('H*')}.example-#{i}" }
  list = File.join(dir, "indicators.txt")
  File.write(list, indicators.join("\n") << "\n")
  log = File.join(dir, "log.csv")
  File.open(log, "wb") do |f|
    (LOG_LINES / 100_000).times do
      f.write(Array.new(100_000) do |i|
        host = (i % 50).zero? ? indicators[rng.rand(INDICATORS)] : "#{rng.bytes(5).unpack1('H*')}.example"
        "#{(i % 97).zero? ? indicators[rng.rand(INDICATORS)] : rng.rand(2**32)},GET /#{rng.rand(1000)},#{host},#{rng.rand(600)}"
      end.join("\n") << "\n")
    end
  end
  lib = File.expand_path("../lib", __dir__)
  system("ruby -I#{lib} #{EXE} build --kind bloom --capacity #{INDICATORS} --error 0.001 -o #{dir}/ours.bloom #{list}", exception: true)
  system("bloom create -p 0.001 -n #{INDICATORS} #{dir}/dcso.bloom < #{list}", exception: true)
  jobs = {
    "bloomc query -d , -f 1,3" => "ruby -I#{lib} #{EXE} query -d , -f 1,3 #{dir}/ours.bloom",
    "bloom -s -d , -f 0,2 check (DCSO)" => "bloom -s -d , -f 0,2 check #{dir}/dcso.bloom"
  }
  rows = jobs.map do |name, command|
    runs = Array.new(3) { measure(command, log) }
    seconds, mb, out = runs.min_by(&:first)
    [name, format("%.2f", seconds), format("%.0f", mb), out, format("%.0f", LOG_LINES / seconds)]
  end
  rows.each { |row| row << format("%.2fx", rows[1][1].to_f / Float(row[1])) }
  print_table("Matching #{LOG_LINES} CSV lines' fields 1 and 3 against #{INDICATORS} indicators at 0.1% (fastest of 3)",
              ["command", "seconds", "peak MB", "lines out", "lines/s", "speed vs bloom"], rows)
  ratio = rows[1][1].to_f / Float(rows[0][1])
  puts format("target (issue 23): bloomc query --fields at least 1.5x bloom check: %.2fx, %s", ratio, ratio >= 1.5 ? "holds" : "DOES NOT HOLD")
end
