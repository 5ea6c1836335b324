# frozen_string_literal: true

# A generated bad-input matrix. Every public method of every class and module
# is enumerated from the loaded code (a method without an entry in the recipe
# tables fails "has a calling recipe for every public method") and called with
# each value of VALUES in each argument position, keyword included, and with
# one argument too many. Each outcome is checked against what the guide's "Bad
# input" paragraph and the call-seq comments promise for that kind of argument
# (success, or exactly the documented exception class); a success is checked
# against a reference model of the receiver, a raise against a snapshot taken
# before the call (docs/GUIDE.md: bad input "raises and leaves the object as it was").
# Receivers include frozen objects and the views (#bits, #buckets) of live and
# frozen filters. start_timer is called once per receiver, without arguments,
# and is followed by stop_timer; its thread must be running (asleep until its
# first tick) after a success and must not exist after a raise.
#
# The pieces, in spec/support/bad_input/: values.rb (the values tried),
# outcomes.rb (what each kind of argument must do with them), references.rb
# and models.rb (what results and receivers are checked against), the
# recipes_*.rb tables (how to call each method), receivers.rb,
# constructors.rb, and engine.rb (the runner).
require_relative "filter_key"
require_relative "crc32c_reference"
require_relative "bad_input/values"
require_relative "bad_input/references"
require_relative "bad_input/outcomes"
require_relative "bad_input/models"
require_relative "bad_input/recipes_shared"
require_relative "bad_input/recipes_fields"
require_relative "bad_input/recipes_filters"
require_relative "bad_input/recipes_hashes"
require_relative "bad_input/receivers"
require_relative "bad_input/constructors"
require_relative "bad_input/engine"

# Which recipe table covers each class and module (the spec runs them all).
module BadInputMatrix
  RECIPES = {
    Bloomc::BitField => BIT_FIELD, Bloomc::BitBucketField => BIT_BUCKET_FIELD,
    Bloomc::BloomFilter => BLOOM_FILTER, Bloomc::ContinuousBloomFilter => CONTINUOUS_BLOOM_FILTER,
    Bloomc::BlockedBloomFilter => BLOCKED_BLOOM_FILTER,
    Bloomc::CountingBloomFilter => COUNTING_BLOOM_FILTER, Bloomc::SpectralBloomFilter => SPECTRAL_BLOOM_FILTER,
    Bloomc::BitwiseBloomFilter => BITWISE_BLOOM_FILTER, Bloomc::StableBloomFilter => STABLE_BLOOM_FILTER,
    Bloomc::A2BloomFilter => A2_BLOOM_FILTER, Bloomc::ScalableBloomFilter => SCALABLE_BLOOM_FILTER,
    Bloomc::CuckooFilter => CUCKOO_FILTER, Bloomc::BinaryFuseFilter => BINARY_FUSE_FILTER,
    Bloomc::SlidingBloomFilter => SLIDING_BLOOM_FILTER,
    Bloomc::FNV => FNV, Bloomc::Murmur3 => MURMUR3, Bloomc::CRC32C => CRC32C, Bloomc::BloomHelper => BLOOM_HELPER
  }.freeze
end
