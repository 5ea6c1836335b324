# frozen_string_literal: true

require "spec_helper"
require "set"

# The batch forms (Bloomc::Batch) on every filter class: the same answers as
# one call per key, in bulk.
RSpec.describe Bloomc.const_get(:Batch) do
  # name => [k, its own keywords]
  makers = { "BloomFilter" => [5, { seed: 3 }], "BloomFilter (fnv1a)" => [5, {}], "BlockedBloomFilter" => [6, { seed: 3 }],
             "ContinuousBloomFilter" => [5, { seed: 3 }] }
           .to_h { |name, (k, own)| [name, ->(m) { Kinds.plain(name, m, k, **own) }] }
  mixed = ["a", :b, 7, -3, 2**70, "", "nul\0", "\u00e9".encode("ISO-8859-1")]

  makers.each do |name, make|
    describe name do
      # 20,000 bits holding 300 keys: about a third full, so lookups of absent
      # keys find both answers.
      let(:filter) { make.call(20_000) }
      let(:present) { hex_keys(300, seed: 1) + mixed }
      let(:absent) { hex_keys(700, seed: 2) }

      it "add_all adds what add adds, and returns self" do
        one_by_one = make.call(20_000)
        present.each { |key| one_by_one << key }
        expect(filter.add_all(present)).to equal(filter)
        expect(filter).to eq(one_by_one)
      end

      it "include_all, count_included, all_include? and any_include? agree with include?" do
        filter.add_all(present)
        keys = (present + absent).shuffle(random: Random.new(4))
        expected = keys.map { |key| filter.include?(key) }
        expect(expected.count(false)).to be > 100
        expect(filter.include_all(keys)).to eq(expected)
        expect(filter.count_included(keys)).to eq(expected.count(true))
        expect(filter.all_include?(present)).to be(true)
        expect(filter.all_include?(keys)).to be(false)
        expect(filter.any_include?(keys)).to be(true)
        never = absent.reject { |key| filter.include?(key) }
        expect(filter.any_include?(never)).to be(false)
        expect(filter.count_included(never)).to eq(0)
      end

      it "answers for empty batches as Enumerable does" do
        expect([filter.include_all([]), filter.count_included([]), filter.all_include?([]), filter.any_include?([])])
          .to eq([[], 0, true, false])
        expect(filter.add_all([])).to equal(filter)
      end

      it "takes any Enumerable" do
        filter.add_all(Set["s1", "s2"])
        filter.add_all(1..50)
        filter.add_all(%w[e1 e2].each)
        expect(filter.all_include?(["s1", "s2", "e1", "e2", *1..50])).to be(true)
        expect(filter.count_included({ "s1" => 1 }.each_key)).to eq(1)
      end

      it "raises TypeError for a non-Enumerable or a bad key, and add_all leaves the filter as it was" do
        filter.add_all(present)
        before = filter.dup
        ["abc", nil, 42, :sym].each do |bad|
          expect { filter.add_all(bad) }.to raise_error(TypeError, /Array or Enumerable/)
          expect { filter.count_included(bad) }.to raise_error(TypeError)
        end
        bad_keys = hex_keys(200, seed: 9) + [1.5] + hex_keys(200, seed: 10)
        expect { filter.add_all(bad_keys) }.to raise_error(TypeError, /index 200.*Float/)
        expect { filter.include_all(bad_keys) }.to raise_error(TypeError)
        expect { filter.add_all({ "k" => "v" }) }.to raise_error(TypeError, /Array/)
        expect(filter).to eq(before)
      end

      it "raises for a bad key wherever it is, even after the answer is known" do
        filter.add_all(present)
        expect { filter.all_include?(["never added", 1.5]) }.to raise_error(TypeError)
        expect { filter.any_include?([present.first, nil]) }.to raise_error(TypeError)
      end

      it "refuses add_all when frozen and still answers lookups" do
        filter.add_all(present)
        filter.freeze
        expect { filter.add_all(["x"]) }.to raise_error(FrozenError)
        expect(filter.count_included(present)).to eq(present.size)
      end

      it "gives the same answers on a filter large enough to prefetch (over 1 MiB)" do
        big = make.call(12 * 2**20)
        keys = hex_keys(5000, seed: 6)
        big.add_all(keys)
        probe = keys.first(1000) + hex_keys(3000, seed: 7)
        expect(big.include_all(probe)).to eq(probe.map { |key| big.include?(key) })
        expect(big.count_included(keys)).to eq(keys.size)
        one_by_one = make.call(12 * 2**20)
        keys.each { |key| one_by_one << key }
        expect(big).to eq(one_by_one) # the same cells and counts
        more = keys.first(100) + hex_keys(500, seed: 8)
        new_ones = more.select { |key| one_by_one.add?(key) } # add? is nil for a key (probably) present
        expect(big.add_new(more)).to eq(new_ones)
        expect(big).to eq(one_by_one)
      end
    end
  end

  describe "on a ContinuousBloomFilter" do
    it "lets keys expire as single lookups do" do
      filter = Bloomc::ContinuousBloomFilter.new(10_000, 4, 0)
      filter.add_all(%w[a b c])
      2.times { filter.inc_time_slot }
      expect(filter.all_include?(%w[a b c])).to be(true)
      filter.inc_time_slot
      expect(filter.include_all(%w[a b c])).to eq([false, false, false])
    end

    it "brings a live clock up to date before a batch writes" do
      filter = Bloomc::ContinuousBloomFilter.new(10_000, 4, 0.2)
      filter.start_timer
      filter.add_all(%w[old])
      sleep 0.35 # past ttl and 1.5 ttl after the add
      filter.add_all(%w[new])
      expect(filter.include_all(%w[old new])).to eq([false, true])
    ensure
      filter&.stop_timer
    end
  end
end
