# frozen_string_literal: true

require "spec_helper"

# ==, eql? and hash agree, so equal objects are one Hash key and uniq merges
# them; inspect works even on an object that was never initialized.
RSpec.describe "equality, hashing and inspect" do
  builders = {
    Bloomc::BitField => -> { Bloomc::BitField.new(100).set(3).set(99) },
    Bloomc::BitBucketField => -> { Bloomc::BitBucketField.new(5, 40).tap { |f| f[7] = 31 } },
    Bloomc::BloomFilter => -> { Kinds.plain("BloomFilter", 1000, 3).tap { |f| f << "k" } },
    Bloomc::CountingBloomFilter => -> { Kinds.plain("CountingBloomFilter", 1000, 3).tap { |f| f << "k" << "k" } },
    Bloomc::SpectralBloomFilter => -> { Kinds.plain("SpectralBloomFilter (RM)", 1000, 3).tap { |f| f << "k" << "k" } },
    Bloomc::BitwiseBloomFilter => -> { Kinds.plain("BitwiseBloomFilter", 1000, 3, width: 1).tap { |f| 3.times { f << "k" } } },
    Bloomc::StableBloomFilter => -> { Kinds.plain("StableBloomFilter", 1000, 3, d: 5, random_seed: 9).tap { |f| f << "k" } },
    Bloomc::A2BloomFilter => -> { Kinds.plain("A2BloomFilter", 1000, 3, capacity: 1).tap { |f| f << "j" << "k" } },
    # three layers
    Bloomc::ScalableBloomFilter => -> { Kinds.sized("ScalableBloomFilter", 1, 0.01).tap { |f| f << "i" << "j" << "k" } },
    Bloomc::CuckooFilter => -> { Bloomc::CuckooFilter.new(buckets: 64, fingerprint_bits: 12).tap { |f| f << "k" << "k" } }
  }

  builders.each do |klass, build|
    describe klass do
      it "gives equal objects equal hashes, eql? and one Hash slot" do
        a = build.call
        b = build.call
        expect(a).to eq(b)
        expect(a.eql?(b)).to be(true)
        expect(a.hash).to eq(b.hash)
        expect({ a => 1 }[b]).to eq(1)
        expect([a, b].uniq.size).to eq(1)
      end

      it "tells a changed object apart" do
        a = build.call
        b = build.call
        b.respond_to?(:add) ? b << "other" : b[0] = 1
        expect(a.eql?(b)).to be(false)
        expect(a.hash).not_to eq(b.hash)
      end

      if klass == Bloomc::ScalableBloomFilter
        it "tells apart filters of the same keys and other parameters, or the same bits and another add count" do
          a = build.call
          [Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1, seed: 1).tap { |f| f << "i" << "j" << "k" },
           Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 1, max_capacity: 100).tap { |f| f << "i" << "j" << "k" },
           build.call << "k"].each do |b|
            expect(a == b).to be(false)
            expect(a.eql?(b)).to be(false)
            expect(a.hash).not_to eq(b.hash)
          end
          expect(a == Bloomc::BloomFilter.new(10, 1)).to be(false)
        end
      end

      if klass == Bloomc::CuckooFilter
        it "tells apart filters of the same keys and another seed, or another number of copies" do
          a = build.call
          [Bloomc::CuckooFilter.new(buckets: 64, fingerprint_bits: 12, seed: 1).tap { |f| f << "k" << "k" },
           Bloomc::CuckooFilter.new(buckets: 64, fingerprint_bits: 12).tap { |f| f << "k" }].each do |b|
            expect(a == b).to be(false)
            expect(a.hash).not_to eq(b.hash)
          end
        end
      end

      it "inspects an uninitialized object without raising" do
        expect(klass.allocate.inspect).to eq("#<#{klass} (uninitialized)>")
      end
    end
  end
end
