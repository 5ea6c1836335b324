# frozen_string_literal: true

require "rbconfig"

# A fresh filter gets fresh pages, as the first one in a process does:
# otherwise glibc raises its mmap threshold to each large block freed (up to
# 32 MiB), and the next 1 or 16 MiB filter reuses pages already resident,
# with none of the first-touch faults this bench is about.
if $PROGRAM_NAME == __FILE__ && !ENV.key?("MALLOC_MMAP_THRESHOLD_")
  exec({ "MALLOC_MMAP_THRESHOLD_" => "131072" }, RbConfig.ruby, "-I", File.expand_path("../lib", __dir__), __FILE__)
end

require "etc"
require "fileutils"
require "tmpdir"

require "bloomc"
require_relative "support"

# `rake bench:scale` (issue 24): what a key costs as the filter grows from
# 1 MiB to 4 GiB of cells, for BloomFilter, BlockedBloomFilter and
# ContinuousBloomFilter (k = 7, 25-byte keys), all in one process:
#
#   first fill    add_all of N fresh keys into a fresh filter
#   steady adds   add_all of the next N keys
#   count misses  count_included of N keys never added
#   include? miss include? in a Ruby loop over up to 1M of those keys, beside
#                 the one-probe floor of the same m (BenchSupport.one_probe_filter)
#   threads       add_all and count_included with threads: 1 and 2, in turn, 3 times
#   RSS           resident memory the filter added (VmRSS after its adds
#                 minus before it was made)
#
# then again with prefault: true on new, and with Bloomc.use_huge_pages! in
# a forked child at 256 MiB and 1 GiB (huge pages change the whole process;
# the peak is twice a size: the floor lives beside the filter). Features not in this
# build yet are printed as n/a. Writes the tables as Markdown and the curve
# as a PNG (gnuplot).
#
#   BLOOMC_SCALE_SIZES=1M,16M   only these sizes (of 1M 16M 256M 1G 4G)
#   BLOOMC_SCALE_QUICK=1        a run of a few seconds (small N, 1 MiB), for the spec
#   BLOOMC_SCALE_ROUNDS=n       fresh filters a size and class; the fastest of each counts (default 2)
#   BLOOMC_SCALE_OUT=dir        where scale.md and scale.png go (default: tmp/scale.md
#                               and docs/scale.png; tmp/scale-quick/ in a quick run)
#   BLOOMC_SCALE_BUILD=1        also time `bloomc build` of 100M keys against main's 63.6 s
#                               (BLOOMC_SCALE_BUILD_KEYS=n for fewer)
module ScaleBench
  extend BenchSupport

  module_function

  ROOT = File.expand_path("..", __dir__)
  MIB = 1 << 20
  SIZES = { "1M" => MIB, "16M" => 16 * MIB, "256M" => 256 * MIB, "1G" => 1024 * MIB, "4G" => 4096 * MIB }.freeze
  K = 7
  TTL = 3600 # no timer: nothing expires while timed
  QUICK = ENV["BLOOMC_SCALE_QUICK"] == "1"
  # 4M keys at 1 GiB is the first-fill target's; smaller filters get 1 key
  # per 20 bits a batch, so that after both adds they hold ~1% FPR's load
  # and a miss still stops at its first zero most of the time.
  MAX_N = QUICK ? 20_000 : 4_000_000
  SAMPLE = QUICK ? 20_000 : 1_000_000 # keys of the include? loops
  ROUNDS = Integer(ENV.fetch("BLOOMC_SCALE_ROUNDS", QUICK ? "1" : "2"))
  THREAD_REPEATS = QUICK ? 1 : 3
  # The huge-page child measures 256 MiB and 1 GiB, the sizes issue 24 asks
  # about (every size chosen in a quick run): 4 GiB would add two minutes.
  HUGE_SIZES = %w[256M 1G].freeze
  BUILD_BASELINE = 63.6 # s: `bloomc build` of 100M keys on main before issue 24

  # name => [class, cells a byte, how to make one of so many cells]
  CLASSES = {
    "BloomFilter" => [Bloomc::BloomFilter, 8, ->(m, **o) { Bloomc::BloomFilter.new(m, K, **o) }],
    "BlockedBloomFilter" => [Bloomc::BlockedBloomFilter, 8, ->(m, **o) { Bloomc::BlockedBloomFilter.new(m, K, **o) }],
    # 4-bit buckets: two a byte.
    "ContinuousBloomFilter" => [Bloomc::ContinuousBloomFilter, 2,
                                ->(m, **o) { Bloomc::ContinuousBloomFilter.new(m, K, TTL, **o) }]
  }.freeze

  def sizes
    names = ENV["BLOOMC_SCALE_SIZES"]&.split(",")&.map(&:strip) || (QUICK ? %w[1M] : SIZES.keys)
    unknown = names - SIZES.keys
    abort "BLOOMC_SCALE_SIZES: unknown #{unknown.join(', ')} (sizes: #{SIZES.keys.join(' ')})" if unknown.any?
    SIZES.slice(*names)
  end

  def keys_for(bytes) = [bytes * 8 / 20, MAX_N].min

  # The features other parts of issue 24 add; until they land, n/a.
  def threads?
    Bloomc::BloomFilter.new(64, 1).add_all([], threads: 1)
    true
  rescue ArgumentError # unknown keyword, or too many arguments
    false
  end

  def prefault?(name)
    CLASSES[name][2].call(1024, prefault: true)
    true
  rescue ArgumentError
    false
  end

  def huge_pages? = Bloomc.respond_to?(:use_huge_pages!)

  # kB lines of /proc/self/status and smaps_rollup, in MiB.
  def rss = proc_mib("/proc/self/status", "VmRSS")
  def huge_rss = proc_mib("/proc/self/smaps_rollup", "AnonHugePages")

  def proc_mib(file, field)
    File.read(file)[/^#{field}:\s+(\d+) kB/, 1]&.to_i&.fdiv(1024)
  rescue Errno::ENOENT
    nil
  end

  def thp_state
    process = File.read("/proc/self/status")[/^THP_enabled:\s+(\d)/, 1]
    system_wide = File.read("/sys/kernel/mm/transparent_hugepage/enabled")[/\[(\w+)\]/, 1]
    "THP for this process #{process == '0' ? 'off' : 'on'} (THP_enabled: #{process || '?'}), system-wide #{system_wide}"
  rescue Errno::ENOENT
    "THP unknown"
  end

  # No GC before a job: none allocates (the keys are made beforehand), and a
  # GC would age the filter (see release).
  def timed
    started = now
    yield
    now - started
  end

  # 25-byte keys, in the order they are used (reading them is sequential).
  # Without GC meanwhile: millions of Strings, all kept, would be marked
  # again and again as the heap grows.
  def make_keys(count, prefix)
    GC.disable
    Array.new(count) { |i| "#{prefix}#{i.to_s.rjust(21, '0')}".freeze }
  ensure
    GC.enable
  end

  # Frees the filter the caller just dropped (f = nil), big cells back to
  # the OS. A minor GC does it while the filter is still young, as it is
  # here, and does not mark the millions of keys a full one would (a second
  # or more each time); a full one if the RSS says the filter survived.
  def release(mib)
    before = rss
    GC.start(full_mark: false)
    GC.start if mib > 64 && before - rss < mib / 2
  end

  # Everything at one size for one class, on ROUNDS fresh filters (the
  # fastest of each measure counts): ns a key, and MiB for memory.
  def measure(name, bytes, keys, absent, threads:, floor: nil, prefault: false)
    n = keys_for(bytes)
    first = keys[0, n]
    nxt = keys[n, n]
    misses = absent[0, n]
    sample = absent[0, [n, SAMPLE].min]
    make = CLASSES[name][2]
    cells = bytes * CLASSES[name][1]
    best = Hash.new(Float::INFINITY)
    keep = ->(key, seconds, count) { best[key] = [best[key], seconds * 1e9 / count].min }
    memory = {}
    ROUNDS.times do
      before = rss
      huge_before = huge_rss
      f = nil
      keep.("new", timed { f = prefault ? make.(cells, prefault: true) : make.(cells) }, n)
      memory[:after_new] = rss - before
      keep.("first fill", timed { f.add_all(first) }, n)
      keep.("steady adds", timed { f.add_all(nxt) }, n)
      memory[:rss] = rss - before
      memory[:huge] = huge_rss && huge_before && huge_rss - huge_before
      unless prefault # prefault changes when pages are committed, not lookups
        keep.("count misses", timed { f.count_included(misses) }, n)
        keep.("include? miss", timed { sample.each { |key| f.include?(key) } }, sample.size)
        # The floor's loop right after, in the same moment's noise.
        keep.("floor", timed { sample.each { |key| floor.include?(key) } }, sample.size) if floor
        if threads
          # Both re-add the next keys: the same writes to the same cells.
          # Taken in turn, several times: two threads on this shared machine
          # vary by a fifth from moment to moment.
          THREAD_REPEATS.times do
            [1, 2].each do |t|
              keep.("add_all #{t}t", timed { f.add_all(nxt, threads: t) }, n)
              keep.("count #{t}t", timed { f.count_included(misses, threads: t) }, n)
            end
          end
        end
      end
      f = nil # released next
      release(memory[:rss])
    end
    { n: n, ns: best, memory: memory }
  end

  # One pass over sizes: { [size, class, variant] => measure, [size, "floor"] => ns }.
  def pass(sizes, keys, absent, label)
    threads = threads?
    res = {}
    sizes.each do |size, bytes|
      started = now
      # The one-probe floor of this size: include? misses in a BloomFilter
      # of the same bytes with k = 1 holding the first fill's keys, timed
      # beside each class's misses. It lives meanwhile: twice the size at
      # the peak.
      floor = one_probe_filter(bytes * 8, keys[0, keys_for(bytes)])
      CLASSES.each_key do |name|
        res[[size, name, :lazy]] = measure(name, bytes, keys, absent, threads: threads, floor: floor)
        res[[size, name, :prefault]] = measure(name, bytes, keys, absent, threads: false, prefault: true) if prefault?(name)
      end
      res[[size, "floor"]] = CLASSES.keys.map { |name| res[[size, name, :lazy]][:ns]["floor"] }.min
      floor = nil # released next
      release(bytes.fdiv(MIB))
      puts format("   %s: %s (N = %d) measured in %.0f s", label, size, keys_for(bytes), now - started)
    end
    res
  end

  # The huge-page rows, from a forked child (the setting is the process's).
  # nil when this build has no Bloomc.use_huge_pages!; a String when it
  # refused.
  def huge_pass(sizes, keys, absent)
    return nil unless huge_pages?

    reader, writer = IO.pipe
    pid = fork do
      reader.close
      result = begin
        Bloomc.use_huge_pages!
        puts "   child: #{thp_state}"
        pass(QUICK ? sizes : sizes.slice(*HUGE_SIZES), keys, absent, "huge pages")
      rescue Bloomc::Error => e # UnsupportedError where the system cannot
        "refused: #{e.message}"
      end
      writer.write(Marshal.dump(result))
      writer.close
      exit!(0) # no at_exit handlers of the parent's
    end
    writer.close
    data = reader.read
    reader.close
    Process.wait(pid)
    Marshal.load(data) # rubocop:disable Security/MarshalLoad -- our own child's data
  end

  # ------------------------------------------------------------ build

  # `bloomc build` of 100M distinct 24-byte lines into a filter sized for
  # 600M, as main's 63.6 s baseline was measured (GNU time's wall clock).
  def build
    count = Integer(ENV.fetch("BLOOMC_SCALE_BUILD_KEYS", "100000000"))
    Dir.mktmpdir("bloomc-scale") do |dir|
      keys = File.join(dir, "keys.txt")
      puts "\n== bloomc build: writing #{count} keys"
      system("awk", "BEGIN{for(i=0;i<#{count};i++) printf \"key%021d\\n\", i}", out: keys, exception: true)
      time = File.executable?("/usr/bin/time") ? ["/usr/bin/time", "-v"] : []
      err = File.join(dir, "time.txt")
      started = now
      # glibc's own mmap threshold, as the baseline had (see the top).
      system({ "MALLOC_MMAP_THRESHOLD_" => nil }, *time, RbConfig.ruby, "-I#{ROOT}/lib", "#{ROOT}/exe/bloomc",
             "build", "--capacity", (count * 6).to_s, "-o", File.join(dir, "f.bloom"), keys, err: err, exception: true)
      wall = now - started
      report = File.read(err)
      user = report[/User time \(seconds\): ([\d.]+)/, 1]
      sys = report[/System time \(seconds\): ([\d.]+)/, 1]
      peak = report[/Maximum resident set size \(kbytes\): (\d+)/, 1]
      puts format("   %.1f s wall%s%s%s", wall, user && ", #{user} s user, #{sys} s sys",
                  peak && format(", max RSS %.0f MB", peak.to_i / 1e3),
                  count == 100_000_000 ? format("; main before issue 24: %.1f s, %.2fx", BUILD_BASELINE, BUILD_BASELINE / wall) : "")
      { keys: count, wall: wall }
    end
  end

  # ------------------------------------------------------------ tables

  def fmt(x) = x&.finite? ? format("%.1f", x) : "n/a"
  def ratio(a, b) = a && b && a.finite? && b.finite? ? a / b : nil
  def fmt_x(r) = r ? format("%.2fx", r) : "n/a"

  def pages(mode) = mode == :huge ? "2 MiB" : "4 KiB"

  # [[size, mode, floor, { name => measure }]] over both passes.
  def grouped(res, huge)
    rows = []
    [[:base, res], [:huge, huge.is_a?(Hash) ? huge : {}]].each do |mode, r|
      r.keys.map(&:first).uniq.each do |size|
        rows << [size, mode, r[[size, "floor"]], CLASSES.keys.to_h { |name| [name, r[[size, name, :lazy]]] },
                 CLASSES.keys.to_h { |name| [name, r[[size, name, :prefault]]] }]
      end
    end
    rows
  end

  COST_HEADER = ["m", "class", "pages", "N", "first fill", "steady adds", "count misses", "include? miss",
                 "floor", "miss / floor", "RSS MiB", "in huge pages"].freeze

  def cost_rows(groups)
    groups.flat_map do |size, mode, _, by_class, _|
      by_class.map do |name, r|
        ns = r[:ns]
        [size, name, pages(mode), r[:n], fmt(ns["first fill"]), fmt(ns["steady adds"]), fmt(ns["count misses"]),
         fmt(ns["include? miss"]), fmt(ns["floor"]), fmt_x(ratio(ns["include? miss"], ns["floor"])), fmt(r[:memory][:rss]),
         fmt(r[:memory][:huge])]
      end
    end
  end

  THREAD_HEADER = ["m", "class", "pages", "add_all 1 thread", "2 threads", "2 / 1", "count_included 1 thread",
                   "2 threads", "2 / 1"].freeze

  def thread_rows(groups)
    groups.flat_map do |size, mode, _, by_class, _|
      by_class.map do |name, r|
        ns = r[:ns]
        add = ratio(ns["add_all 1t"], ns["add_all 2t"])
        count = ratio(ns["count 1t"], ns["count 2t"])
        [size, name, pages(mode), fmt(ns["add_all 1t"]), fmt(ns["add_all 2t"]), fmt_x(add),
         fmt(ns["count 1t"]), fmt(ns["count 2t"]), fmt_x(count)]
      end
    end
  end

  PREFAULT_HEADER = ["m", "class", "pages", "new, ns a key", "first fill", "new + first fill", "steady adds",
                     "(new + first) / steady", "RSS after new", "RSS MiB"].freeze

  def prefault_rows(groups)
    groups.flat_map do |size, mode, _, _, by_class|
      by_class.map do |name, r|
        next [size, name, pages(mode), *["n/a"] * 7] unless r

        ns = r[:ns]
        both = ns["new"] + ns["first fill"]
        [size, name, pages(mode), fmt(ns["new"]), fmt(ns["first fill"]), fmt(both), fmt(ns["steady adds"]),
         fmt_x(ratio(both, ns["steady adds"])), fmt(r[:memory][:after_new]), fmt(r[:memory][:rss])]
      end
    end
  end

  # [target, measured, limit, verdict]: holds, misses, or n/a. floor: [ratio,
  # whether it is within the limit] for a target that a floor of the same run
  # bounds: a miss above a floor past the limit is the floor's.
  def target(what, limit, checks, floor: nil)
    shown = checks.map { |label, (r, _)| [label, fmt_x(r)].reject(&:empty?).join(" ") }.join(", ")
    shown += " (floor #{fmt_x(floor.first)})" if floor&.first
    measured = checks.values.select(&:first)
    verdict = if measured.empty? then "n/a"
              elsif measured.all?(&:last) then measured.size < checks.size ? "holds where measured" : "holds"
              elsif floor&.first && !floor.last then "misses: floor past the limit"
              else "misses"
              end
    [what, shown, limit, verdict]
  end

  def target_rows(res, huge, built)
    ns = ->(r, size, name, op) { r.is_a?(Hash) && r[[size, name, :lazy]]&.dig(:ns, op) }
    check = ->(r, ok) { [r, r && ok.(r)] }
    plain = %w[BloomFilter BlockedBloomFilter]
    fill = lambda do |r|
      ratio(ns.(r, "1G", "BlockedBloomFilter", "first fill"), ns.(r, "1G", "BlockedBloomFilter", "steady adds"))
    end
    # The floor of a first fill: committing the pages (new with prefault:
    # true, the same run), then the next keys' adds.
    commit_floor = lambda do |r|
      commit = r.is_a?(Hash) && r[["1G", "BlockedBloomFilter", :prefault]]&.dig(:ns, "new")
      steady = ns.(r, "1G", "BlockedBloomFilter", "steady adds")
      commit && steady && ratio(commit + steady, steady)
    end
    n = keys_for(SIZES["1G"])
    rows = []
    rows << target("first fill / next add_all, 1 GiB BlockedBloomFilter, #{n} keys, 4 KiB pages", "<= 2.2x",
                   { "" => check.(fill.(res), ->(r) { r <= 2.2 }) }, floor: check.(commit_floor.(res), ->(r) { r <= 2.2 }))
    rows << target("the same with Bloomc.use_huge_pages!", "<= 1.5x", { "" => check.(fill.(huge), ->(r) { r <= 1.5 }) },
                   floor: check.(commit_floor.(huge), ->(r) { r <= 1.5 }))
    rows << target("add_all (first fill) a key at 1 GiB / at 1 MiB", "<= 3x",
                   plain.to_h do |name|
                     [name, check.(ratio(ns.(res, "1G", name, "first fill"), ns.(res, "1M", name, "first fill")), ->(r) { r <= 3 })]
                   end)
    { "add_all" => "add_all", "count_included" => "count" }.each do |op, key|
      rows << target("#{op} at 1 GiB, 2 threads / 1 (keys a second)", ">= 1.6x",
                     CLASSES.keys.to_h do |name|
                       [name, check.(ratio(ns.(res, "1G", name, "#{key} 1t"), ns.(res, "1G", name, "#{key} 2t")), ->(r) { r >= 1.6 })]
                     end)
    end
    speedup = built && built[:keys] == 100_000_000 ? BUILD_BASELINE / built[:wall] : nil
    rows << target("bloomc build of 100M keys, main's #{BUILD_BASELINE} s / now (BLOOMC_SCALE_BUILD=1)", ">= 2x",
                   { "" => check.(speedup, ->(r) { r >= 2 }) })
    rows
  end

  def markdown(title, header, rows)
    ["**#{title}**", "", "| #{header.join(' | ')} |", "|#{' --- |' * header.size}",
     *rows.map { |r| "| #{r.join(' | ')} |" }, ""].join("\n")
  end

  # ------------------------------------------------------------ plot

  OPS = ["first fill", "steady adds", "count misses", "include? miss"].freeze

  # ns a key against m, log-log: a colour a class, a dash an operation, the
  # floor in black. Returns the PNG's path, or nil without gnuplot.
  def plot(res, out)
    unless system("command -v gnuplot > /dev/null 2>&1")
      puts "\ngnuplot is not installed: #{out} not written (Debian/Ubuntu: apt-get install -y gnuplot-nox)"
      return nil
    end
    sizes = res.keys.map(&:first).uniq
    series = CLASSES.keys.product(OPS)
    data = sizes.map do |size|
      [SIZES[size] / MIB, res[[size, "floor"]], *series.map { |name, op| res[[size, name, :lazy]][:ns][op] }]
        .map { |x| x&.finite? ? x : "NaN" }.join(" ")
    end
    Dir.mktmpdir do |dir|
      dat = File.join(dir, "scale.dat")
      File.write(dat, "#{data.join("\n")}\n")
      lines = ["'#{dat}' using 1:2 with linespoints lw 3 lc rgb 'black' title 'one-probe floor (include? miss, k = 1)'"]
      colours = %w[#1f77b4 #d62728 #2ca02c]
      series.each_with_index do |(name, op), i|
        lines << "'#{dat}' using 1:#{i + 3} with linespoints lw 2 lc rgb '#{colours[CLASSES.keys.index(name)]}' " \
                 "dt #{OPS.index(op) + 1} title '#{name.delete_suffix('Filter')} #{op}'"
      end
      tics = sizes.map { |s| "\"#{s}iB\" #{SIZES[s] / MIB}" }.join(", ")
      script = <<~GNUPLOT
        set terminal pngcairo size 1100,700 font ",11"
        set output '#{out}'
        set title "bloomc: ns per key against the filter's size (k = 7, 25-byte keys, #{Etc.nprocessors} cores)"
        set xlabel "m (bytes of cells)"
        set ylabel "ns per key"
        set logscale xy
        set xtics (#{tics})
        set xrange [#{SIZES[sizes.first] / MIB / 2.0}:#{SIZES[sizes.last] / MIB * 2.0}]
        set grid
        set key outside right top
        plot #{lines.join(", \\\n     ")}
      GNUPLOT
      gp = File.join(dir, "scale.gp")
      File.write(gp, script)
      return out if system("gnuplot", gp)

      puts "gnuplot failed: #{out} not written"
      nil
    end
  end

  # ------------------------------------------------------------ run

  def run
    started = now
    chosen = sizes
    most = chosen.values.map { |bytes| keys_for(bytes) }.max
    puts "bloomc #{Bloomc::VERSION} on ruby #{RUBY_VERSION}, #{Etc.nprocessors} cores; k = #{K}, 25-byte keys, " \
         "fastest of #{ROUNDS} fresh filter#{'s' if ROUNDS > 1} a size and class#{' (quick run)' if QUICK}"
    puts "glibc's mmap threshold fixed at #{ENV.fetch('MALLOC_MMAP_THRESHOLD_', 'its default, dynamic,')} bytes"
    puts "#{thp_state}; threads: #{threads? ? 'yes' : 'n/a'}, prefault: " \
         "#{CLASSES.keys.any? { prefault?(_1) } ? 'yes' : 'n/a'}, use_huge_pages!: #{huge_pages? ? 'yes' : 'n/a'}"
    keys = make_keys(2 * most, "key:")
    absent = make_keys(most, "abs:")
    puts format("   %d keys made in %.0f s", keys.size + absent.size, now - started)

    res = pass(chosen, keys, absent, "4 KiB pages")
    huge = huge_pass(chosen, keys, absent)
    built = build if ENV["BLOOMC_SCALE_BUILD"] == "1"
    report(res, huge, built)
    puts format("(bench:scale took %.0f s)", now - started)
  end

  def report(res, huge, built)
    groups = grouped(res, huge)
    tables = [
      ["ns per key (RSS: what the filter added, after both adds)", COST_HEADER, cost_rows(groups), 3],
      ["threads: ns per key with threads: 1 and 2#{' (n/a: this build has no threads:)' unless threads?}",
       THREAD_HEADER, thread_rows(groups), 3],
      ["prefault: true on new, ns per key#{' (n/a: this build has no prefault:)' unless CLASSES.keys.any? { prefault?(_1) }}",
       PREFAULT_HEADER, prefault_rows(groups), 3],
      ["targets (issue 24), as ratios from this run", %w[target measured limit verdict], target_rows(res, huge, built), 4]
    ]
    tables.each { |title, header, rows, left| print_table(title, header, rows, left: left) }
    puts "\nhuge pages: #{huge.nil? ? 'n/a (this build has no Bloomc.use_huge_pages!)' : huge}" unless huge.is_a?(Hash)

    out = ENV.fetch("BLOOMC_SCALE_OUT", nil)
    out ||= File.join(ROOT, "tmp", "scale-quick") if QUICK
    md = out ? File.join(out, "scale.md") : File.join(ROOT, "tmp", "scale.md")
    png = out ? File.join(out, "scale.png") : File.join(ROOT, "docs", "scale.png")
    FileUtils.mkdir_p([File.dirname(md), File.dirname(png)])
    File.write(md, tables.map { |title, header, rows, _| markdown(title, header, rows) }.join("\n"))
    puts "\nwrote #{md}"
    puts "wrote #{png}" if plot(res, png)
  end
end

if $PROGRAM_NAME == __FILE__
  $stdout.sync = true
  ScaleBench.run
end
