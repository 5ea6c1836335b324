# frozen_string_literal: true

require "spec_helper"
require "fileutils"
require "tmpdir"
require "bloomc/bloombroom"
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
  RUNNER = <<~'RUBY'
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

RSpec.describe "Bloombroom drop-in (require \"bloomc/bloombroom\")" do
  let(:reference) { BloombroomDropinCheck.reference }
  let(:dropin) { BloombroomDropinCheck.dropin }
  let(:input) { BloombroomDropinCheck.input }

  describe "against the real bloombroom 1.2.0 in a subprocess" do
    it "compares with bloombroom 1.2.0 itself, not with the drop-in" do
      expect(reference["version"]).to eq("1.2.0")
      expect(Bloombroom::BloomFilter.ancestors).to include(Bloomc::BloomFilter)
    end

    it "sizes filters alike: BloomHelper.find_m_k" do
      expect(dropin["find_m_k"]).to eq(reference["find_m_k"])
      expect(reference["find_m_k"]).to include([14_378, 10]) # find_m_k(1000, 0.001)
    end

    it "derives the same k hash values: BloomHelper.multi_hash for k 1..12" do
      expect(input["keys"].size).to eq(200)
      input["keys"].each_with_index do |key, i|
        expect(dropin["multi_hash"][i]).to eq(reference["multi_hash"][i]), "multi_hash(#{key.inspect}, 1..12)"
      end
    end

    %w[fnv1_32 fnv1a_32 fnv1_64 fnv1a_64].each do |name|
      it "hashes ASCII keys alike: FNVFFI.#{name}" do
        input["keys"].each_with_index do |key, i|
          expect(dropin["fnv"][name][i]).to eq(reference["fnv"][name][i]), "#{name}(#{key.inspect})"
        end
      end
    end

    it "sets the same bits, returns the same counts and answers alike: BloomFilter" do
      expect(dropin["bloom_filters"].size).to eq(input["bloom_filters"].size)
      input["bloom_filters"].each_with_index do |(m, k), i|
        ours = dropin["bloom_filters"][i]
        theirs = reference["bloom_filters"][i]
        %w[m k size adds bits_size total_set].each do |field|
          expect(ours[field]).to eq(theirs[field]), "BloomFilter.new(#{m}, #{k}) #{field}"
        end
        expect(ours["bits"]).to eq(theirs["bits"]), "BloomFilter.new(#{m}, #{k}).bits.to_s"
        expect(ours["include?"]).to eq(theirs["include?"]), "BloomFilter.new(#{m}, #{k}) include? answers"
        expect(ours["[]"]).to eq(theirs["[]"]), "BloomFilter.new(#{m}, #{k}) [] answers"
      end
      # The scenario means something: adds return 1..300, and the filters
      # differ in how many absent keys they report.
      expect(reference["bloom_filters"].first["adds"]).to eq((1..300).to_a)
      expect(reference["bloom_filters"].map { |f| f["include?"].count(true) }.uniq.size).to be > 3
    end

    describe "ContinuousBloomFilter.new(m, k, 0) over a random sequence of add, include? and inc_time_slot" do
      BloombroomDropinCheck::CONTINUOUS_CONFIGS.each_with_index do |config, i|
        it "answers every include? as bloombroom does with m=#{config[:m]}, k=#{config[:k]}" do
          ops = input["continuous"][i]["ops"]
          ours = dropin["continuous"][i]
          theirs = reference["continuous"][i]
          expect(ours.slice("m", "k", "ttl")).to eq(theirs.slice("m", "k", "ttl"))

          first = ours["results"].each_index.find { |j| ours["results"][j] != theirs["results"][j] }
          expect(first).to be_nil, lambda {
            "op #{first} #{ops[first].inspect}: bloombroom #{theirs['results'][first].inspect}, " \
              "drop-in #{ours['results'][first].inspect}; the 40 ops before it:\n" \
              "#{ops[[first - 40, 0].max...first].map(&:inspect).join("\n")}"
          }
          expect(ours["results"].size).to eq(ops.size)
        end

        it "has the answers that bucket ages predict, and exercises expiry and collisions (m=#{config[:m]})" do
          generated = BloombroomDropinCheck.continuous_ops(**config)
          lookups = input["continuous"][i]["ops"].each_index.select { |j| input["continuous"][i]["ops"][j][0] == "include?" }
          expect(lookups.map { |j| reference["continuous"][i]["results"][j] }).to eq(generated["model"])
          expect(lookups.map { |j| dropin["continuous"][i]["results"][j] }).to eq(generated["model"])

          stats = generated["stats"]
          expect(stats[:ticks]).to be > 200
          expect(stats[:lookups]).to be > 1000
          expect(stats[:present]).to be > 100
          expect(stats[:never_added]).to be > 100
          expect(stats[:partly_expired]).to be > 10 # some of a key's buckets live, some expired
          expect(stats[:reads_expired]).to be > 200 # bloombroom resets these buckets in place
          expect(stats[:false_positive]).to be > 10 if config[:m] < 100 # never added, yet reported present
        end
      end
    end

    it "has bloombroom's ring arithmetic: the private elapsed(start_slot, current_slot)" do
      expect(dropin["elapsed"].size).to eq(225)
      expect(dropin["elapsed"]).to eq(reference["elapsed"])
      expect(reference["elapsed"]).to include([15, 1, 1], [1, 15, 14], [7, 7, 0])
    end

    it "has the same constants" do
      expect(dropin["constants"]).to eq(reference["constants"])
      expect(dropin["constants"]).to eq(
        "RESOLUTION_DIVISOR" => 2, "BITS_PER_BUCKET" => 4,
        "BitField::ELEMENT_WIDTH" => 32, "BitBucketField::ELEMENT_WIDTH" => 32
      )
    end

    it "returns the timer's Thread from start_timer, the same one when started again" do
      expect(reference["start_timer"]).to eq("class" => "Thread", "alive" => true, "again_same" => true)
      expect(dropin["start_timer"]).to eq(reference["start_timer"])
    end

    it "hashes a binary String's every byte as bloombroom does" do
      expect(dropin["multibyte"]["fnv1a_64"]).to eq(reference["multibyte"]["fnv1a_64_binary"])
      expect(dropin["multibyte"]["fnv1a_64_binary"]).to eq(reference["multibyte"]["fnv1a_64_binary"])
    end
  end

  describe "zombie keys" do
    it "in bloombroom: a key added, then 15 ticks with no lookup, is present again (its ring wraps)" do
      zombie = reference["zombie"]
      expect(zombie[15]).to be(true)
      # Present at 0..2 ticks, expired at 3..14, back at 15..17 and 30..32.
      expect(zombie.each_index.select { |n| zombie[n] }).to eq([0, 1, 2, 15, 16, 17, 30, 31, 32])
    end

    it "in the drop-in: the key stays expired for any number of ticks from 3 to 40" do
      expect(dropin["zombie"][0..2]).to eq([true, true, true])
      expect(dropin["zombie"][3..40]).to all(be(false))
      expect(dropin["zombie"][0..14]).to eq(reference["zombie"][0..14])
    end

    (3..40).each do |n|
      it "forgets a key after #{n} ticks with no lookup" do
        bf = Bloombroom::ContinuousBloomFilter.new(1000, 3, 0)
        bf << "zombie"
        n.times { bf.inc_time_slot }
        expect(bf.include?("zombie")).to be(false)
      end
    end
  end

  describe "bloombroom's README examples" do
    it "BloomFilter.new(1000, 3): add and include?" do
      bf = Bloombroom::BloomFilter.new(1000, 3)
      expect(bf.add("key1")).to eq(1)
      expect(bf.add("key2")).to eq(2)
      expect(bf.include?("key1")).to be(true)
      expect(bf.include?("key2")).to be(true)
      expect(bf.include?("key3")).to be(false)
    end

    it "BloomHelper.find_m_k(1000, 0.001) sizes a BloomFilter used with << and []" do
      m, k = Bloombroom::BloomHelper.find_m_k(1000, 0.001)
      expect([m, k]).to eq([14_378, 10])
      bf = Bloombroom::BloomFilter.new(m, k)
      bf << "key1"
      bf << "key2"
      expect([bf.m, bf.k, bf.size]).to eq([m, k, 2])
      expect(bf["key1"]).to be(true)
      expect(bf["key2"]).to be(true)
      expect(bf["key3"]).to be(false)
    end

    it "ContinuousBloomFilter.new(1000, 3, 2) with its timer: keys gone after 3 seconds" do
      bf = Bloombroom::ContinuousBloomFilter.new(1000, 3, 2)
      thread = bf.start_timer
      expect(thread).to be_a(Thread)
      expect(bf << "key1").to equal(bf)
      expect(bf << "key2").to equal(bf)
      expect([bf["key1"], bf["key2"], bf["key3"]]).to eq([true, true, false])

      sleep(3)
      # The third tick (ttl / 2 = 1 s each) is due as sleep(3) returns; give
      # the timer thread a moment to apply it rather than race it.
      deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 0.5
      sleep(0.01) while bf.ticks < 3 && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
      expect([bf["key1"], bf["key2"], bf["key3"]]).to eq([false, false, false])
    ensure
      bf&.stop_timer
    end
  end

  describe "return values" do
    it "BloomFilter#add returns the number of keys added" do
      bf = Bloombroom::BloomFilter.new(100, 2)
      expect((1..5).map { |i| bf.add("k#{i}") }).to eq([1, 2, 3, 4, 5])
      expect(bf << "k1").to eq(6)
    end

    it "ContinuousBloomFilter#add and #<< return self" do
      bf = Bloombroom::ContinuousBloomFilter.new(100, 2, 0)
      expect(bf.add("a")).to equal(bf)
      expect(bf << "b").to equal(bf)
    end

    it "ContinuousBloomFilter#start_timer returns the timer's Thread" do
      bf = Bloombroom::ContinuousBloomFilter.new(100, 2, 1000)
      thread = bf.start_timer
      expect(thread).to be_a(Thread)
      expect(thread).to be_alive
      expect(bf.start_timer).to equal(thread)
    ensure
      bf&.stop_timer
    end
  end

  # bloombroom's clock moves only in its timer thread, so its users stop the
  # timer by killing that thread; bloomc's clock also catches up on adds and
  # lookups, which must stop too.
  describe "the timer's Thread, killed as bloombroom code stops its timer" do
    %i[kill exit terminate].each do |stop|
      it "stands the clock still after Thread##{stop}, even before the thread ran, until start_timer" do
        bf = Bloombroom::ContinuousBloomFilter.new(100, 3, 0.1)
        thread = bf.start_timer
        bf << "kept"
        thread.public_send(stop)
        thread.join
        sleep(0.25) # more than 1.5 ttl
        expect([bf["kept"], bf.ticks, bf.timer_running?]).to eq([true, 0, false])
        expect(bf.start_timer).to be_alive
        deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 2
        sleep(0.01) while bf.ticks < 3 && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
        expect(bf["kept"]).to be(false)
      ensure
        bf&.stop_timer
      end
    end
  end

  it "keeps a new timer running when a thread of a stopped one is killed" do
    bf = Bloombroom::ContinuousBloomFilter.new(100, 3, 0.1)
    old = bf.start_timer
    bf.stop_timer
    current = bf.start_timer
    old.kill
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 2
    sleep(0.01) while bf.ticks < 2 && Process.clock_gettime(Process::CLOCK_MONOTONIC) < deadline
    expect([bf.timer_running?, current.alive?, bf.ticks >= 2]).to eq([true, true, true])
  ensure
    bf&.stop_timer
  end

  describe "beside the real gem" do
    it "has bloombroom's VERSION and its FFI functions, which hash a prefix of the given length" do
      expect(Bloombroom::VERSION).to eq("1.2.0")
      expect(Bloombroom::FNVFFI.c_fnv1a_64("abcdef", 3)).to eq(Bloomc::FNV.fnv1a_64("abc"))
      expect(Bloombroom::FNVFFI.c_fnv1_32("abc", 0)).to eq(Bloomc::FNV.fnv1_32(""))
      expect { Bloombroom::FNVFFI.c_fnv1a_32("abc", 4) }.to raise_error(ArgumentError)
    end

    it "refuses the real gem loaded after it, whose Ruby methods would replace bloomc's" do
      lib = File.expand_path("../../lib", __dir__)
      _, err, status = Open3.capture3(RbConfig.ruby, "-W0", "-I", lib, "-e",
                                      'require "bloomc/bloombroom"; require "bloombroom"')
      expect(status.success?).to be(false)
      expect(err).to match(/bloomc\/bloombroom is loaded: the bloombroom gem cannot load beside it/)
      _, err, status = Open3.capture3(RbConfig.ruby, "-W0", "-I", lib, "-e",
                                      'require "bloombroom"; require "bloomc/bloombroom"')
      expect([status.success?, err]).to match([false, /already loaded/])
    end

    it "lets an application's own file under a lib/bloombroom/ directory add to the classes" do
      Dir.mktmpdir do |dir|
        ext = File.join(dir, "app", "lib", "bloombroom", "ext.rb")
        FileUtils.mkdir_p(File.dirname(ext))
        File.write(ext, "class Bloombroom::BloomFilter\n  def app_extension = :added\nend\n")
        load ext
        expect(Bloombroom::BloomFilter.new(100, 3).app_extension).to eq(:added)
      ensure
        Bloombroom::BloomFilter.send(:remove_method, :app_extension) if Bloombroom::BloomFilter.method_defined?(:app_extension)
      end
    end
  end

  describe "multibyte keys (hashed by every byte, unlike bloombroom)" do
    it "bloombroom cuts \"日本\" and \"日月\" to their first 2 bytes: one key there" do
      expect(reference["multibyte"]["same_probes"]).to be(true)
      expect(reference["multibyte"]["fnv1a_64"].uniq.size).to eq(1)
    end

    it "keeps \"日本\" and \"日月\" apart in the drop-in" do
      expect(Bloombroom::BloomHelper.multi_hash("日本", 3)).not_to eq(Bloombroom::BloomHelper.multi_hash("日月", 3))
      expect(Bloombroom::FNVFFI.fnv1a_64("日本")).not_to eq(Bloombroom::FNVFFI.fnv1a_64("日月"))
      expect(Bloombroom::FNVFFI.fnv1a_64("日本")).to eq(BloombroomDropinCheck.fnv1a_64("日本"))

      bf = Bloombroom::BloomFilter.new(1000, 3)
      bf.add("日本")
      expect(bf.include?("日本")).to be(true)
      expect(bf.include?("日月")).to be(false)

      cbf = Bloombroom::ContinuousBloomFilter.new(1000, 3, 0)
      cbf.add("日本")
      expect(cbf.include?("日本")).to be(true)
      expect(cbf.include?("日月")).to be(false)
    end
  end
  describe "field classes" do
    it "bits and buckets are the Bloombroom field classes, as in bloombroom" do
      expect(Bloombroom::BloomFilter.new(100, 2).bits).to be_a(Bloombroom::BitField)
      expect(Bloombroom::ContinuousBloomFilter.new(100, 2, 0).buckets).to be_a(Bloombroom::BitBucketField)
      expect(Bloomc::BloomFilter.new(100, 2).bits.class).to eq(Bloomc::BitField)
    end
  end
end
