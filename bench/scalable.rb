# frozen_string_literal: true

# The ScalableBloomFilter part of `rake bench` (issue 19), in the same
# process as the rest:
#
#   speed at 64x   a filter of the default initial capacity holding 64 times
#                  that many keys (7 layers), against a BloomFilter sized for
#                  them and fast_bloom_filter's scalable filter of the same
#                  initial capacity and error rate
#   memory         against fast_bloom_filter at 1M keys; against a BloomFilter
#                  sized for the count, when the newest layer is full and just
#                  after a layer is added, from 1x to 1000x the initial
#                  capacity
#   error rate     measured at 1x, 10x, 100x and 1000x on 200,000 absent keys
#
# Keys: 40-character hex Strings where the peer is timed; Integers for the
# growth to 1000x (8 million keys), which need no memory of their own.
module ScalableBench
  module_function

  INITIAL = Bloomc::ScalableBloomFilter::DEFAULT_INITIAL_CAPACITY
  ERROR = 0.01
  MEMORY_AT = 1_000_000

  def peer?
    @peer = BenchSupport.load_peer("fast_bloom_filter") if @peer.nil?
    @peer
  end

  def peer_filter = FastBloomFilter::Filter.new(error_rate: ERROR, initial_capacity: INITIAL)

  def run(rounds:)
    started = now
    n = INITIAL * 64
    present = hex_keys(n, 5).each(&:freeze)
    absent = hex_keys(200_000, 6).each(&:freeze)
    puts "\n== ScalableBloomFilter: #{n} keys (64 x its initial capacity of #{INITIAL}) at #{format('%g', ERROR * 100)}%; " \
         "#{absent.size} absent keys probed"
    makers = {
      "bloomc ScalableBloomFilter" => -> { Bloomc::ScalableBloomFilter.new(error_rate: ERROR) },
      "bloomc BloomFilter sized for the keys" => -> { Bloomc::BloomFilter.new(capacity: n, error_rate: ERROR) }
    }
    makers["fast_bloom_filter (scalable)"] = -> { peer_filter } if peer?
    filled = makers.transform_values { |make| make.call.tap { |f| present.each { |key| f.add(key) } } }
    jobs = {}
    counts = {}
    makers.each do |name, make|
      f = filled[name]
      jobs[[name, "add"]] = [make, ->(fresh) { present.each { |key| fresh.add(key) } }]
      jobs[[name, "hit"]] = -> { present.each { |key| f.include?(key) } }
      jobs[[name, "miss"]] = -> { absent.each { |key| f.include?(key) } }
      counts.merge!([name, "add"] => n, [name, "hit"] => n, [name, "miss"] => absent.size)
    end
    times = best_times(jobs, rounds: rounds).to_h { |job, seconds| [job, seconds * 1e9 / counts[job]] }
    layers = filled["bloomc ScalableBloomFilter"].layers.size
    rows = makers.keys.map do |name|
      f = filled[name]
      [name, *%w[add hit miss].map { |op| format("%.1f", times[[name, op]]) },
       ObjectSpace.memsize_of(f), format("%.4f%%", 100.0 * absent.count { |key| f.include?(key) } / absent.size)]
    end
    print_table("ns per key, fastest of #{rounds} interleaved rounds (the scalable filter has #{layers} layers)",
                ["", "add", "hit", "miss", "bytes", "FP rate"], rows)

    memory = memory_against_peer
    growth = growth_sweep
    puts format("   the scalable part took %.0f s", now - started)
    { times: times, layers: layers, memory: memory, growth: growth }
  end

  # Bytes at MEMORY_AT keys, from INITIAL at ERROR: ours and the peer's.
  def memory_against_peer
    keys = BenchSupport.hex_keys(MEMORY_AT, 7)
    ours = Bloomc::ScalableBloomFilter.new(error_rate: ERROR).add_all(keys)
    sizes = { ours: ObjectSpace.memsize_of(ours), layers: ours.layers.size }
    if peer?
      theirs = peer_filter
      keys.each { |key| theirs.add(key) }
      sizes[:peer] = ObjectSpace.memsize_of(theirs)
      sizes[:peer_layers] = theirs.num_layers
    end
    rows = [["bloomc ScalableBloomFilter", sizes[:layers], sizes[:ours], format("%.2f", sizes[:ours] * 8.0 / MEMORY_AT)]]
    rows << ["fast_bloom_filter", sizes[:peer_layers], sizes[:peer], format("%.2f", sizes[:peer] * 8.0 / MEMORY_AT)] if sizes[:peer]
    print_table("#{MEMORY_AT} keys from an initial capacity of #{INITIAL} at #{format('%g', ERROR * 100)}%: " \
                "memory (ObjectSpace.memsize_of)", ["", "layers", "bytes", "bits/key"], rows)
    sizes
  end

  # Grows one filter with Integer keys to 1023 x INITIAL (10 layers), and at
  # each layer boundary compares its bytes with a BloomFilter sized for the
  # count: when the count reaches the layers' capacities, and again once the
  # next layer has been added (a few keys later: keys taken for present by a
  # false positive take no room, so a layer fills a little after its
  # capacity's worth of keys), when it holds the most over a pre-sized
  # filter. Measures the false-positive rate at 1x, 10x, 100x and 1000x.
  def growth_sweep
    filter = Bloomc::ScalableBloomFilter.new(error_rate: ERROR)
    absent = (-200_000...0).to_a # Integers never added
    added = 0
    grow_to = ->(count) { added = add_integers(filter, added, count) }
    presized = ->(count) { ObjectSpace.memsize_of(Bloomc::BloomFilter.new(capacity: count, error_rate: ERROR)) }
    bounds = (1..10).map { |layers| INITIAL * (2**layers - 1) } # the capacities of the first 1..10 layers
    checks = [1, 10, 100, 1000].to_h { |x| [INITIAL * x, x] }
    rows = []
    fprs = {}
    ratios = { full: [], grown: [] }
    (bounds + checks.keys).uniq.sort.each do |count|
      grow_to.(count)
      if (x = checks[count])
        fprs[x] = filter.count_included(absent).fdiv(absent.size)
        rows << ["#{x}x", count, filter.layers.size, "", "", format("%.4f%%", fprs[x] * 100)]
      end
      next unless bounds.include?(count)

      layers = filter.layers.size
      full = ObjectSpace.memsize_of(filter).fdiv(presized.(count))
      grow_to.(added + 256) while filter.layers.size == layers # the next layer
      grown = ObjectSpace.memsize_of(filter).fdiv(presized.(added))
      x = count.fdiv(INITIAL)
      ratios[:full] << [x, full]
      ratios[:grown] << [added.fdiv(INITIAL), grown] if x.between?(10, 1000)
      rows << [format("%.0fx", x), count, layers, format("%.2fx", full), format("%.2fx at %d", grown, added), ""]
    end
    print_table("growing from #{INITIAL} at #{format('%g', ERROR * 100)}%: bytes over a BloomFilter sized for the count, " \
                "with the layers' capacities reached and once the next layer is added; " \
                "the false-positive rate on #{absent.size} absent keys",
                ["count", "keys", "layers", "full", "next layer", "FP rate"], rows)
    { ratios: ratios, fprs: fprs }
  end

  # Rows for the target table (see compare.rb's target_row and ratio_checks).
  def targets(res, cache, t:, div:, row:, checks:)
    rows = []
    if cache
      single = %w[add hit miss].to_h do |op|
        [op, div.(t.(cache, "bloomc ScalableBloomFilter (one layer)", op), t.(cache, "bloomc BloomFilter", op))]
      end
      rows << row.("cache: ScalableBloomFilter at one layer / BloomFilter, single key", "<= 1.15x", checks.(single) { _1 <= 1.15 })
    end
    return rows unless res

    times = res[:times]
    ours = "bloomc ScalableBloomFilter"
    miss = div.(times[[ours, "miss"]], times[["bloomc BloomFilter sized for the keys", "miss"]])
    rows << row.("64x: ScalableBloomFilter include? miss / BloomFilter sized for the keys", "<= 2x",
                 checks.({ "miss" => miss }) { _1 <= 2 })
    peer = %w[add hit miss].to_h { |op| [op, div.(times[["fast_bloom_filter (scalable)", op]], times[[ours, op]])] }
    rows << row.("64x: fast_bloom_filter / ScalableBloomFilter", "> 1x", checks.(peer) { _1 > 1 })
    # The floor under add: an add must find out whether the key is new to the
    # filter (a new layer starts after that many new keys), which is a lookup
    # in every layer, a miss for the new keys added here. fast_bloom_filter
    # sets the newest layer's bits without looking, counting every add.
    floor = div.(times[[ours, "add"]], times[[ours, "miss"]])
    rows << row.("64x floor: ScalableBloomFilter add / its own include? miss", "<= 1.1x",
                 checks.({ "add" => floor }) { _1 <= 1.1 })
    rows << row.("64x floor: fast_bloom_filter add / ScalableBloomFilter include? miss", "> 1x (else add is out of reach)",
                 checks.({ "add" => div.(times[["fast_bloom_filter (scalable)", "add"]], times[[ours, "miss"]]) }) { _1 > 1 })
    memory = res[:memory]
    rows << row.("#{MEMORY_AT / 1_000_000}M keys: ScalableBloomFilter bytes / fast_bloom_filter's", "<= 1x",
                 checks.({ "bytes" => div.(memory[:ours].to_f, memory[:peer]) }) { _1 <= 1 })
    full = res[:growth][:ratios][:full].max_by(&:last)
    grown = res[:growth][:ratios][:grown].max_by(&:last)
    rows << row.("ScalableBloomFilter bytes / BloomFilter sized for the count, newest layer full", "<= 1.7x",
                 { "most, at #{format('%.0fx', full[0])}" => [format("%.2fx", full[1]), full[1] <= 1.7] })
    rows << row.("ScalableBloomFilter bytes / BloomFilter sized for the count, 10x to 1000x", "<= 3.5x",
                 { "most, a new layer at #{format('%.0fx', grown[0])}" => [format("%.2fx", grown[1]), grown[1] <= 3.5] })
    fprs = res[:growth][:fprs].to_h { |x, rate| ["#{x}x", [format("%.3f%%", rate * 100), rate <= ERROR]] }
    rows << row.("ScalableBloomFilter measured false-positive rate", "<= #{format('%g', ERROR * 100)}%", fprs)
    rows
  end
end
