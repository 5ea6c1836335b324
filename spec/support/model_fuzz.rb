# frozen_string_literal: true

# Random operations against simple Ruby reference models, from fixed seeds.
# A failure names the fuzzer, the seed and the index of the failing operation
# and lists the operations before it; rerun one with
#   FUZZ_SEEDS=3 bundle exec rspec spec/bloomc/model_fuzz_spec.rb -e "seed 3"
#
# The pieces, in spec/support/model_fuzz/: engine.rb (the run, checks, keys
# and copies) and one file per fuzzer: bloom.rb, fields.rb, continuous.rb,
# family.rb and scalable.rb.
require_relative "filter_key"
require_relative "model_fuzz/engine"
require_relative "model_fuzz/bloom"
require_relative "model_fuzz/fields"
require_relative "model_fuzz/continuous"
require_relative "model_fuzz/family"
require_relative "model_fuzz/scalable"
require_relative "model_fuzz/sliding"
