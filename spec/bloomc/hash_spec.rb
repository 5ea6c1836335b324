# frozen_string_literal: true

require "spec_helper"
require "json"

RSpec.describe Bloomc::FNV do
  let(:vectors) { JSON.parse(File.read(fixture_path("fnv_vectors.json"))) }

  def bytes(hex)
    [hex].pack("H*")
  end

  it "has a vector file with every entry of the reference table" do
    expect(vectors.size).to be >= 200
    expect(vectors.count { |v| bytes(v["input_hex"]).include?("\0") }).to be > 0
  end

  %w[fnv1_32 fnv1a_32 fnv1_64 fnv1a_64].each do |name|
    describe ".#{name}" do
      it "matches every published test vector" do
        failures = vectors.filter_map do |v|
          input = bytes(v["input_hex"])
          expected = Integer(v[name], 16)
          actual = described_class.public_send(name, input)
          "#{v['input_hex'][0, 40]}: expected #{v[name]}, got 0x#{actual.to_s(16)}" unless actual == expected
        end
        expect(failures).to be_empty, failures.first(5).join("\n")
      end

      it "returns a non-negative Integer of at most #{name.end_with?('32') ? 32 : 64} bits" do
        width = name.end_with?("32") ? 32 : 64
        %w[a foobar ffffffff].each do |s|
          h = described_class.public_send(name, s)
          expect(h).to be_an(Integer)
          expect(h).to be_between(0, 2**width - 1)
        end
        expect(described_class.public_send(name, "\xff" * 8)).to be >= 0
      end

      it "hashes every byte: multibyte characters and NULs count" do
        expect(described_class.public_send(name, "日本")).not_to eq(described_class.public_send(name, "日月"))
        expect(described_class.public_send(name, "a\0b")).not_to eq(described_class.public_send(name, "a"))
        expect(described_class.public_send(name, "a\0")).not_to eq(described_class.public_send(name, "a"))
        expect(described_class.public_send(name, "\0")).not_to eq(described_class.public_send(name, ""))
      end

      it "depends on the bytes only, not the encoding" do
        utf8 = "日本"
        expect(described_class.public_send(name, utf8.b)).to eq(described_class.public_send(name, utf8))
        sjis_label = utf8.dup.force_encoding(Encoding::Shift_JIS)
        expect(described_class.public_send(name, sjis_label)).to eq(described_class.public_send(name, utf8))
        # Re-encoding changes the bytes, so it changes the hash.
        expect(described_class.public_send(name, utf8.encode(Encoding::Shift_JIS)))
          .not_to eq(described_class.public_send(name, utf8))
      end

      it "rejects non-String input with TypeError" do
        [nil, 1, :sym, 1.5, ["a"]].each do |input|
          expect { described_class.public_send(name, input) }.to raise_error(TypeError), input.inspect
        end
      end
    end
  end
end

