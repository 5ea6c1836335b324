# frozen_string_literal: true

require "spec_helper"

# The command's work on lines, in C (batch.c): dedup_lines, add_lines and
# query_lines take a chunk of whole lines and its length, with no Ruby String
# a key. cli_spec.rb drives them through the command in subprocesses; here
# they run in process, so that `rake sanitize` checks them cheaply.
RSpec.describe "the line loops the command runs" do
  kinds = {
    "BloomFilter" => -> { Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.001) },
    "ScalableBloomFilter" => -> { Bloomc::ScalableBloomFilter.new(error_rate: 0.001, initial_capacity: 4) },
    "ContinuousBloomFilter" => -> { Bloomc::ContinuousBloomFilter.new(capacity: 1000, error_rate: 0.001, ttl: 60) },
    "BlockedBloomFilter" => -> { Bloomc::BlockedBloomFilter.new(capacity: 1000, error_rate: 0.001) }
  }
  # 40 distinct lines of 1 to 200 bytes, each twice, and the chunk's tail
  # past its length, which no loop may read as a line.
  lines = Array.new(40) { |i| "line#{i}-#{'x' * (i * 5)}" }
  chunk = "#{(lines + lines.reverse).join("\n")}\n".b
  length = chunk.bytesize
  padded = "#{chunk}not a line past the length".b

  kinds.each do |name, make|
    describe name do
      it "dedup_lines writes each line the first time only, and reads no byte past the length" do
        filter = make.call
        out = +"".b
        expect(filter.send(:dedup_lines, padded, out, length)).to equal(out)
        expect(out).to eq("#{lines.join("\n")}\n")
        expect(filter.send(:dedup_lines, "#{lines[0]}\nnew\n".b, out.clear, lines[0].bytesize + 5)).to eq("new\n")
        expect(filter.include?("not a line past the length")).to be(false)
      end

      it "query_lines prints the lines held, or with invert those not held, by chosen fields" do
        filter = make.call
        filter.add_all(lines.first(20))
        probe = "#{lines.join("\n")}\n".b
        out = +"".b
        expect(filter.send(:query_lines, probe, out, probe.bytesize, nil, nil, false)).to eq(20)
        expect(out).to eq("#{lines.first(20).join("\n")}\n")
        expect(filter.send(:query_lines, probe, out.clear, probe.bytesize, nil, nil, true)).to eq(20)
        expect(out).to eq("#{lines.last(20).join("\n")}\n")
        # Field 2 of "n,KEY,rest": a line is printed whole when its key is held.
        rows = lines.each_with_index.map { |line, i| "#{i},#{line},rest" }
        csv = "#{rows.join("\n")}\n".b
        second = "\0\1".b
        expect(filter.send(:query_lines, csv, out.clear, csv.bytesize, ",".ord, second, false)).to eq(20)
        expect(out).to eq("#{rows.first(20).join("\n")}\n")
      end

      # A kind whose adds may raise (the scalable filter's cap) has none: the
      # command adds its lines with add_all.
      next unless make.call.respond_to?(:add_lines, true)

      it "add_lines adds each line, on one thread or two" do
        [1, 2].each do |threads|
          filter = make.call
          filter.send(:add_lines, padded, length, threads)
          expect(filter.include_all(lines)).to all(be(true))
          expect(filter.include?("not a line past the length")).to be(false)
        end
      end
    end
  end
end
