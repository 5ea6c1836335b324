# frozen_string_literal: true

# The SlidingBloomFilter part of `rake bench` (issue 34), on a simulated
# clock where time matters and the monotonic one where speed does:
#
#   a day    a stream whose rate swings 10x between night and day, with one
#            burst of 100x the night's rate lasting one ttl; every simulated
#            minute the measured false-positive rate, the bytes and the false
#            negatives of a SlidingBloomFilter, beside a ContinuousBloomFilter
#            sized for the average window (its rate at the peaks), one sized
#            for the burst's window (its bytes) and an exact Hash of key to
#            time, pruned (its bytes, hourly); BENCH_PLOT=path writes it as an
#            SVG (docs/sliding_day.svg)
#   memory   at a steady rate with 1M keys in the window, against a
#            BloomFilter holding the window's keys; and after a 100x burst of
#            one ttl, 2 ttl after it ends, against the steady bytes
#   speed    single-key add and include? (hits, misses) and the batch forms
#            at that steady state on the monotonic clock, against the
#            BloomFilter on the same keys
module SlidingBench
  module_function

  ERROR = 0.01
  DAY = 86_400
  TTL = 3600.0
  NIGHT_RATE = 5 # keys a second at night; 50 by day; 500 in the burst
  BURST_AT = 14 * 3600
  WINDOW = 1_000_000
  PROBES = 4000 # absent keys a minute

  def run(rounds:)
    started = now
    day = day_run
    plot(day, ENV["BENCH_PLOT"]) if ENV["BENCH_PLOT"]
    memory = memory_run
    speed = speed_run(rounds)
    puts format("   the sliding part took %.0f s", now - started)
    { day: day, memory: memory, speed: speed }
  end

  def rate_at(second)
    return NIGHT_RATE * 100 if second >= BURST_AT && second < BURST_AT + TTL

    NIGHT_RATE * (1 + (9 * (1 - Math.cos(2 * Math::PI * second / DAY)) / 2))
  end

  # A day of stream, a simulated minute at a time.
  def day_run
    time = 0.0
    sliding = Bloomc::SlidingBloomFilter.new(ttl: TTL, error_rate: ERROR, clock: -> { time })
    windows = (0...DAY).step(60).map { |s| rate_at(s) * 60 }.each_cons(60).map(&:sum)
    average = windows.sum / windows.size
    cont_avg = Bloomc::ContinuousBloomFilter.new(capacity: (1.5 * average).round, error_rate: ERROR, ttl: 0)
    cont_peak = Bloomc::ContinuousBloomFilter.new(capacity: (1.5 * windows.max).round, error_rate: ERROR, ttl: 0)
    exact = {}
    recent = [] # [time, keys] of the last ttl, for the false-negative check
    rng = Random.new(34)
    n = 0
    samples = []
    (0...DAY).step(60) do |second|
      time = second.to_f
      keys = Array.new((rate_at(second) * 60).round) { "d#{n += 1}" }
      sliding.add_all(keys)
      [cont_avg, cont_peak].each { |c| c.add_all(keys) }
      keys.each { |key| exact[key] = time }
      recent << [time, keys]
      recent.shift while recent.first[0] <= time - TTL
      if ((second + 60) % (TTL / 2)).zero? # a continuous filter's tick every ttl / 2
        [cont_avg, cont_peak].each(&:inc_time_slot)
      end
      absent = Array.new(PROBES) { |i| "a#{second}-#{i}" }
      live = recent.flat_map { |_, ks| ks.sample(5, random: rng) }
      sample = { second: second, rate: rate_at(second), fpr: sliding.count_included(absent).fdiv(PROBES),
                 bytes: ObjectSpace.memsize_of(sliding), fn: live.size - sliding.count_included(live),
                 cont_avg_fpr: cont_avg.count_included(absent).fdiv(PROBES),
                 window_keys: recent.sum { |_, ks| ks.size } }
      if (second % 3600).zero?
        exact.delete_if { |_, t| t <= time - TTL }
        sample[:exact_bytes] = exact_bytes(exact)
      end
      samples << sample
    end
    report_day(samples, cont_avg, cont_peak)
  end

  # The Hash's own bytes and its keys' (Integer values are immediate).
  def exact_bytes(hash)
    ObjectSpace.memsize_of(hash) + hash.sum { |key, _| ObjectSpace.memsize_of(key) }
  end

  def report_day(samples, cont_avg, cont_peak)
    sigma = Math.sqrt(ERROR * (1 - ERROR) / PROBES)
    hourly = samples.each_slice(60).map do |hour|
      [hour.first[:second] / 3600, hour.first[:rate], hour.sum { |s| s[:window_keys] } / 60, hour.map { |s| s[:bytes] }.max,
       hour.sum { |s| s[:fpr] } / 60, hour.map { |s| s[:fpr] }.max, hour.sum { |s| s[:cont_avg_fpr] } / 60,
       hour.first[:exact_bytes], hour.sum { |s| s[:fn] }]
    end
    rows = hourly.map do |h, rate, keys, bytes, mean, max, cont, exact, fn|
      [format("%02d:00", h), format("%.0f", rate), keys, bytes, format("%.3f%%", mean * 100), format("%.3f%%", max * 100),
       format("%.2f%%", cont * 100), exact, fn]
    end
    print_table("a simulated day, ttl 1 hour, error_rate 1%: sliding filter each hour (mean and worst minute of #{PROBES} " \
                "absent keys), the continuous filter sized for the average window, the exact Hash",
                ["hour", "keys/s", "window", "bytes", "FP mean", "FP worst", "cont. avg FP", "Hash bytes", "FN"], rows)
    puts format("   continuous filters: %d bytes sized for the average window, %d for the burst's; " \
                "the sliding filter %d-%d bytes", ObjectSpace.memsize_of(cont_avg), ObjectSpace.memsize_of(cont_peak),
                samples.map { |s| s[:bytes] }.min, samples.map { |s| s[:bytes] }.max)
    { samples: samples, sigma: sigma, cont_avg_bytes: ObjectSpace.memsize_of(cont_avg),
      cont_peak_bytes: ObjectSpace.memsize_of(cont_peak), cont_avg_worst: samples.map { |s| s[:cont_avg_fpr] }.max }
  end

  # A filter of ttl 100 s after 3 ttl of WINDOW keys a ttl, on its own
  # simulated clock, and how many keys it was given ("#{prefix}1" on).
  def steady(prefix)
    time = 0.0
    filter = Bloomc::SlidingBloomFilter.new(ttl: 100, error_rate: ERROR, clock: -> { time })
    n = 0
    300.times do |s|
      time = s.to_f
      filter.add_all(Array.new(WINDOW / 100) { "#{prefix}#{n += 1}" })
    end
    [filter, n]
  end

  # At a steady rate with WINDOW keys a ttl, after 3 ttl; then a 100x burst
  # of one ttl at a window of WINDOW / 100, and 2 ttl after it.
  def memory_run
    steady, n = steady("s")
    plain = Bloomc::BloomFilter.new(capacity: WINDOW, error_rate: ERROR)
    ratio = ObjectSpace.memsize_of(steady).fdiv(ObjectSpace.memsize_of(plain))
    clock = 0.0 # its own: a clock that went back would stand still
    burst = Bloomc::SlidingBloomFilter.new(ttl: 100, error_rate: ERROR, clock: -> { clock })
    bytes = {}
    600.times do |s|
      clock = s.to_f
      per_second = s >= 300 && s < 400 ? WINDOW / 100 : WINDOW / 10_000
      burst.add_all(Array.new(per_second) { "b#{n += 1}" })
      bytes[s] = ObjectSpace.memsize_of(burst)
    end
    after = bytes[599].fdiv(bytes[299])
    print_table("memory at 1%",
                ["", "bytes", "ratio"],
                [["SlidingBloomFilter, 1M keys a ttl, after 3 ttl", ObjectSpace.memsize_of(steady), format("%.2fx", ratio)],
                 ["BloomFilter of 1M keys", ObjectSpace.memsize_of(plain), "1.00x"],
                 ["SlidingBloomFilter, 10k keys a ttl, before a 100x burst", bytes[299], "1.00x"],
                 ["... at the burst's end", bytes[399], format("%.2fx", bytes[399].fdiv(bytes[299]))],
                 ["... 2 ttl after it", bytes[599], format("%.2fx", after)]])
    { ratio: ratio, after_burst: after }
  end

  # ns a key at the steady state, on the monotonic clock, against a
  # BloomFilter holding the window's keys.
  def speed_run(rounds)
    sliding, n = steady("k")
    sliding.clock = nil # the monotonic clock; every generation keeps its age
    present = Array.new(200_000) { |i| "k#{n - i}" }.each(&:freeze)
    absent = hex_keys(200_000, 41).each(&:freeze)
    fresh = hex_keys(200_000, 42).each(&:freeze)
    plain = Bloomc::BloomFilter.new(capacity: WINDOW, error_rate: ERROR)
    (1..WINDOW).each { |i| plain << "k#{n - i + 1}" }
    jobs = {}
    { "SlidingBloomFilter" => sliding, "BloomFilter" => plain }.each do |name, f|
      jobs[[name, "add"]] = [-> { f.dup }, ->(copy) { fresh.each { |key| copy.add(key) } }]
      jobs[[name, "hit"]] = -> { present.each { |key| f.include?(key) } }
      jobs[[name, "miss"]] = -> { absent.each { |key| f.include?(key) } }
      jobs[[name, "add_all"]] = [-> { f.dup }, ->(copy) { copy.add_all(fresh) }]
      jobs[[name, "include_all"]] = -> { f.include_all(present) }
      jobs[[name, "count_included"]] = -> { f.count_included(absent) }
    end
    ops = %w[add hit miss add_all include_all count_included]
    times = best_times(jobs, rounds: rounds).transform_values { |s| s * 1e9 / 200_000 }
    rows = %w[SlidingBloomFilter BloomFilter].map { |name| [name, *ops.map { |op| format("%.1f", times[[name, op]]) }] }
    rows << ["ratio", *ops.map { |op| format("%.2fx", times[["SlidingBloomFilter", op]] / times[["BloomFilter", op]]) }]
    print_table("ns a key, 1M keys in the window (the BloomFilter holds them), monotonic clock, fastest of #{rounds} rounds",
                ["", *ops], rows)
    times
  end

  # Rows for the target table (compare.rb's target_row: checks are
  # label => [shown, ok]).
  def targets(res, row:)
    day = res[:day]
    worst = day[:samples].map { |s| s[:fpr] }.max
    fn = day[:samples].sum { |s| s[:fn] }
    bound = ERROR + (4 * day[:sigma])
    ratio = ->(op) { res[:speed][["SlidingBloomFilter", op]] / res[:speed][["BloomFilter", op]] }
    [row.("SlidingBloomFilter, a day (10x swing, 100x burst): worst minute's FP rate (#{PROBES} probes)",
          "<= 1% + 4 sigma (#{format('%.2f%%', bound * 100)})", { "worst" => [format("%.3f%%", worst * 100), worst <= bound] }),
     row.("SlidingBloomFilter, a day: false negatives among live keys", "0", { "found missing" => [fn.to_s, fn.zero?] }),
     row.("SlidingBloomFilter, 1M keys in the window: bytes / BloomFilter's", "<= 2.5x",
          { "steady" => [format("%.2fx", res[:memory][:ratio]), res[:memory][:ratio] <= 2.5] }),
     row.("SlidingBloomFilter, 2 ttl after a 100x burst: bytes / steady", "<= 1.3x",
          { "after" => [format("%.2fx", res[:memory][:after_burst]), res[:memory][:after_burst] <= 1.3] }),
     row.("SlidingBloomFilter single key / BloomFilter's, 1M keys in the window", "<= 2x",
          %w[add hit miss].to_h { |op| [op, [format("%.2fx", ratio.(op)), ratio.(op) <= 2]] })]
  end

  # The day as an SVG of three panels: keys a second; bytes; the
  # false-positive rate each minute, the sliding filter's and the
  # average-sized continuous filter's, against error_rate.
  def plot(day, path)
    samples = day[:samples]
    width = 900
    height = 170
    hours = ->(s) { 60 + (s[:second] / DAY.to_f * (width - 80)) }
    panel = lambda do |top, title, values, max, color, label|
      points = samples.zip(values).map { |s, v| format("%.1f,%.1f", hours.(s), top + height - 20 - (v.to_f / max * (height - 40))) }
      %(<text x="60" y="#{top + 14}" font-size="13">#{title}</text>) +
        %(<polyline fill="none" stroke="#{color}" stroke-width="1.2" points="#{points.join(' ')}"/>) +
        %(<text x="#{width - 15}" y="#{top + 28}" font-size="11" text-anchor="end" fill="#{color}">#{label}</text>)
    end
    rates = samples.map { |s| s[:rate] }
    bytes = samples.map { |s| s[:bytes] / 1024.0 }
    fpr = samples.map { |s| s[:fpr] * 100 }
    cont = samples.map { |s| [s[:cont_avg_fpr] * 100, 5].min }
    axis = (0..24).step(3).map do |h|
      %(<text x="#{60 + (h / 24.0 * (width - 80))}" y="#{(3 * height) + 12}" font-size="11" text-anchor="middle">#{h}:00</text>)
    end
    at_rate = (3 * height) - 20 - ((height - 40) / 5.0) # 1% on the 0..5% scale
    body = [panel.(0, "keys a second (a 10x day, a 100x burst at 14:00)", rates, rates.max, "#333", "max #{rates.max.round}"),
            panel.(height, "SlidingBloomFilter bytes (KiB)", bytes, bytes.max, "#1f6feb", "max #{bytes.max.round} KiB"),
            panel.(2 * height, "false-positive rate each minute (%): sliding (blue), continuous sized for the average (red, cut at 5%)",
                   fpr, 5, "#1f6feb", "worst #{format('%.2f', fpr.max)}%"),
            panel.(2 * height, "", cont, 5, "#d1242f", ""),
            %(<line x1="60" x2="#{width - 20}" y1="#{at_rate}" y2="#{at_rate}" stroke="#999" stroke-dasharray="4"/>),
            %(<text x="#{width - 15}" y="#{at_rate - 4}" font-size="11" text-anchor="end" fill="#999">error_rate 1%</text>),
            *axis]
    File.write(path, %(<svg xmlns="http://www.w3.org/2000/svg" width="#{width}" height="#{(3 * height) + 20}" font-family="sans-serif">) +
                     %(<rect width="100%" height="100%" fill="white"/>#{body.join}</svg>\n))
    puts "   wrote #{path}"
  end
end