RSpec.describe Bloomc::Murmur3 do
  let(:vectors) { JSON.parse(File.read(fixture_path("murmur3_vectors.json"))) }

  def bytes(hex)
    [hex].pack("H*")
  end

  # SMHasher's VerificationTest: hash key[0, i) (key[j] = j) with seed 256 - i
  # for i in 0..255, concatenate the digests, hash that with seed 0 and read
  # the first 4 bytes of the result as a little-endian uint32.
  def smhasher_verification(digest_of)
    key = (0..255).to_a.pack("C*")
    buffer = (0..255).map { |i| digest_of.call(key.byteslice(0, i), 256 - i) }.join
    digest_of.call(buffer, 0).unpack1("V")
  end

  describe ".hash32" do
    it "matches every published x86_32 test vector" do
      expect(vectors["x86_32"]).not_to be_empty
      failures = vectors["x86_32"].filter_map do |v|
        expected = Integer(v["hash"], 16)
        actual = described_class.hash32(bytes(v["input_hex"]), v["seed"])
        "#{v['input_hex'][0, 40]} seed #{v['seed']}: expected #{v['hash']}, got 0x#{actual.to_s(16)}" unless actual == expected
      end
      expect(failures).to be_empty, failures.first(5).join("\n")
    end

    it "uses seed 0 by default" do
      expect(described_class.hash32("hello")).to eq(described_class.hash32("hello", 0))
      expect(described_class.hash32("hello")).not_to eq(described_class.hash32("hello", 1))
    end

    it "passes SMHasher's verification test" do
      expected = Integer(vectors["smhasher_verification"]["x86_32"], 16)
      digest = ->(str, seed) { [described_class.hash32(str, seed)].pack("V") }
      expect(smhasher_verification(digest)).to eq(expected)
    end
  end

  describe ".hash128 and .digest128" do
    it "match every published x64_128 test vector" do
      expect(vectors["x64_128"]).not_to be_empty
      failures = vectors["x64_128"].flat_map do |v|
        input = bytes(v["input_hex"])
        h1 = Integer(v["h1"], 16)
        h2 = Integer(v["h2"], 16)
        label = "#{v['input_hex'][0, 40]} seed #{v['seed']}"
        out = []
        hash = described_class.hash128(input, v["seed"])
        out << "#{label}: hash128 0x#{hash.to_s(16)}" unless hash == h1 + (h2 << 64)
        digest = described_class.digest128(input, v["seed"])
        out << "#{label}: digest128 #{digest.unpack1('H*')}" unless digest == [h1, h2].pack("Q<Q<")
        out
      end
      expect(failures).to be_empty, failures.first(5).join("\n")
    end

    it "return a 128-bit Integer and a 16-byte binary String that agree" do
      %w[a hello 0123456789abcdef0123456789abcdef].each do |s|
        hash = described_class.hash128(s, 7)
        digest = described_class.digest128(s, 7)
        expect(hash).to be_between(0, 2**128 - 1)
        expect(digest.bytesize).to eq(16)
        expect(digest.encoding).to eq(Encoding::BINARY)
        expect(digest.unpack("Q<Q<")).to eq([hash & (2**64 - 1), hash >> 64])
      end
    end

    it "use seed 0 by default" do
      expect(described_class.hash128("hello")).to eq(described_class.hash128("hello", 0))
      expect(described_class.digest128("hello")).to eq(described_class.digest128("hello", 0))
      expect(described_class.hash128("hello")).not_to eq(described_class.hash128("hello", 1))
    end

    it "pass SMHasher's verification test" do
      expected = Integer(vectors["smhasher_verification"]["x64_128"], 16)
      expect(smhasher_verification(->(str, seed) { described_class.digest128(str, seed) })).to eq(expected)
      expect(smhasher_verification(->(str, seed) { int_digest(str, seed) })).to eq(expected)
    end

    # The digest rebuilt from hash128's Integer (h1 + (h2 << 64)).
    def int_digest(str, seed)
      h = described_class.hash128(str, seed)
      [h & (2**64 - 1), h >> 64].pack("Q<Q<")
    end
  end

  {
    "hash32" => ->(s, *seed) { Bloomc::Murmur3.hash32(s, *seed) },
    "hash128" => ->(s, *seed) { Bloomc::Murmur3.hash128(s, *seed) },
    "digest128" => ->(s, *seed) { Bloomc::Murmur3.digest128(s, *seed) }
  }.each do |name, hash|
    describe ".#{name} inputs" do
      it "hash every byte: multibyte characters and NULs count" do
        expect(hash.call("日本")).not_to eq(hash.call("日月"))
        expect(hash.call("a\0b")).not_to eq(hash.call("a"))
        expect(hash.call("a\0")).not_to eq(hash.call("a"))
        expect(hash.call("\0\0\0\0")).not_to eq(hash.call("\0\0\0"))
        # Every tail length of the block loop.
        long = (0...40).to_a.pack("C*")
        hashes = (0..40).map { |n| hash.call(long.byteslice(0, n)) }
        expect(hashes.uniq.size).to eq(41)
      end

      it "depend on the bytes only, not the encoding" do
        utf8 = "日本語のテキスト"
        expect(hash.call(utf8.b, 5)).to eq(hash.call(utf8, 5))
        expect(hash.call(utf8.dup.force_encoding(Encoding::UTF_16LE), 5)).to eq(hash.call(utf8, 5))
        expect(hash.call(utf8.encode(Encoding::EUC_JP), 5)).not_to eq(hash.call(utf8, 5))
      end

      it "hash a substring by its own bytes only" do
        s = "xxhelloyy"
        expect(hash.call(s[2, 5])).to eq(hash.call("hello"))
        expect(hash.call(s.byteslice(2, 5), 9)).to eq(hash.call("hello", 9))
      end

      it "accept seeds 0 through 2**32-1 and reject others with RangeError" do
        expect { hash.call("a", 0) }.not_to raise_error
        expect { hash.call("a", 2**32 - 1) }.not_to raise_error
        expect(hash.call("a", 2**32 - 1)).not_to eq(hash.call("a", 0))
        [-1, 2**32, 2**32 + 1, 2**64, -(2**70), 2**70].each do |seed|
          expect { hash.call("a", seed) }.to raise_error(RangeError), "seed #{seed}"
        end
      end

      it "reject a seed that is not an Integer with TypeError" do
        [nil, 1.0, "1", :one].each do |seed|
          expect { hash.call("a", seed) }.to raise_error(TypeError), "seed #{seed.inspect}"
        end
      end

      it "reject non-String input with TypeError" do
        [nil, 1, :sym, 1.5, ["a"]].each do |input|
          expect { hash.call(input) }.to raise_error(TypeError), input.inspect
          expect { hash.call(input, 0) }.to raise_error(TypeError), input.inspect
        end
      end

      it "take one or two arguments" do
        expect { Bloomc::Murmur3.public_send(name) }.to raise_error(ArgumentError)
        expect { Bloomc::Murmur3.public_send(name, "a", 0, 1) }.to raise_error(ArgumentError)
      end
    end
  end
