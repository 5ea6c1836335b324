# frozen_string_literal: true

# `BASE=<rev> [HEAD=<rev>] bundle exec rake bench:ab`: an interleaved A/B of
# two builds of the extension, for "no loss" checks (issue 33): is the head
# within 1.05x of the base, row by row?
#
#   BASE=rev           the build before (required): any git revision
#   HEAD=rev           the build after; default the working tree (its lib/
#                      and ext/, committed or not)
#   AB_ALTERNATIONS=n  alternations of one base run and one head run
#                      (default 7)
#   AB_ORDER=abba      the order in turn: base then head, head then base,
#                      and so on (default); abab: base first every time
#   AB_ROUNDS=n        rounds within one process, each row's fastest kept
#                      (default 15)
#   AB_CPU=n           the one core every timing process is pinned to
#                      (default 0; taskset where there is one)
#   AB_ALIGN=n         functions aligned to n bytes in both builds (default
#                      64; 0 leaves the compiler's own placement)
#
# Each side's lib/ and ext/ are copied into tmp/ab/ (git archive of a
# revision, or the working tree's files) and built there by their own
# extconf.rb and make, as `rake compile` does, release build, with
# -falign-functions=AB_ALIGN added to mkmf's CFLAGS for both (--with-cflags:
# no change to extconf.rb). Where functions land moves a single-key time by
# more than the 5% asked about (docs/PERFORMANCE.md: an unchanged include?
# took 72-75 ns instead of 60-63 only by where its functions landed), so both
# builds put every function on a cache line of its own start, and the report
# checks that they did. Where its pages land in physical memory matters as
# well, and for every process that loads the same file alike: the library is
# copied to a new file before each process (refresh_library). A revision's
# build is kept and reused; the working tree's is made afresh every run.
#
# Then every row (bench/ab_timing.rb: each filter kind both builds have,
# single keys and batches, cache-resident) is timed in a fresh process a
# side and an alternation, pinned to one core, base and head taking turns
# in turned order (in three A/A runs of base then head every time, the
# head's median came out above the base's in 45-46 of 53 rows, by 1.0-2.0%
# on average; with the order turned every other alternation, in 13), by the
# CPU time of the timing thread (a neighbour given the same core for a
# while does not count, its pollution of the caches does; each run says
# how much of its wall time it had the CPU). Each row's median over the
# alternations is compared, and the range of head/base within one
# alternation shows how far to trust it.

require "etc"
require "fileutils"
require "json"
require "open3"
require "rbconfig"

