# frozen_string_literal: true

require "rbs"

# The declarations of sig/**/*.rbs, parsed once as the suite loads. rbs 2's
# parser keeps Ruby objects in C globals that GC.compact (gc_spec.rb) moves
# without telling it, so a parse after a compaction can crash the process.
module Signatures
  ROOT = File.expand_path("../../sig", __dir__)
  PARSED = Dir[File.join(ROOT, "**", "*.rbs")].to_h do |path|
    [path.delete_prefix("#{ROOT}/"), RBS::Parser.parse_signature(File.read(path)).freeze]
  end.freeze

  # @param name [String] a path under sig/, e.g. "bloomc.rbs"
  def self.declarations(name) = PARSED.fetch(name)
end