end

RSpec.describe Bloomc::BloomHelper do
  describe ".multi_hash" do
    it "returns k Integers in 0...2**64" do
      [1, 2, 7, 128].each do |k|
        values = described_class.multi_hash("key", k)
        expect(values.size).to eq(k)
        expect(values).to all(be_an(Integer).and(be_between(0, 2**64 - 1)))
      end
    end

    it "is deterministic and depends on the key" do
      expect(described_class.multi_hash("key", 10)).to eq(described_class.multi_hash("key", 10))
      expect(described_class.multi_hash("key", 10)).not_to eq(described_class.multi_hash("kez", 10))
      expect(described_class.multi_hash("key", 3)).to eq(described_class.multi_hash("key", 10).first(3))
    end

    it "gives distinct probe values for one key" do
      values = described_class.multi_hash("key", 128)
      expect(values.uniq.size).to eq(128)
    end

    it "derives the probes from MurmurHash3 x64_128 with seed 0 by enhanced double hashing (hash: :murmur3)" do
      mask = 2**64 - 1
      %w[key hello 日本].each do |key|
        h = Bloomc::Murmur3.hash128(key)
        h1 = h & mask
        h2 = h >> 64
        expected = (0...8).map { |i| (h1 + i * h2 + (i**3 - i) / 6) & mask }
        expect(described_class.multi_hash(key, 8, hash: :murmur3)).to eq(expected)
      end
    end

    it "gives the probes of the filters' default, :murmur3_mixed, when no hash: is given" do
      expect(described_class.multi_hash("key", 8)).to eq(described_class.multi_hash("key", 8, hash: :murmur3_mixed))
      expect(described_class.multi_hash("key", 8)).not_to eq(described_class.multi_hash("key", 8, hash: :murmur3))
      filter = Bloomc::BloomFilter.new(1000, 8) << "key"
      expect(filter.bits.each_with_index.select { |b, _| b == 1 }.map(&:last)).to eq(described_class.multi_hash("key", 8, 1000).uniq.sort)
    end

    it "maps the probes onto 0...m when m is given" do
      [1, 2, 7, 1000, 95_851, 2**40 + 3].each do |m|
        values = described_class.multi_hash("key", 20, m)
        expect(values.size).to eq(20)
        expect(values).to all(be_between(0, m - 1))
        raw = described_class.multi_hash("key", 20)
        expect(values).to eq(raw.map { |x| (x * m) >> 64 })
      end
      expect(described_class.multi_hash("key", 5, 1)).to eq([0] * 5)
      expect(described_class.multi_hash("key", 5, nil)).to eq(described_class.multi_hash("key", 5))
    end

    it "spreads the positions over 0...m" do
      positions = hex_keys(2000, seed: 11).flat_map { |key| described_class.multi_hash(key, 4, 64) }
      counts = positions.tally
      expect(counts.keys.size).to eq(64)
      expect(counts.values.min).to be > 60 # 125 expected per position
      expect(counts.values.max).to be < 200
    end

    it "gives the bit positions a BloomFilter with m bits and seed 0 sets" do
      m = 1000
      k = 7
      filter = Bloomc::BloomFilter.new(m, k)
      filter << "some key"
      expected = described_class.multi_hash("some key", k, m).uniq.sort
      set = filter.bits.each_with_index.select { |b, _| b == 1 }.map(&:last)
      expect(set).to eq(expected)
    end

    it "hashes a Symbol as its name" do
      expect(described_class.multi_hash(:key, 7)).to eq(described_class.multi_hash("key", 7))
      expect(described_class.multi_hash(:日本, 7, 100)).to eq(described_class.multi_hash("日本", 7, 100))
    end

    it "hashes an Integer differently from the String of its digits" do
      [0, 1, 123, -5, 2**62, 2**64, 2**100, -(2**100)].each do |n|
        expect(described_class.multi_hash(n, 7)).not_to eq(described_class.multi_hash(n.to_s, 7)), n.to_s
        expect(described_class.multi_hash(n, 7)).to eq(described_class.multi_hash(n, 7))
      end
    end

    it "hashes distinct Integers, Fixnum and Bignum alike, to distinct values" do
      ints = [0, 1, -1, 2**62 - 1, 2**62, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 2**100, -(2**100)]
      hashes = ints.map { |n| described_class.multi_hash(n, 2) }
      expect(hashes.uniq.size).to eq(ints.size)
    end

    it "hashes Strings by bytes, including NULs, regardless of encoding" do
      expect(described_class.multi_hash("a\0b", 4)).not_to eq(described_class.multi_hash("a", 4))
      expect(described_class.multi_hash("日本".b, 4)).to eq(described_class.multi_hash("日本", 4))
      expect(described_class.multi_hash("日本", 4)).not_to eq(described_class.multi_hash("日月", 4))
    end

    it "rejects k outside 1..128 with ArgumentError" do
      expect(Bloomc::MAX_K).to eq(128)
      [0, -1, 129, 2**70].each do |k|
        expect { described_class.multi_hash("key", k) }.to raise_error(ArgumentError), "k #{k}"
      end
      [nil, 2.0, "3"].each do |k|
        expect { described_class.multi_hash("key", k) }.to raise_error(TypeError), "k #{k.inspect}"
      end
    end

    it "rejects m of 0 or less with ArgumentError and a non-Integer m with TypeError" do
      [0, -1].each do |m|
        expect { described_class.multi_hash("key", 3, m) }.to raise_error(ArgumentError), "m #{m}"
      end
      expect { described_class.multi_hash("key", 3, 10.0) }.to raise_error(TypeError)
    end

    it "rejects other key types with a TypeError naming the class" do
      [nil, 1.5, [], {}, Object.new, true, 1r].each do |key|
        expect { described_class.multi_hash(key, 3) }.to raise_error(TypeError, /#{Regexp.escape(key.class.name)}/)
      end
    end

    it "takes two or three arguments" do
      expect { described_class.multi_hash("key") }.to raise_error(ArgumentError)
      expect { described_class.multi_hash("key", 1, 2, 3) }.to raise_error(ArgumentError)
    end
  end

  describe ".find_m_k" do
    it "sizes a filter as bloombroom does" do
      expect(described_class.find_m_k(10_000, 0.01)).to eq([95_851, 7])
      expect(described_class.find_m_k(10_000, 0.001)).to eq([143_776, 10])
    end

    it "follows m = ceil(-n ln p / ln(2)^2), k = round(ln 2 * m / n)" do
      [[1, 0.5], [100, 0.1], [1_000_000, 0.01], [12_345, 0.0001]].each do |n, p|
        m, k = described_class.find_m_k(n, p)
        expect(m).to be_within(1).of((-n * Math.log(p) / Math.log(2)**2).ceil)
        expect(k).to eq((Math.log(2) * m / n).round.clamp(1, Bloomc::MAX_K))
      end
    end

    it "returns Integers, with k at least 1 and at most MAX_K" do
      m, k = described_class.find_m_k(1_000_000, 0.9)
      expect(m).to be_an(Integer)
      expect(k).to eq(1)
      _, k = described_class.find_m_k(10, 1e-300)
      expect(k).to eq(Bloomc::MAX_K)
    end

    it "rejects a capacity that is not positive and finite with ArgumentError" do
      [0, -1, 0.0, -0.5, Float::NAN, Float::INFINITY, -Float::INFINITY].each do |capacity|
        expect { described_class.find_m_k(capacity, 0.01) }.to raise_error(ArgumentError), capacity.inspect
      end
    end

    it "rejects an error rate outside (0, 1) with ArgumentError" do
      [0, 0.0, 1, 1.0, 1.5, -0.1, Float::NAN, Float::INFINITY].each do |error|
        expect { described_class.find_m_k(10_000, error) }.to raise_error(ArgumentError), error.inspect
      end
    end

    it "rejects non-numeric arguments with TypeError" do
      [nil, "x", "0.01", :a, Complex(1, 1)].each do |error|
        expect { described_class.find_m_k(10_000, error) }.to raise_error(TypeError), error.inspect
      end
      [nil, "x", "10", Complex(1, 1)].each do |capacity|
        expect { described_class.find_m_k(capacity, 0.01) }.to raise_error(TypeError), capacity.inspect
      end
    end
  end
end