module AbBench
  module_function

  ROOT = File.expand_path("..", __dir__)
  WORK = File.join(ROOT, "tmp", "ab")
  TIMING = File.join(__dir__, "ab_timing.rb")
  LIMIT = 1.05
  # What changes a build (the Rakefile's build_env): unset for both sides,
  # so both are the release build.
  BUILD_VARIABLES = %w[BLOOMC_DEBUG BLOOMC_SANITIZE BLOOMC_FALLBACKS CONFIGURE_ARGS].freeze

  # label: "base" or "head"; rev: a revision, or nil for the working tree.
  Side = Struct.new(:label, :rev, :sha, :dir) do
    def name = rev ? "#{label} #{sha[0, 10]}#{" (#{rev})" unless sha.start_with?(rev)}" : "#{label} (working tree)"
    def lib = File.join(dir, "lib")
    def so = File.join(lib, "bloomc", "bloomc.so")
  end

  def git(*args)
    out, status = Open3.capture2("git", "-C", ROOT, *args)
    abort "bench:ab: git #{args.join(' ')} failed" unless status.success?
    out
  end

  def side(label, rev, align)
    return Side.new(label, nil, nil, File.join(WORK, "#{label}-worktree")) if rev.nil? || rev.empty?

    sha = git("rev-parse", "--verify", "#{rev}^{commit}").strip
    Side.new(label, rev, sha, File.join(WORK, "#{label}-#{sha[0, 12]}-align#{align}"))
  end

  def cflags(align)
    extra = align.positive? ? " -falign-functions=#{align}" : ""
    "#{RbConfig::CONFIG['CFLAGS']}#{extra}"
  end

  # The side's lib/ and ext/ in its directory, built; a revision's build is
  # reused when it was made with the same flags.
  def prepare(side, flags)
    stamp = File.join(side.dir, "ab-build-flags")
    return if side.rev && File.exist?(side.so) && File.exist?(stamp) && File.read(stamp) == flags

    FileUtils.rm_rf(side.dir)
    FileUtils.mkdir_p(side.dir)
    if side.rev
      Open3.pipeline(["git", "-C", ROOT, "archive", side.sha, "lib", "ext"], ["tar", "-x", "-C", side.dir])
           .all?(&:success?) or abort "bench:ab: git archive #{side.sha} failed"
    else
      files = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "lib", "ext").split("\0")
      files.each do |file|
        next unless File.file?(File.join(ROOT, file)) # deleted, not yet committed

        FileUtils.mkdir_p(File.join(side.dir, File.dirname(file)))
        FileUtils.cp(File.join(ROOT, file), File.join(side.dir, file))
      end
    end
    build(side, flags)
    File.write(stamp, flags)
  end

  def build(side, flags)
    build_dir = File.join(side.dir, "build")
    FileUtils.mkdir_p(build_dir)
    log = File.join(side.dir, "build.log")
    env = BUILD_VARIABLES.to_h { [_1, nil] }.merge("RUBYOPT" => nil)
    configured = system(env, RbConfig.ruby, File.join(side.dir, "ext/bloomc/extconf.rb"), "--with-cflags=#{flags}",
                        chdir: build_dir, out: log, err: %i[child out])
    made = configured && system(env, "make", "-j#{Etc.nprocessors}", chdir: build_dir, out: [log, "a"], err: %i[child out])
    abort "bench:ab: building #{side.name} failed; see #{log}" unless made
    FileUtils.cp(File.join(build_dir, "bloomc.so"), side.so)
  end

  # [on align-byte boundaries, all] of bloomc's own functions in the built
  # library (those its object files define; their .cold parts, split off by
  # GCC, and what libgcc and the C runtime link in are not aligned), or nil
  # without nm.
  def aligned_functions(side, align)
    own = Dir[File.join(side.dir, "build", "*.o")].flat_map { |object| function_symbols(object).map(&:last) }
    return nil if own.empty?

    addresses = function_symbols(side.so).filter_map { |address, name| address if own.include?(name) }.uniq
    [addresses.count { |a| (a % align).zero? }, addresses.size]
  end

  # [address, name] of every function defined in file, [] without nm.
  def function_symbols(file)
    out, status = Open3.capture2("nm", "--defined-only", file)
    return [] unless status.success?

    out.lines.filter_map do |line|
      address, type, name = line.split
      [address.hex, name] if type&.match?(/\A[tT]\z/) && !name.end_with?(".cold")
    end
  rescue SystemCallError
    []
  end

  # The side's library written anew, as a new file: every process that
  # loads a file shares its pages in the page cache, so a build whose pages
  # landed badly in physical memory (most likely: the caches beyond the
  # first are indexed by physical address) stays slow in every alternation.
  # Two builds of one commit, identical but for their debug paths, measured
  # one row 13% apart in all 7 alternations; a fresh copy of the slow one at
  # the same path measured as the other. A new file a process draws new
  # pages each time.
  def refresh_library(side)
    fresh = "#{side.so}.fresh"
    FileUtils.cp(side.so, fresh)
    File.rename(fresh, side.so)
  end

  def taskset?
    @taskset = system("sh", "-c", "command -v taskset", out: File::NULL) if @taskset.nil?
    @taskset
  end

  # The timing process of a side: a fresh Ruby outside the bundle (bloomc
  # needs only the standard library), pinned to cpu where taskset exists.
  def timing(side, mode, rows, cpu)
    refresh_library(side)
    pin = taskset? ? ["taskset", "-c", cpu.to_s] : []
    out, err, status = Open3.capture3({ "RUBYOPT" => nil }, *pin, RbConfig.ruby, TIMING, mode, side.lib, *rows)
    abort "bench:ab: #{side.name}'s #{mode} failed:\n#{err}" unless status.success?
    reply = JSON.parse(out.lines.last)
    abort "bench:ab: #{side.name} loaded #{reply['so']}" unless reply["so"] == side.so
    reply
  end

  def median(values)
    sorted = values.sort
    (sorted[(sorted.size - 1) / 2] + sorted[sorted.size / 2]) / 2.0
  end

  def load_averages
    File.read("/proc/loadavg").split.first(3).join(" ")
  rescue SystemCallError
    "n/a"
  end

  def print_report(sides, rows, runs)
    base, head = sides
    medians = sides.to_h { |s| [s.label, rows.to_h { |row| [row, median(runs[s.label].map { _1[row] })] }] }
    table = rows.map do |row|
      b = medians["base"][row]
      h = medians["head"][row]
      paired = runs["base"].zip(runs["head"]).map { |rb, rh| rh[row] / rb[row] }
      ratio = h / b
      kind, op = row.split(" ", 2)
      [kind, op, format("%.1f", b), format("%.1f", h), format("%.3f", ratio),
       format("%.2f-%.2f", paired.min, paired.max), ratio > LIMIT ? "ABOVE #{LIMIT}" : ""]
    end
    header = ["kind", "operation", "base ns", "head ns", "head/base", "paired range", ""]
    widths = header.each_index.map { |i| ([header[i]] + table.map { _1[i] }).map(&:size).max }
    line = ->(cells) { cells.each_with_index.map { |c, i| i < 2 || i == 6 ? c.ljust(widths[i]) : c.rjust(widths[i]) }.join("  ").rstrip }
    puts
    puts "ns per operation, median of #{runs['base'].size} alternations (each the fastest of " \
         "#{ENV.fetch('AB_ROUNDS', '15')} rounds in its process); paired range: head/base within each alternation"
    puts "  base = #{base.name}", "  head = #{head.name}"
    puts line.(header), line.(widths.map { "-" * _1 })
    table.each { puts line.(_1) }
    above = table.count { !_1.last.empty? }
    puts above.zero? ? "every row within #{LIMIT}x" : "#{above} of #{table.size} rows above #{LIMIT}x"
  end

  def run
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    base_rev = ENV.fetch("BASE", "")
    abort "bench:ab: BASE=<git revision> is required (HEAD=<revision> too, or the working tree is the head)" if base_rev.empty?
    alternations = Integer(ENV.fetch("AB_ALTERNATIONS", "7"))
    cpu = Integer(ENV.fetch("AB_CPU", "0"))
    align = Integer(ENV.fetch("AB_ALIGN", "64"))
    order = ENV.fetch("AB_ORDER", "abba")
    abort "bench:ab: AB_ORDER is abba or abab" unless %w[abba abab].include?(order)
    abort "bench:ab: AB_ALTERNATIONS must be at least 1" unless alternations.positive?

    sides = [side("base", base_rev, align), side("head", ENV.fetch("HEAD", nil), align)]
    flags = cflags(align)
    puts "bench:ab on ruby #{RUBY_VERSION}, #{Etc.nprocessors} cores, load #{load_averages}; CFLAGS for both: #{flags}"
    sides.each do |s|
      prepare(s, flags)
      boundary = align.positive? ? align : 64
      aligned, total = aligned_functions(s, boundary)
      placed = total ? "#{aligned} of its #{total} functions on #{boundary}-byte boundaries" : "no nm: alignment not checked"
      puts "  #{s.name}: #{s.so.delete_prefix("#{ROOT}/")} (#{placed})"
    end

    listed = sides.map { |s| timing(s, "list", [], cpu)["rows"] }
    rows = listed[0] & listed[1]
    ((listed[0] | listed[1]) - rows).each { |row| puts "  not in both builds, so not timed: #{row}" }
    pinned = taskset? ? "pinned to core #{cpu}" : "not pinned (no taskset)"
    turns = order == "abba" ? "base then head, then head then base" : "base then head"
    puts "#{rows.size} rows, #{alternations} alternation#{'s' unless alternations == 1} (#{turns}), " \
         "each run a fresh process #{pinned}"

    runs = { "base" => [], "head" => [] }
    alternations.times do |i|
      laps = (order == "abba" && i.odd? ? sides.reverse : sides).map do |s|
        lap = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        reply = timing(s, "time", rows, cpu)
        runs[s.label] << reply["ns"]
        format("%s %.1f s, %.0f%% on the CPU", s.label, Process.clock_gettime(Process::CLOCK_MONOTONIC) - lap, 100 * reply["on_cpu"])
      end
      puts "  alternation #{i + 1} of #{alternations}: #{laps.join('; ')} (load #{load_averages})"
    end

    print_report(sides, rows, runs)
    FileUtils.mkdir_p(WORK)
    File.write(File.join(WORK, "last.json"),
               JSON.pretty_generate(sides.to_h { |s| [s.label, { "name" => s.name, "sha" => s.sha, "runs" => runs[s.label] }] }))
    puts format("(bench:ab took %.0f s; every run's numbers in %s)", Process.clock_gettime(Process::CLOCK_MONOTONIC) - started,
                File.join(WORK, "last.json").delete_prefix("#{ROOT}/"))
  end
end

AbBench.run if $PROGRAM_NAME == __FILE__
