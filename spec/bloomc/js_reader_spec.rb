# frozen_string_literal: true

require "spec_helper"
require "json"
require "open3"
require "tmpdir"

# The JavaScript reader (js/) against bloomc: filters of every kind it reads,
# saved plain and deflated, with every hash and seed option, and Ruby's
# answer for each of 100,000 keys added and 100,000 never added (multibyte,
# NUL, empty, byte-string and Integer keys among them); `node --test` must
# give the same answer for every one.
RSpec.describe "the JavaScript reader", :slow do
  node = ENV.fetch("NODE", "node")
  available = system("#{node} --version > /dev/null 2>&1")

  # [type, value] as js/test/reader.test.js reads it, and the Ruby key.
  def fixture_key(key)
    case key
    when Integer then ["i", key.to_s]
    when String then key.encoding == Encoding::BINARY ? ["b", key.unpack1("H*")] : ["s", key]
    end
  end

  def keys(n, salt)
    Array.new(n) do |i|
      case i % 6
      when 0 then "#{salt}-#{i}"
      when 1 then "#{salt}-\u65e5\u672c-#{i}\u00e9"
      when 2 then "#{salt}\0#{i}\0"
      when 3 then [salt.sum, i].pack("Q<N").b
      when 4 then i.odd? ? -(i * 7919) : i * 7919
      else (2**64 + i) * (i.odd? ? -1 : 1)
      end
    end
  end

  it "answers every key as bloomc does, for every kind it reads" do
    skip "#{node} is not installed" unless available || ENV["BLOOMC_NODE_REQUIRED"]

    added = keys(100_000, "in") + ["", "\0"]
    probes = added + keys(100_000, "out")
    filters = {
      "bloom" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01),
      "bloom_seed" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.001, seed: 2**32 - 1),
      "bloom_fnv1a" => Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01, hash: :fnv1a),
      "bloom_small_m" => Bloomc::BloomFilter.new(100_003, 3, seed: 11),
      "blocked" => Bloomc::BlockedBloomFilter.new(capacity: 100_000, error_rate: 0.01, seed: 5),
      "blocked_k12" => Bloomc::BlockedBloomFilter.new(2**20, 12)
    }
    Dir.mktmpdir do |dir|
      filters.each_with_index do |(name, filter), i|
        filter.add_all(added)
        File.binwrite(File.join(dir, "#{name}.bloom"), filter.dump(compress: i.odd?))
        File.write(File.join(dir, "#{name}.json"),
                   JSON.generate(keys: probes.map { |key| fixture_key(key) }, answers: filter.include_all(probes)))
      end
      out, status = Open3.capture2e({ "BLOOMC_JS_FIXTURES" => dir }, node, "--test", "js/test/",
                                    chdir: File.expand_path("../..", __dir__))
      expect(status.success?).to be(true), out
      expect(out).to match(/^# pass (\d+)/)
      expect(out[/^# pass (\d+)/, 1].to_i).to eq(3 + 2 * filters.size)
    end
  end
end
