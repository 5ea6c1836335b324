# frozen_string_literal: true

require "spec_helper"

# Random operations against simple Ruby reference models, from fixed seeds
# (the fuzzers: spec/support/model_fuzz/, one file each); rerun one seed with
#   FUZZ_SEEDS=3 bundle exec rspec spec/bloomc/model_fuzz_spec.rb -e "seed 3"
RSpec.describe "Model fuzz" do
  ModelFuzz::SEEDS.each do |seed|
    # `rake spec:fast` runs the first seed only
    slow = seed != ModelFuzz::SEEDS.first
    %i[murmur3 fnv1a].each do |hash|
      it "BloomFilter (hash: :#{hash}) matches a Set of its keys, seed #{seed}", slow: slow do
        ModelFuzz::BloomFuzz.new("BloomFilter #{hash}", seed, hash, ops: ModelFuzz::OPS * ModelFuzz::FAST).run
      end
    end

    it "BitField matches an Array, seed #{seed}", slow: slow do
      ModelFuzz::FieldFuzz.new("BitField", seed, buckets: false, ops: ModelFuzz::OPS * ModelFuzz::FAST).run
    end

    it "BitBucketField matches an Array, saturation included, seed #{seed}", slow: slow do
      ModelFuzz::FieldFuzz.new("BitBucketField", seed, buckets: true, ops: ModelFuzz::OPS * ModelFuzz::FAST).run
    end

    { counting: "CountingBloomFilter", mi: "SpectralBloomFilter (MI)", rm: "SpectralBloomFilter (RM)",
      bitwise: "BitwiseBloomFilter", stable: "StableBloomFilter", a2: "A2BloomFilter" }.each do |kind, name|
      it "#{name} keeps its promises against a reference model, seed #{seed}", slow: slow do
        ModelFuzz::FamilyFuzz.new(name, seed, kind).run
      end
    end

    it "ScalableBloomFilter matches a Set of its keys, layer by layer, seed #{seed}", slow: slow do
      ModelFuzz::ScalableFuzz.new("ScalableBloomFilter", seed).run
    end

    it "SlidingBloomFilter finds every key within its ttl, on a clock the fuzzer drives, seed #{seed}", slow: slow do
      ModelFuzz::SlidingFuzz.new("SlidingBloomFilter", seed).run
    end

    [false, true].each do |large|
      it "ContinuousBloomFilter (#{large ? 'large' : 'small'} m) keeps keys for 2 ticks and drops them by the 3rd, seed #{seed}", slow: slow do
        ops = large ? ModelFuzz::OPS : ModelFuzz::OPS * ModelFuzz::FAST
        ModelFuzz::ContinuousFuzz.new("ContinuousBloomFilter #{large ? 'large' : 'small'}", seed, large: large, ops: ops).run
      end
    end
  end
end
