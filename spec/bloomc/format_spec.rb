# frozen_string_literal: true

require "spec_helper"
require "tmpdir"
require "timeout"
require_relative "../support/format_samples"

# The binary format (docs/FORMAT.md): every class round-trips, byte for byte
# against golden files written by an earlier build, and bad input raises
# Bloomc::FormatError with a reason.
RSpec.describe "the binary format" do
  samples = FormatSamples::BUILDERS

  samples.each do |name, build|
    describe name do
      let(:filter) { build.call }

      it "round-trips through dump and Bloomc.load, plain and compressed, to an equal filter that works on" do
        [false, true].each do |compress|
          filter = build.call
          data = filter.dump(compress: compress)
          expect(data.encoding).to eq(Encoding::BINARY)
          copy = Bloomc.load(data)
          expect(copy).to be_an_instance_of(filter.class)
          expect(copy).to eq(filter)
          expect(copy.include_all(FormatSamples::KEYS.last(8))).to eq(filter.include_all(FormatSamples::KEYS.last(8)))
          expect(copy.size).to eq(filter.size) if filter.respond_to?(:size)
          copy << "after"
          filter << "after"
          expect(copy).to eq(filter) # the same next state: counters, clocks and generators were saved
        end
      end

      it "loads the golden file of format version 1 as the filter it was, and dumps the same bytes" do
        golden = File.binread(FormatSamples.path(name))
        expect(Bloomc.load(golden)).to eq(filter)
        expect(filter.dump).to eq(golden)
      end

      it "loads through its class, Marshal, save and load_file" do
        expect(filter.class.load(filter.dump)).to eq(filter)
        expect(Marshal.load(Marshal.dump(filter))).to eq(filter)
        Dir.mktmpdir do |dir|
          path = File.join(dir, "f.bloom")
          expect(filter.save(path, compress: true)).to equal(filter)
          expect(Bloomc.load_file(path)).to eq(filter)
          expect(filter.class.load_file(path)).to eq(filter)
          expect(Dir.children(dir)).to eq(["f.bloom"]) # no temporary file left
        end
      end

      it "refuses a dump of another kind through a class's load" do
        other = filter.is_a?(Bloomc::BloomFilter) ? Bloomc::CountingBloomFilter : Bloomc::BloomFilter
        expect { other.load(filter.dump) }.to raise_error(Bloomc::FormatError, /holds a #{filter.class}, not a #{other}/)
      end
    end
  end

  describe "the header, decoded by hand" do
    it "is the documented layout: magic, version, kind, flags, parameters, lengths, checksums, padding to 64, body" do
      filter = samples.fetch("bloom").call
      data = filter.dump
      expect(data.byteslice(0, 8)).to eq("\x89BLOOMC\n".b)
      version, kind, flags, n = data.unpack("S<4", offset: 8)
      expect([version, kind, flags, n]).to eq([1, 1, 0, 5])
      expect(data.unpack("Q<5", offset: 16)).to eq([1000, 4, 7, 0, 40]) # m, k, seed, hash, count
      stored, raw, body_crc, header_crc = data.unpack("Q<2L<2", offset: 56)
      expect([stored, raw]).to eq([128, 128]) # 1000 bits in 16 words
      expect(data.byteslice(80, 48)).to eq("\0" * 48)
      body = data.byteslice(128, 128)
      expect(body).to eq([filter.bits.to_s.ljust(1024, "0")].pack("b*"))
      expect(data.bytesize).to eq(128 + 128)
      expect(body_crc).to eq(Bloomc::CRC32C.checksum(body))
      expect(header_crc).to eq(Bloomc::CRC32C.checksum(data.byteslice(0, 76)))
    end

    it "stores a continuous filter's ttl as the bits of a double" do
      data = samples.fetch("continuous").call.dump
      expect(data.unpack("Q<10", offset: 16).last).to eq([2.5].pack("E").unpack1("Q<"))
      expect(Bloomc.load(data).ttl).to eq(2.5)
      expect(Bloomc.load(Bloomc::ContinuousBloomFilter.new(10, 1, 60).dump).ttl).to eql(60)
    end
  end

  describe "compression" do
    it "shrinks a sparse filter to a small fraction of its size" do
      filter = Bloomc::BloomFilter.new(capacity: 100_000, error_rate: 0.01).add_all(Array.new(1000) { |i| "k#{i}" })
      plain = filter.dump
      packed = filter.dump(compress: true)
      expect(packed.bytesize).to be < plain.bytesize / 8
      expect(Bloomc.load(packed)).to eq(filter)
    end
  end

  describe "bad input" do
    let(:data) { samples.fetch("counting").call.dump }

    # Both checksums made right again after an edit (n parameters).
    def with_crc(bytes, n = 6)
      at = 16 + 8 * n
      body_at = (at + 24 + 63) / 64 * 64
      bytes = bytes.dup
      bytes[at + 16, 4] = [Bloomc::CRC32C.checksum(bytes.byteslice(body_at..) || "")].pack("L<")
      bytes[at + 20, 4] = [Bloomc::CRC32C.checksum(bytes.byteslice(0, at + 20))].pack("L<")
      bytes
    end

    def refused(bytes, reason)
      expect { Bloomc.load(bytes) }.to raise_error(Bloomc::FormatError, reason)
    end

    it "names what is wrong" do
      refused("", /0 bytes are too few/)
      refused("x" * 100, /bad magic/)
      refused(data.byteslice(0, 60), /truncated/)
      refused(data + "\0", /truncated or padded/)
      refused(data.dup.tap { |d| d.setbyte(150, d.getbyte(150) ^ 1) }, /body checksum mismatch/)
      refused(data.dup.tap { |d| d.setbyte(20, d.getbyte(20) ^ 1) }, /header checksum mismatch/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(8, 3) }), /format version 3 is newer than this bloomc reads \(2\)/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(10, 99) }), /unknown filter kind 99/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(12, 4) }), /unknown flags 4/)
      refused(with_crc(data.dup.tap { |d| d[16, 8] = [0].pack("Q<") }), /m 0 outside 1\.\./)
      refused(with_crc(data.dup.tap { |d| d[32, 8] = [33].pack("Q<") }), /width 33 outside 1\.\.32/)
      refused(with_crc(data.dup.tap { |d| d[16, 8] = [301].pack("Q<") }), /body of \d+ bytes where the parameters need/)
    end

    it "refuses a deflated body that claims more than it can hold, without inflating it" do
      filter = Bloomc::BloomFilter.new(1000, 3)
      packed = filter.dump(compress: true)
      n = 5
      at = 16 + 8 * n
      refused(with_crc(packed.dup.tap { |d| d[at + 8, 8] = [2**40].pack("Q<") }, n), /cannot hold/)
      refused(with_crc(packed.dup.tap { |d| d[at + 8, 8] = [64].pack("Q<") }, n), /holds more than the 64 bytes/)
    end

    it "raises TypeError for a non-String" do
      expect { Bloomc.load(nil) }.to raise_error(TypeError)
      expect { Bloomc.load(42) }.to raise_error(TypeError)
    end

    describe "load_file" do
      around do |example|
        Dir.mktmpdir { |dir| @dir = dir; example.run }
      end

      it "refuses a file by its header, before reading the rest" do
        path = File.join(@dir, "f.bloom")
        File.binwrite(path, data + "\0")
        expect { Bloomc.load_file(path) }.to raise_error(Bloomc::FormatError, /#{data.bytesize + 1} bytes where the header says #{data.bytesize}/)
        File.binwrite(path, data.byteslice(0, 100))
        expect { Bloomc.load_file(path) }.to raise_error(Bloomc::FormatError, /truncated/)
        File.binwrite(path, data)
        expect { Bloomc::BloomFilter.load_file(path) }.to raise_error(Bloomc::FormatError, /holds a Bloomc::CountingBloomFilter/)
        expect { Bloomc.load_file(File::NULL) }.to raise_error(Bloomc::FormatError, /0 bytes are too few/)

        # A pipe whose writer has sent a line and not closed it: reading to
        # the end first would wait for ever (or for a /dev/zero, fill memory).
        fifo = File.join(@dir, "fifo")
        File.mkfifo(fifo)
        writer = Thread.new { File.open(fifo, "wb") { |w| w.write("a log line\n" * 10).then { w.flush; sleep } } }
        expect { Timeout.timeout(10) { Bloomc.load_file(fifo) } }.to raise_error(Bloomc::FormatError, /bad magic/)
        writer.kill.join
      end

      it "is where save writes through a symlink, which stays, and never over a pipe or a directory" do
        filter = Bloomc::BloomFilter.new(1000, 3).tap { |f| f << "k" }
        target = File.join(@dir, "target.bloom")
        link = File.join(@dir, "link.bloom")
        File.symlink("target.bloom", link) # dangling until the save
        filter.save(link)
        expect([File.symlink?(link), Bloomc.load_file(target)]).to eq([true, filter])
        fifo = File.join(@dir, "fifo")
        File.mkfifo(fifo)
        [fifo, @dir].each do |path|
          expect { filter.save(path) }.to raise_error(ArgumentError, /not a regular file/)
        end
        expect(File.ftype(fifo)).to eq("fifo")
        expect(Dir.children(@dir).sort).to eq(%w[fifo link.bloom target.bloom]) # no temporary file left
      end

      it "reads a filter from a pipe, checking its length as from a file" do
        read, write = IO.pipe
        write.write(data)
        write.close
        expect(Bloomc.load_file("/dev/fd/#{read.fileno}")).to eq(Bloomc.load(data))
        read.close
        read, write = IO.pipe
        write.write(data + "more")
        write.close
        expect { Bloomc.load_file("/dev/fd/#{read.fileno}") }.to raise_error(Bloomc::FormatError, /more bytes than the header says/)
        read.close
      end
    end
  end
end
