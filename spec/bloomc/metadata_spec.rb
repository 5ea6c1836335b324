# frozen_string_literal: true

require "spec_helper"
require "tmpdir"

# A filter's own small document (Bloomc::Metadata): kept as it will load
# back, saved in format version 3, refused when JSON cannot hold it.
RSpec.describe "filter metadata" do
  let(:document) { { source: +"feed", period: { start: "2026-11-24T13", seconds: 3600 }, tags: [:a, 1, 2.5, nil, true] } }
  let(:loaded_back) do
    { "source" => "feed", "period" => { "start" => "2026-11-24T13", "seconds" => 3600 }, "tags" => ["a", 1, 2.5, nil, true] }
  end

  def every_kind
    [Bloomc::BloomFilter.new(1000, 4), Bloomc::BloomFilter.new(capacity: 100, error_rate: 0.01),
     Bloomc::BlockedBloomFilter.new(1024, 5), Bloomc::ContinuousBloomFilter.new(600, 4, 2.5),
     Bloomc::CountingBloomFilter.new(300, 3), Bloomc::SpectralBloomFilter.new(300, 3),
     Bloomc::BitwiseBloomFilter.new(200, 3), Bloomc::StableBloomFilter.new(500, 3, 4),
     Bloomc::A2BloomFilter.new(800, 3, capacity: 15), Bloomc::ScalableBloomFilter.new(error_rate: 0.01),
     Bloomc::CuckooFilter.new(buckets: 16, fingerprint_bits: 12)]
  end

  it "is nil until set, and is kept as it loads back: String keys, frozen through and through" do
    filter = Bloomc::BloomFilter.new(1000, 4)
    expect(filter.metadata).to be_nil
    filter.metadata = document
    expect(filter.metadata).to eq(loaded_back)
    expect(filter.metadata).to be_frozen
    expect(filter.metadata["period"]).to be_frozen
    document[:source] << "-changed"
    expect(filter.metadata["source"]).to eq("feed") # a copy, not the caller's Hash
    filter.metadata = "just text"
    expect(filter.metadata).to eq("just text")
    filter.metadata = nil
    expect(filter.metadata).to be_nil
    expect(filter.dump.unpack1("S<", offset: 8)).to eq(1) # no metadata: version 1, byte for byte as before
  end

  it "survives dump, load, compression, save, Marshal, dup and clone for every kind, and leaves == alone" do
    Dir.mktmpdir do |dir|
      every_kind.each do |filter|
        filter.add_all(%w[a b c])
        plain = filter.dup
        filter.metadata = document
        expect(filter).to eq(plain)
        expect(filter.hash).to eq(plain.hash)
        expect(filter.dump.unpack("S<S<S<", offset: 8).values_at(0, 2)).to eq([3, Bloomc::Format::FLAG_METADATA])
        path = File.join(dir, "f.bloom")
        filter.save(path, compress: true)
        [Bloomc.load(filter.dump), Bloomc.load(filter.dump(compress: true)), Bloomc.load_file(path),
         filter.class.load_file(path), Marshal.load(Marshal.dump(filter)), filter.dup, filter.clone].each do |copy|
          expect(copy.metadata).to eq(loaded_back), "#{filter.class}: #{copy.metadata.inspect}"
          expect(copy).to eq(filter)
          expect([copy.capacity, copy.error_rate]).to eq([filter.capacity, filter.error_rate])
          expect(copy.include_all(%w[a b c zz])).to eq(filter.include_all(%w[a b c zz]))
        end
      end
    end
  end

  it "keeps a sized filter's sizing and count of new keys beside it (version 3 always has the three parameters)" do
    filter = Bloomc::BloomFilter.new(capacity: 2, error_rate: 0.01).add_all(%w[a b c])
    filter.metadata = "over"
    copy = Bloomc.load(filter.dump)
    expect([copy.capacity, copy.error_rate, copy.over_capacity?]).to eq([2, 0.01, true])
    unsized = Bloomc::BloomFilter.new(1000, 3).tap { |f| f.metadata = "x" }
    expect(Bloomc.load(unsized.dump).capacity).to be_nil
    expect(Bloomc.load(unsized.dump).error_rate).to be_nil
  end

  it "refuses what JSON cannot hold as the same value, and leaves the old metadata" do
    filter = Bloomc::BloomFilter.new(1000, 4)
    filter.metadata = "kept"
    {
      Object.new => [TypeError, /a String or a Hash, not Object/],
      42 => [TypeError, /not Integer/],
      { 1 => 2 } => [TypeError, /keys are Strings or Symbols, not Integer/],
      { a: Object.new } => [TypeError, /cannot hold a Object/],
      { a: Float::INFINITY } => [ArgumentError, /no such number/],
      { a: Time.at(0) } => [TypeError, /cannot hold a Time/],
      "\xff".b => [ArgumentError, /cannot be UTF-8/],
      "\xff".dup.force_encoding(Encoding::UTF_8) => [ArgumentError, /not valid UTF-8/],
      "x" * 70_000 => [ArgumentError, /70002 bytes of JSON: at most 65536/]
    }.each do |value, (error, message)|
      expect { filter.metadata = value }.to raise_error(error, message)
      expect(filter.metadata).to eq("kept")
    end
    filter.metadata = "\u00e9".encode(Encoding::ISO_8859_1) # any encoding that converts
    expect(filter.metadata).to eq("\u00e9")
    expect(filter.metadata.encoding).to eq(Encoding::UTF_8)
  end

  # Issue 32: 100 deep raised JSON::NestingError, 5,000 deep or a Hash that
  # held itself SystemStackError, which `rescue => e` does not catch.
  it "refuses Arrays and Hashes nested past MAX_DEPTH or holding themselves with ArgumentError, and leaves the old metadata" do
    nested = ->(depth, leaf = "x") { Array.new(depth).reduce(leaf) { |inner, _| { "a" => inner } } }
    filter = Bloomc::BloomFilter.new(1000, 4)
    filter.metadata = { "kept" => [1, 2] }
    same = [1, 2]
    selfish = { "a" => 1 }.tap { |h| h["me"] = h }
    inner = []
    looped = [1, [inner]].tap { |a| inner << a }
    # Pairs, not a Hash: hashing a 5,000-deep key overflows the smaller
    # stack of a qemu-emulated Ruby before the filter sees it.
    [[nested.call(101), /more than 100 deep/], [nested.call(5000), /more than 100 deep/],
     [{ "list" => nested.call(150).then { |h| [h] } }, /more than 100 deep/],
     [selfish, /a Hash that contains itself/], [{ "loop" => looped }, /an Array that contains itself/]].each do |value, message|
      expect { filter.metadata = value }.to raise_error(ArgumentError, message)
      expect(filter.metadata).to eq({ "kept" => [1, 2] })
      expect(filter.dump).to eq(filter.dup.dump)
    end
    filter.metadata = { "x" => same, "y" => same } # one Array twice, side by side: no loop
    expect(filter.metadata).to eq({ "x" => [1, 2], "y" => [1, 2] })
    expect(Bloomc.const_get(:Metadata)::MAX_DEPTH).to eq(100)
    filter.metadata = nested.call(100) # JSON's own limit: written and read back
    expect(Bloomc.load(filter.dump).metadata).to eq(nested.call(100))
  end

  it "cannot be set on a frozen filter or a mapped one, and a mapped file keeps what it was saved with" do
    expect { Bloomc::BloomFilter.new(10, 1).freeze.metadata = "x" }.to raise_error(FrozenError)
    Dir.mktmpdir do |dir|
      path = File.join(dir, "m.bloom")
      Bloomc::BloomFilter.new(capacity: 1000, error_rate: 0.01).add("a").tap { |f| f.metadata = document }.save(path)
      mapped = Bloomc::BloomFilter.open(path)
      expect(mapped.metadata).to eq(loaded_back)
      expect { mapped.metadata = "y" }.to raise_error(Bloomc::UnsupportedError, /fixed by its file/)
      mapped << "b"
      mapped.close
      reread = Bloomc.load_file(path)
      expect(reread.metadata).to eq(loaded_back)
      expect(reread.include_all(%w[a b])).to eq([true, true])
    end
  end

  describe "in the format" do
    let(:filter) { Bloomc::BloomFilter.new(1000, 4, seed: 7).add_all(%w[a b]).tap { |f| f.metadata = { "a" => 1 } } }

    it "is a block after the header's checksum: its length, its CRC32C and the JSON text, then padding to 64" do
      data = filter.dump
      n = data.unpack1("S<", offset: 14)
      expect(n).to eq(8) # m, k, seed, hash, count and the three sizing parameters, 0 and 0 for none
      from = 16 + 8 * n + 24
      length, crc = data.unpack("L<L<", offset: from)
      expect(data.byteslice(from + 8, length)).to eq('{"a":1}')
      expect(crc).to eq(Bloomc::CRC32C.checksum('{"a":1}'))
      body_at = (from + 8 + length + 63) / 64 * 64
      expect(data.bytesize).to eq(body_at + 128)
    end

    def with_block(data, json)
      n = data.unpack1("S<", offset: 14)
      from = 16 + 8 * n + 24
      length = data.unpack1("L<", offset: from)
      head = data.byteslice(0, from) + [json.bytesize, Bloomc::CRC32C.checksum(json)].pack("L<L<") + json
      body_at = (from + 8 + length + 63) / 64 * 64
      head + ("\0" * (-head.bytesize % 64)) + data.byteslice(body_at..)
    end

    it "refuses a damaged block with a reason" do
      data = filter.dump
      from = 16 + 8 * 8 + 24
      damaged = data.dup.tap { |d| d.setbyte(from + 9, d.getbyte(from + 9) ^ 1) }
      expect { Bloomc.load(damaged) }.to raise_error(Bloomc::FormatError, /metadata checksum mismatch/)
      expect { Bloomc.load(data.byteslice(0, from + 4)) }.to raise_error(Bloomc::FormatError, /truncated/)
      expect { Bloomc.load(with_block(data, "[1,2,3]")) }.to raise_error(Bloomc::FormatError, /JSON Array, not a string or an object/)
      expect { Bloomc.load(with_block(data, "{oops")) }.to raise_error(Bloomc::FormatError, /not JSON/)
      expect { Bloomc.load(with_block(data, "\"\xff\"".b)) }.to raise_error(Bloomc::FormatError, /not UTF-8/)
      zero = data.dup.tap { |d| d[from, 4] = [0].pack("L<") }
      expect { Bloomc.load(zero) }.to raise_error(Bloomc::FormatError, /metadata of 0 bytes/)
      expect { Bloomc.load(with_block(data, '{"x":1e400}')) }.to raise_error(Bloomc::FormatError, /JSON cannot give back/)
      expect { Bloomc.load(with_block(data, "#{'{"a":' * 101}1#{'}' * 101}")) }.to raise_error(Bloomc::FormatError, /not JSON.*nesting/)
      expect(Bloomc.load(with_block(data, '"short"')).metadata).to eq("short")
    end

    it "is read from a file only as far as its header says" do
      Dir.mktmpdir do |dir|
        path = File.join(dir, "f.bloom")
        filter.metadata = { "long" => "z" * 60_000 }
        filter.save(path)
        expect(Bloomc.load_file(path).metadata["long"].size).to eq(60_000)
        File.binwrite(path, File.binread(path).byteslice(0, 5000))
        expect { Bloomc.load_file(path) }.to raise_error(Bloomc::FormatError, /truncated/)
      end
    end
  end
end
