# frozen_string_literal: true

require "json"
require "open3"
require "rbconfig"

# The drop-in is checked against the real bloombroom 1.2.0 (a :bench bundle
# dependency). Both define Bloombroom, so they cannot share a process: one
# child process runs every scenario through the real gem and prints the
# results as JSON, this process runs the very same scenario code (RUNNER)
# through the drop-in, and the two results are compared.
#
# Only ASCII keys are compared: bloombroom hashes String#size bytes (characters)
# of a key, bloomc every byte.
module BloombroomDropinCheck
  MASK64 = 2**64 - 1

  # An FNV-1a 64 of our own: the generator of the continuous scenario needs
  # bloombroom's bucket positions and must not take them from the code under test.
  def self.fnv1a_64(str)
    str.each_byte.reduce(0xcbf29ce484222325) { |h, byte| ((h ^ byte) * 0x100000001b3) & MASK64 }
  end

  # bloombroom's positions: a + b * (i + 1) mod m, a and b the upper and lower
  # 32 bits of the FNV-1a 64 hash.
  def self.positions(key, k, m)
    h = fnv1a_64(key)
    a = h >> 32
    b = h & 0xFFFFFFFF
    Array.new(k) { |i| (a + b * (i + 1)) % m }
  end

  # Distinct ASCII keys of every kind: hex, printable, any of 0..127 (NUL and
  # control characters included), long ones, and the empty key.
  def self.ascii_keys(count, rng)
    keys = ["", "a", "key1", "\0"]
    i = 0
    while keys.size < count
      keys << case (i += 1) % 4
              when 0 then rng.bytes(rng.rand(1..20)).unpack1("H*")
              when 1 then Array.new(rng.rand(1..12)) { rng.rand(32..126).chr }.join
              when 2 then Array.new(rng.rand(1..8)) { rng.rand(0..127).chr }.join
              else "key#{i}-" * rng.rand(1..40)
              end
      keys.uniq!
    end
    keys
  end

  # bloombroom and bloomc agree on a lookup unless it reads a bucket last
  # written 15 or more ticks ago: there bloombroom's ring wraps and a stale
  # slot can read as live again (its zombie keys) while bloomc cleared the
  # bucket when it expired. The generator tracks every bucket's last write and
  # leaves such lookups out, whatever the key: one added recently (whose
  # buckets are all recent), one added long ago, or one never added whose
  # buckets other keys wrote. Every other lookup, including those that read
  # expired buckets (which bloombroom resets on the spot), is kept.
  #
  # It also predicts each answer: a bucket is live while written at most
  # RESOLUTION_DIVISOR (2) ticks ago; a key is present when all k are live.
  def self.continuous_ops(m:, k:, seed:, count:)
    rng = Random.new(seed)
    pool = Array.new(60) { |i| "k#{i}-#{rng.bytes(4).unpack1('H*')}" }
    never_added = Array.new(60) { |i| "absent#{i}-#{rng.bytes(4).unpack1('H*')}" }
    tick = 0
    written = {} # bucket position => tick of its last write
    ops = []
    model = []
    stats = Hash.new(0)
    while ops.size < count
      r = rng.rand
      if r < 0.3
        key = pool.sample(random: rng)
        positions(key, k, m).each { |pos| written[pos] = tick }
        ops << ["add", key]
      elsif r < 0.9
        key = rng.rand < 0.6 ? pool.sample(random: rng) : never_added.sample(random: rng)
        ages = positions(key, k, m).map { |pos| written[pos] && tick - written[pos] }
        if ages.any? { |age| age && age >= 15 }
          stats[:left_out] += 1
          next
        end

        live = ages.count { |age| age && age <= 2 }
        present = live == k
        stats[:present] += 1 if present
        stats[:never_added] += 1 if never_added.include?(key)
        stats[:false_positive] += 1 if present && never_added.include?(key)
        stats[:partly_expired] += 1 if live.positive? && !present
        stats[:reads_expired] += 1 if ages.any? { |age| age && age > 2 }
        ops << ["include?", key]
        model << present
      else
        ops << ["inc_time_slot"]
        tick += 1
      end
    end
    stats[:lookups] = model.size
    stats[:ticks] = tick
    { "ops" => ops, "model" => model, "stats" => stats }
  end

  CONTINUOUS_CONFIGS = [
    { m: 200, k: 3, seed: 11, count: 3000 },
    { m: 997, k: 5, seed: 12, count: 3000 },
    { m: 1999, k: 2, seed: 13, count: 3000 },
    { m: 63, k: 2, seed: 14, count: 3000 } # crowded: false positives are common
  ].freeze

  def self.input
    @input ||= begin
      rng = Random.new(20_240_601)
      keys = ascii_keys(200, rng)
      bloom_keys = ascii_keys(1000, Random.new(7))
      added = bloom_keys.first(280) + bloom_keys.first(280).sample(20, random: rng) # 20 added twice
      {
        "find_m_k" => [[1000, 0.001], [10_000, 0.01], [10_000, 0.001], [100, 0.1], [1, 0.5], [123, 0.05],
                       [60_000, 0.001], [150_000, 0.0001], [1_000_000, 0.01], [7, 0.3]],
        "keys" => keys,
        "bloom_filters" => [[7, 1], [7, 3], [61, 4], [1001, 3], [4099, 7], [2876, 7], [9973, 12]],
        "bloom_adds" => added.shuffle(random: rng),
        "bloom_lookups" => bloom_keys.shuffle(random: rng),
        "continuous" => CONTINUOUS_CONFIGS.map do |config|
          { "m" => config[:m], "k" => config[:k], "ops" => continuous_ops(**config)["ops"] }
        end
      }
    end
  end

  # The scenarios, run as they are in both processes: a lambda from the input
  # (parsed JSON) to a JSON-ready Hash. It sees Bloombroom as whichever
  # implementation is loaded.
  RUNNER_LINE = __LINE__ + 2
  RUNNER = <<~RUBY
    lambda do |input|
      keys = input["keys"]
      out = {}
      out["version"] = Bloombroom::VERSION if defined?(Bloombroom::VERSION)
      out["find_m_k"] = input["find_m_k"].map { |capacity, error| Bloombroom::BloomHelper.find_m_k(capacity, error) }
      out["multi_hash"] = keys.map { |key| (1..12).map { |k| Bloombroom::BloomHelper.multi_hash(key, k) } }
      out["fnv"] = %w[fnv1_32 fnv1a_32 fnv1_64 fnv1a_64].to_h do |name|
        [name, keys.map { |key| Bloombroom::FNVFFI.public_send(name, key) }]
      end

      out["bloom_filters"] = input["bloom_filters"].map do |m, k|
        bf = Bloombroom::BloomFilter.new(m, k)
        adds = input["bloom_adds"].map { |key| bf.add(key) }
        {
          "m" => bf.m, "k" => bf.k, "size" => bf.size, "adds" => adds,
          "bits" => bf.bits.to_s, "bits_size" => bf.bits.size, "total_set" => bf.bits.total_set,
          "include?" => input["bloom_lookups"].map { |key| bf.include?(key) },
          "[]" => input["bloom_lookups"].first(100).map { |key| bf[key] }
        }
      end

      out["continuous"] = input["continuous"].map do |run|
        bf = Bloombroom::ContinuousBloomFilter.new(run["m"], run["k"], 0)
        results = run["ops"].map do |op, key|
          case op
          when "add" then bf.add(key).equal?(bf) ? "self" : "not self"
          when "include?" then bf.include?(key)
          when "inc_time_slot" then bf.inc_time_slot
          end
        end
        { "m" => bf.m, "k" => bf.k, "ttl" => bf.ttl, "results" => results }
      end

      # Zombies: one key, n ticks, no lookup in between.
      out["zombie"] = (0..40).map do |n|
        bf = Bloombroom::ContinuousBloomFilter.new(1000, 3, 0)
        bf.add("zombie")
        n.times { bf.inc_time_slot }
        bf.include?("zombie")
      end

      ring = Bloombroom::ContinuousBloomFilter.new(10, 1, 0)
      out["elapsed"] = (1..15).flat_map { |s| (1..15).map { |c| [s, c, ring.send(:elapsed, s, c)] } }

      out["constants"] = {
        "RESOLUTION_DIVISOR" => Bloombroom::ContinuousBloomFilter::RESOLUTION_DIVISOR,
        "BITS_PER_BUCKET" => Bloombroom::ContinuousBloomFilter::BITS_PER_BUCKET,
        "BitField::ELEMENT_WIDTH" => Bloombroom::BitField::ELEMENT_WIDTH,
        "BitBucketField::ELEMENT_WIDTH" => Bloombroom::BitBucketField::ELEMENT_WIDTH
      }

      # A ttl long enough that the timer never ticks here.
      timed = Bloombroom::ContinuousBloomFilter.new(100, 2, 1000)
      thread = timed.start_timer
      out["start_timer"] = {
        "class" => thread.class.name, "alive" => thread.alive?, "again_same" => timed.start_timer.equal?(thread)
      }
      thread.kill.join

      out["multibyte"] = {
        "same_probes" => Bloombroom::BloomHelper.multi_hash("日本", 3) == Bloombroom::BloomHelper.multi_hash("日月", 3),
        "fnv1a_64_binary" => %w[日本 日月].map { |key| Bloombroom::FNVFFI.fnv1a_64(key.b) },
        "fnv1a_64" => %w[日本 日月].map { |key| Bloombroom::FNVFFI.fnv1a_64(key) }
      }
      out
    end
  RUBY

  CHILD_SCRIPT = <<~RUBY
    require "json"
    begin
      require "bloombroom"
    rescue LoadError => e
      warn "BLOOMBROOM_LOAD_ERROR: \#{e.class}: \#{e.message}"
      exit 3
    end
    # (Bundler defines Bloomc::VERSION from the gemspec; the filters must be absent.)
    abort "bloomc is loaded in the reference process" if defined?(Bloomc::BloomFilter)
    runner = eval(#{RUNNER.dump}, binding, #{__FILE__.dump}, #{RUNNER_LINE})
    $stdout.write(JSON.generate(runner.call(JSON.parse($stdin.read))))
  RUBY

  # The real bloombroom's results, from one child process for the whole file
  # (a failure is kept too, so every example reports it without a rerun).
  def self.reference
    @reference ||= run_reference
    raise @reference if @reference.is_a?(Exception)

    @reference
  end

  def self.run_reference
    stdout, stderr, status = Open3.capture3(RbConfig.ruby, "-e", CHILD_SCRIPT, stdin_data: JSON.generate(input))
    if status.exitstatus == 3 || stderr.include?("BLOOMBROOM_LOAD_ERROR")
      RuntimeError.new(
        "the real bloombroom gem could not be loaded in the reference subprocess; it is a :bench " \
        "dependency in the Gemfile, so run `bundle install` and `bundle exec rspec` " \
        "(RUBYOPT=#{ENV['RUBYOPT'].inspect}, BUNDLE_GEMFILE=#{ENV['BUNDLE_GEMFILE'].inspect}):\n#{stderr}"
      )
    elsif !status.success?
      RuntimeError.new("the bloombroom reference subprocess failed (#{status.inspect}):\n#{stderr}")
    else
      JSON.parse(stdout)
    end
  end

  # The drop-in's results for the same input, through JSON as well.
  def self.dropin
    @dropin ||= begin
      runner = Module.new.module_eval(RUNNER, __FILE__, RUNNER_LINE)
      JSON.parse(JSON.generate(runner.call(JSON.parse(JSON.generate(input)))))
    end
  end
end
