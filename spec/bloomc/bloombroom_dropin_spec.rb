# frozen_string_literal: true

require "spec_helper"
require "fileutils"
require "tmpdir"
require "bloomc/bloombroom"
require "json"
require "open3"
require "rbconfig"

# The drop-in against the real bloombroom 1.2.0, in a child process (how:
# spec/support/bloombroom_dropin_check.rb).
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

    it "ContinuousBloomFilter.new(1000, 3, 2) with its timer: keys gone after 3 seconds", :slow do
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
      expect(err).to match(%r{bloomc/bloombroom is loaded: the bloombroom gem cannot load beside it})
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
