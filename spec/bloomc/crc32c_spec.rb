# frozen_string_literal: true

require "spec_helper"
require "open3"

# Published CRC-32C vectors:
# - "123456789" => 0xE3069283: the check value of CRC-32/ISCSI in Greg Cook's
#   "Catalogue of parametrised CRC algorithms"
#   (https://reveng.sourceforge.io/crc-catalogue/17plus.htm#crc.cat.crc-32-iscsi).
# - RFC 3720 (iSCSI), appendix B.4 "CRC Examples": 32 bytes of zeros, of 0xFF,
#   ascending 0x00..0x1F, descending 0x1F..0x00, and a SCSI Read (10) command
#   PDU. The RFC prints each CRC as its bytes on the wire, least significant
#   first: "aa 36 91 8a" is 0x8A9136AA.
# Everything else is checked against a bitwise reference written from the
# definition (CRC32CReference, in spec/support/crc32c_reference.rb).
RSpec.describe Bloomc::CRC32C do
  def software(*args) = described_class.send(:software_checksum, *args)

  # Both paths: .checksum (the CPU's CRC instruction where there is one) and
  # the portable table code.
  def both(*args) = [described_class.checksum(*args), software(*args)]

  rfc3720_pdu = ["01c00000 00000000 00000000 00000000 14000000 00000400 00000014 00000018 " \
                 "28000000 00000000 02000000 00000000".delete(" ")].pack("H*")
  published = {
    "123456789" => ["123456789", 0xE3069283],
    "RFC 3720 B.4, 32 bytes of zeros" => ["\x00".b * 32, 0x8A9136AA],
    "RFC 3720 B.4, 32 bytes of 0xFF" => ["\xFF".b * 32, 0x62A8AB43],
    "RFC 3720 B.4, 32 ascending bytes 0..31" => [(0..31).to_a.pack("C*"), 0x46DD794E],
    "RFC 3720 B.4, 32 descending bytes 31..0" => [(0..31).to_a.reverse.pack("C*"), 0x113FDB5C],
    "RFC 3720 B.4, an iSCSI SCSI Read (10) command PDU" => [rfc3720_pdu, 0xD9963A56]
  }

  describe "published vectors" do
    published.each do |label, (input, expected)|
      it "#{label} => 0x#{expected.to_s(16).upcase}" do
        expect(both(input)).to eq([expected, expected])
        expect(CRC32CReference.checksum(input)).to eq(expected)
      end
    end

    it "gives 0 for the empty string, and returns crc unchanged for it" do
      expect(both("")).to eq([0, 0])
      expect(both("", 0xE3069283)).to eq([0xE3069283, 0xE3069283])
      expect(both("", 0xFFFFFFFF)).to eq([0xFFFFFFFF, 0xFFFFFFFF])
    end
  end

  describe ".checksum" do
    it "returns an Integer in 0..2**32-1" do
      ["", "a", "\xFF".b * 100, Random.new(1).bytes(1000)].each do |s|
        expect(described_class.checksum(s)).to be_an(Integer).and be_between(0, 0xFFFFFFFF)
      end
    end

    it "matches the bitwise reference on random strings of every length up to 100, with and without crc" do
      rng = Random.new(42)
      failures = (0..100).flat_map do |len|
        s = rng.bytes(len)
        crc = rng.rand(2**32)
        [[s], [s, crc]].filter_map do |args|
          expected = CRC32CReference.checksum(*args)
          got = both(*args)
          "len #{len} #{"crc #{crc}" if args.size == 2}: #{got} != #{expected}" unless got == [expected, expected]
        end
      end
      expect(failures).to be_empty, failures.first(5).join("\n")
    end

    it "reaches every entry of the slicing-by-8 tables: each byte value at each position of an 8-byte block" do
      failures = []
      [0, 0x12345678].each do |crc|
        8.times do |pos|
          256.times do |byte|
            s = "\x00".b * 8
            s.setbyte(pos, byte)
            expected = CRC32CReference.checksum(s, crc)
            got = both(s, crc)
            failures << "crc #{crc} byte #{byte} at #{pos}: #{got} != #{expected}" unless got == [expected, expected]
          end
        end
      end
      expect(failures).to be_empty, failures.first(5).join("\n")
    end

    it "chains: the checksum of a + b is checksum(b, checksum(a)), split anywhere" do
      rng = Random.new(7)
      data = rng.bytes(1000)
      whole = described_class.checksum(data)
      expect(whole).to eq(CRC32CReference.checksum(data))
      200.times do
        cuts = Array.new(rng.rand(1..6)) { rng.rand(0..data.bytesize) }.sort
        pieces = [0, *cuts].zip([*cuts, data.bytesize]).map { |a, b| data.byteslice(a, b - a) }
        expect(pieces.sum("")).to eq(data)
        hw = pieces.reduce(0) { |crc, piece| described_class.checksum(piece, crc) }
        sw = pieces.reduce(0) { |crc, piece| software(piece, crc) }
        # The paths can take turns within one stream.
        mixed = pieces.each_with_index.reduce(0) do |crc, (piece, i)|
          i.even? ? described_class.checksum(piece, crc) : software(piece, crc)
        end
        expect([hw, sw, mixed]).to eq([whole, whole, whole]), "cuts #{cuts}"
      end
    end

    it "checksums the bytes, whatever the encoding says" do
      utf8 = "日本語のテキスト"
      expect(described_class.checksum(utf8)).to eq(described_class.checksum(utf8.b))
      expect(described_class.checksum(utf8)).to eq(CRC32CReference.checksum(utf8.b))
      expect(described_class.checksum(utf8.dup.force_encoding(Encoding::UTF_16LE))).to eq(described_class.checksum(utf8))
      expect(described_class.checksum("a\0")).not_to eq(described_class.checksum("a"))
    end

    it "reads a frozen or shared string without changing it" do
      s = Random.new(3).bytes(100).freeze
      tail = s.byteslice(37, 63)
      expect(described_class.checksum(s)).to eq(CRC32CReference.checksum(s))
      expect(described_class.checksum(tail)).to eq(CRC32CReference.checksum(tail))
      expect(s).to be_frozen
    end

    it "checksums a 1 MiB string in one call" do
      s = Random.new(9).bytes(1 << 20)
      expect(described_class.checksum(s)).to eq(software(s))
      expect(described_class.checksum(s)).to eq(described_class.checksum(s.byteslice(512 * 1024, 512 * 1024),
                                                                         described_class.checksum(s.byteslice(0, 512 * 1024))))
    end
  end

  describe "the hardware and software paths" do
    it "agree on every length 0..300 at every start offset 0..15" do
      rng = Random.new(11)
      failures = []
      (0..300).each do |len|
        16.times do |offset|
          # A tail slice longer than an embedded string shares its buffer, so
          # its bytes start offset bytes into it: unaligned starts.
          s = rng.bytes(offset + len).byteslice(offset, len)
          crc = rng.rand(2**32)
          [0, crc].each do |c|
            hw = described_class.checksum(s, c)
            sw = software(s, c)
            failures << "len #{len} offset #{offset} crc #{c}: 0x#{hw.to_s(16)} != 0x#{sw.to_s(16)}" unless hw == sw
          end
        end
      end
      expect(failures).to be_empty, failures.first(5).join("\n")
    end

    it "see every start alignment in the test above" do
      require "fiddle"
      starts = (0..15).map { |offset| Fiddle::Pointer[Random.bytes(offset + 100).byteslice(offset, 100)].to_i % 8 }
      expect(starts.uniq.sort).to eq((0..7).to_a)
    rescue LoadError
      skip "fiddle is not available"
    end

    it "agree on random data of random lengths up to 64 KiB" do
      rng = Random.new(13)
      50.times do
        s = rng.bytes(rng.rand(0..65_536))
        crc = rng.rand(2**32)
        expect(described_class.checksum(s, crc)).to eq(software(s, crc)), "length #{s.bytesize}"
      end
    end

    it "report whether the CPU instruction is used: SSE4.2's where the CPU has it, the table code elsewhere" do
      if RbConfig::CONFIG["host_cpu"] =~ /x86_64|amd64/
        skip "no /proc/cpuinfo to tell whether the CPU has SSE4.2" unless File.readable?("/proc/cpuinfo")
        sse42 = File.read("/proc/cpuinfo").match?(/^flags\s*:.*\bsse4_2\b/)
        expect(described_class.send(:accelerated?)).to eq(sse42)
      else # s390x, arm64 (rake spec:platforms): the portable fallback
        expect(described_class.send(:accelerated?)).to be(false)
      end
    end

    it "keep software_checksum and accelerated? private" do
      expect(described_class.singleton_methods(false)).to eq([:checksum])
      expect { described_class.software_checksum("a") }.to raise_error(NoMethodError)
      expect { described_class.accelerated? }.to raise_error(NoMethodError)
    end
  end

  describe "bad arguments" do
    it "raises TypeError for a str that is not a String, naming the class" do
      [nil, 1, 1.5, :sym, ["a"], Object.new].each do |bad|
        expect { described_class.checksum(bad) }.to raise_error(TypeError, /into String/), bad.inspect
        expect { software(bad) }.to raise_error(TypeError), bad.inspect
      end
    end

    it "raises TypeError for a crc that is not an Integer" do
      [nil, 1.0, "1", :sym, Object.new].each do |bad|
        expect { described_class.checksum("a", bad) }.to raise_error(TypeError, /crc must be an Integer/), bad.inspect
        expect { software("a", bad) }.to raise_error(TypeError), bad.inspect
      end
    end

    it "raises RangeError for a crc outside 0..2**32-1" do
      [-1, 2**32, 2**64, -(2**64), 2**200].each do |bad|
        expect { described_class.checksum("a", bad) }.to raise_error(RangeError, /crc .* outside 0\.\.4294967295/), bad.to_s
        expect { software("a", bad) }.to raise_error(RangeError), bad.to_s
      end
      expect(described_class.checksum("a", 0xFFFFFFFF)).to eq(CRC32CReference.checksum("a", 0xFFFFFFFF))
    end

    it "raises ArgumentError for too few or too many arguments" do
      expect { described_class.checksum }.to raise_error(ArgumentError)
      expect { described_class.checksum("a", 0, 0) }.to raise_error(ArgumentError)
    end
  end

  it "runs in a non-main Ractor" do
    lib = File.expand_path("../../lib", __dir__)
    code = <<~RUBY
      require "bloomc"
      r = Ractor.new { [Bloomc::CRC32C.checksum("123456789"), Bloomc::CRC32C.send(:software_checksum, "123456789")] }
      p r.take
    RUBY
    out, err, status = Open3.capture3(RbConfig.ruby, "-W0", "-I", lib, "-e", code)
    expect(status).to be_success, err
    expect(out.strip).to eq([0xE3069283, 0xE3069283].inspect)
  end
end
