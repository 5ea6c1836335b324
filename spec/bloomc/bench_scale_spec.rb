# frozen_string_literal: true

require "spec_helper"
require "open3"
require "rbconfig"
require "tmpdir"

# `rake bench:scale` in its quick mode (1 MiB, 20,000 keys, a second or two):
# it runs, prints a row of every table and writes its Markdown where it is
# told. What it measures is never checked here. (:slow: a Ruby process.)
RSpec.describe "bench/scale.rb", :slow do
  root = File.expand_path("../..", __dir__)
  classes = %w[BloomFilter BlockedBloomFilter ContinuousBloomFilter]

  it "prints its tables in quick mode and exits 0" do
    Dir.mktmpdir do |dir|
      out, status = Open3.capture2e({ "BLOOMC_SCALE_QUICK" => "1", "BLOOMC_SCALE_OUT" => dir, "BLOOMC_SCALE_SIZES" => nil },
                                    RbConfig.ruby, "-I", File.join(root, "lib"), File.join(root, "bench", "scale.rb"))
      expect(status).to be_success, out
      # Each class in the cost table, the threads table and the prefault one.
      classes.each { |name| expect(out.scan(/^1M\s+#{name}\s+4 KiB\s/).size).to eq(3), out }
      ["first fill / next add_all, 1 GiB BlockedBloomFilter", "add_all (first fill) a key at 1 GiB / at 1 MiB",
       "add_all at 1 GiB, 2 threads / 1", "count_included at 1 GiB, 2 threads / 1", "bloomc build of 100M keys"].each do |row|
        expect(out).to match(%r{^#{Regexp.escape(row)}.*(holds|misses|n/a)\s*$}), out
      end
      markdown = File.read(File.join(dir, "scale.md"))
      classes.each { |name| expect(markdown).to include("| 1M | #{name} | 4 KiB | 20000 |") }
    end
  end
end
