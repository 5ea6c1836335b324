# frozen_string_literal: true

require "spec_helper"
require "tmpdir"
require "timeout"
require "yaml"

# The binary format (docs/FORMAT.md): every class round-trips, byte for byte
# against golden files written by an earlier build, and bad input raises
# Bloomc::FormatError with a reason.
RSpec.describe "the binary format" do
  samples = FormatSamples::BUILDERS

  FormatSamples::VERSIONS.each do |version, builders|
    builders.each do |name, build|
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
            next if copy.is_a?(Bloomc::BinaryFuseFilter) # built once: it has no next state

            copy << "after"
            filter << "after"
            expect(copy).to eq(filter) # the same next state: counters, clocks and generators were saved
          end
        end

        it "loads the golden file of format version #{version} as the filter it was, and dumps the same bytes" do
          golden = File.binread(FormatSamples.path(name, version))
          expect(golden.unpack1("S<", offset: 8)).to eq(version)
          loaded = Bloomc.load(golden)
          expect(loaded).to eq(filter)
          expect(loaded.dump).to eq(golden)
          expect(filter.dump).to eq(golden)
          expect([loaded.capacity, loaded.error_rate, loaded.over_capacity?]).to eq([filter.capacity, filter.error_rate, filter.over_capacity?])
        end

        it "loads through its class, Marshal, YAML, save and load_file" do
          expect(filter.class.load(filter.dump)).to eq(filter)
          expect(Marshal.load(Marshal.dump(filter))).to eq(filter)
          yaml = YAML.dump(filter)
          expect(yaml).to include("!ruby/object:#{filter.class}", "dump: !binary")
          expect(YAML.unsafe_load(yaml)).to eq(filter)
          expect(YAML.safe_load(yaml, permitted_classes: [filter.class])).to eq(filter)
          expect { YAML.safe_load(yaml) }.to raise_error(Psych::DisallowedClass, /#{filter.class}/)
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

  # Version 2: a filter sized by capacity: and error_rate: ends its
  # parameters with exactly three more, and the scalable kind.
  describe "version 2 headers" do
    def bits_of(double) = [double].pack("E").unpack1("Q<")

    # [version, parameters, body] of a dump.
    def decoded(data)
      version, _, _, n = data.unpack("S<4", offset: 8)
      stored, = data.unpack("Q<", offset: 16 + 8 * n)
      [version, data.unpack("Q<#{n}", offset: 16), data.byteslice(-stored, stored)]
    end

    keys = FormatSamples::KEYS
    # Each old kind sized by capacity: and error_rate:, and its twin of the
    # same m and k (and the rest) built from them, given the same keys.
    twins = {
      "BloomFilter" => [-> { Bloomc::BloomFilter.new(capacity: 30, error_rate: 0.01, seed: 7) },
                        ->(f) { Bloomc::BloomFilter.new(f.m, f.k, seed: 7) }],
      "BlockedBloomFilter" => [-> { Bloomc::BlockedBloomFilter.new(capacity: 30, error_rate: 0.01, seed: 1) },
                               ->(f) { Bloomc::BlockedBloomFilter.new(f.m, f.k, seed: 1) }],
      "ContinuousBloomFilter" => [-> { Bloomc::ContinuousBloomFilter.new(capacity: 30, error_rate: 0.01, ttl: 2.5, seed: 3) },
                                  ->(f) { Bloomc::ContinuousBloomFilter.new(f.m, f.k, 2.5, seed: 3) }],
      "CountingBloomFilter" => [-> { Bloomc::CountingBloomFilter.new(capacity: 30, error_rate: 0.01, width: 2) },
                                ->(f) { Bloomc::CountingBloomFilter.new(f.m, f.k, width: 2) }],
      "SpectralBloomFilter" => [-> { Bloomc::SpectralBloomFilter.new(capacity: 30, error_rate: 0.01, algorithm: :rm, width: 3) },
                                ->(f) { Bloomc::SpectralBloomFilter.new(f.m, f.k, algorithm: :rm, width: 3, secondary_m: f.secondary_m) }],
      "BitwiseBloomFilter" => [-> { Bloomc::BitwiseBloomFilter.new(capacity: 30, error_rate: 0.01, width: 1, seed: 5) },
                               ->(f) { Bloomc::BitwiseBloomFilter.new(f.m, f.k, width: 1, seed: 5) }],
      "StableBloomFilter" => [-> { Bloomc::StableBloomFilter.new(capacity: 30, error_rate: 0.01, random_seed: 12_345) },
                              ->(f) { Bloomc::StableBloomFilter.new(f.m, f.k, f.d, width: f.width, random_seed: 12_345) }],
      "A2BloomFilter" => [-> { Bloomc::A2BloomFilter.new(capacity: 15, error_rate: 0.01) },
                          ->(f) { Bloomc::A2BloomFilter.new(f.m, f.k, capacity: 15) }]
    }

    twins.each do |name, (sized, twin)|
      it "#{name}: carries exactly capacity, error rate and the keys new to it after the parameters of version 1" do
        filter = sized.call
        plain = twin.call(filter)
        # the kinds that count keys new to them count them here
        fresh = keys.count { |key| filter.add?(key) }
        keys.each { |key| plain << key }
        sized_version, sized_fields, sized_body = decoded(filter.dump)
        plain_version, plain_fields, plain_body = decoded(plain.dump)
        expect([sized_version, plain_version]).to eq([2, 1])
        expect(sized_fields.size).to eq(plain_fields.size + 3)
        expect(sized_fields.first(plain_fields.size)).to eq(plain_fields)
        counted = filter.is_a?(Bloomc::ContinuousBloomFilter) || filter.is_a?(Bloomc::StableBloomFilter) || filter.is_a?(Bloomc::A2BloomFilter) ? 0 : fresh
        expect(sized_fields.last(3)).to eq([bits_of(filter.capacity.to_f), bits_of(0.01), counted])
        expect(sized_body).to eq(plain_body)
        expect(Bloomc.load(filter.dump)).to eq(filter)
        expect(Bloomc.load(plain.dump).error_rate).to be_nil
      end
    end

    it "refuses a version 2 header of a sized kind with fewer than the three sizing parameters" do
      data = Bloomc::CountingBloomFilter.new(10, 1).dump.b
      data.setbyte(8, 2)
      data[12, 2] = [0].pack("S<") # flags
      data[14, 2] = [2].pack("S<") # two parameters
      header = data.byteslice(0, 16) + data.byteslice(16, 16) + [0, 0, 0].pack("Q<Q<L<")
      header << [Bloomc::CRC32C.checksum(header)].pack("L<")
      header << "\0" * (-header.bytesize % 64)
      expect { Bloomc.load(header) }.to raise_error(Bloomc::FormatError, /2 parameters are too few for a version 2 header/)
    end

    # the hash id sits in the seed parameter's bits 32 and up
    [[:murmur3, "scalable", 9], [:murmur3_mixed, "scalable_mixed", 9 | 2 << 32]].each do |hash, golden, seed_field|
      it "ScalableBloomFilter (#{hash}), decoded by hand: kind 9, its parameters, each layer's shape, and each layer's bits as a plain filter's" do
        filter = Bloomc::ScalableBloomFilter.new(error_rate: 0.01, initial_capacity: 4, seed: 9, hash: hash)
        # which keys went into which layer: a new key goes into the newest
        in_layer = Hash.new { |h, i| h[i] = [] }
        keys.each { |key| in_layer[filter.layers.size - 1] << key if filter.add?(key) }
        data = filter.dump
        expect(data).to eq(File.binread(FormatSamples.path(golden, 2)))
        layers = filter.layers
        expect(layers.map(&:capacity)).to eq([4, 8, 16, 32])
        version, kind, flags, n = data.unpack("S<4", offset: 8)
        expect([version, kind, flags, n]).to eq([2, 9, 0, 9 + 4 * 4])
        # seed, error rate, initial capacity, growth, tightening, even layers,
        # max capacity (0: none), adds, layers
        expect(data.unpack("Q<9", offset: 16)).to eq([seed_field, bits_of(0.01), 4, bits_of(2.0), bits_of(0.8), 10, 0, 40, 4])
        # m, k, capacity and count of each layer
        expect(data.unpack("Q<16", offset: 88).each_slice(4).to_a).to eq(layers.map { |l| [l.m, l.k, l.capacity, l.count] })
        expect(layers.map(&:count)).to eq(in_layer.values_at(0, 1, 2, 3).map(&:size))
        stored, raw, body_crc, header_crc = data.unpack("Q<2L<2", offset: 16 + 8 * n)
        bytes = layers.map { |l| (l.m + 63) / 64 * 8 }
        expect([stored, raw]).to eq([bytes.sum, bytes.sum])
        header_end = 16 + 8 * n + 24
        at = (header_end + 63) / 64 * 64
        expect(at).to eq(256)
        expect(data.byteslice(header_end, at - header_end)).to eq("\0" * (at - header_end))
        expect(header_crc).to eq(Bloomc::CRC32C.checksum(data.byteslice(0, header_end - 4)))
        body = data.byteslice(at, stored)
        expect(data.bytesize).to eq(at + stored)
        expect(body_crc).to eq(Bloomc::CRC32C.checksum(body))
        # each layer is a plain filter of its m and k holding its keys, hashed with the filter's seed
        layers.each_with_index do |layer, i|
          plain = Bloomc::BloomFilter.new(layer.m, layer.k, seed: 9, hash: hash).add_all(in_layer[i])
          slice = body.byteslice(bytes.first(i).sum, bytes[i])
          expect(slice).to eq([plain.bits.to_s.ljust(bytes[i] * 8, "0")].pack("b*")), "layer #{i}"
        end
      end
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

    it "refuses YAML of a filter that holds no dump, or a bad one, as Bloomc.load does" do
      expect { YAML.unsafe_load("--- !ruby/object:Bloomc::BloomFilter\nsizing: [10, 0.01]\n") }
        .to raise_error(Bloomc::FormatError, /YAML for a Bloomc::BloomFilter holds no dump/)
      expect { YAML.unsafe_load("--- !ruby/object:Bloomc::BloomFilter\ndump: short\n") }.to raise_error(Bloomc::FormatError, /too few/)
      yaml = YAML.dump(Bloomc.load(data)).sub("Bloomc::CountingBloomFilter", "Bloomc::BloomFilter")
      expect { YAML.unsafe_load(yaml) }.to raise_error(Bloomc::FormatError, /holds a Bloomc::CountingBloomFilter, not a Bloomc::BloomFilter/)
    end

    it "names what is wrong" do
      refused("", /0 bytes are too few/)
      refused("x" * 100, /bad magic/)
      refused(data.byteslice(0, 60), /truncated/)
      refused(data + "\0", /truncated or padded/)
      refused(data.dup.tap { |d| d.setbyte(150, d.getbyte(150) ^ 1) }, /body checksum mismatch/)
      refused(data.dup.tap { |d| d.setbyte(20, d.getbyte(20) ^ 1) }, /header checksum mismatch/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(8, 4) }), /format version 4 is newer than this bloomc reads \(3\)/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(10, 99) }), /unknown filter kind 99/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(12, 8) }), /unknown flags 8/)
      refused(with_crc(data.dup.tap { |d| d.setbyte(12, 4) }), /flag 4 \(metadata\) in a version 1 header/)
      refused(with_crc(data.dup.tap { |d| d[16, 8] = [0].pack("Q<") }), /m 0 outside 1\.\./)
      refused(with_crc(data.dup.tap { |d| d[32, 8] = [33].pack("Q<") }), /width 33 outside 1\.\.32/)
      refused(with_crc(data.dup.tap { |d| d[16, 8] = [301].pack("Q<") }), /body of \d+ bytes where the parameters need/)
    end

    it "refuses a scalable filter whose layers are not the ones its parameters give" do
      scalable = FormatSamples::BUILDERS_V2.fetch("scalable").call.dump
      n = 9 + 4 * 4
      param = ->(i, value) { with_crc(scalable.dup.tap { |d| d[16 + 8 * i, 8] = [value].pack("Q<") }, n) }
      # initial capacity 2**50 over the layers of 4: the next layer would be a petabyte
      refused(param[2, 2**50 + 4], /layer 0 is not the layer the filter's parameters give/)
      refused(param[5, 9], /layer \d is not the layer/) # even layers: other rates
      refused(param[9 + 4 * 3, 485], /layer 3 is not the layer/) # the last layer's m
      refused(param[9 + 4 * 1 + 2, 9], /layer 1 is not the layer/) # its capacity
      refused(param[8, 5], /25 parameters where this kind of filter has 29/) # a fifth layer the header does not hold
      expect(Bloomc.load(param[9 + 4 * 3 + 3, 2**40]).layers.last.count).to eq(2**40) # a count is the file's to say
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
        # Each names the file, first: the reason alone does not say which.
        text = File.join(@dir, "notes.txt")
        File.write(text, "not a filter, though long enough to have a header's worth of bytes in it\n")
        [-> { Bloomc.load_file(text) }, -> { Bloomc::BloomFilter.load_file(text) }, -> { Bloomc::BloomFilter.open(text) }].each do |opening|
          expect(&opening).to raise_error(Bloomc::FormatError, "#{text}: not a bloomc filter (bad magic)")
        end

        # A pipe whose writer has sent a line and not closed it: reading to
        # the end first would wait for ever (or for a /dev/zero, fill memory).
        fifo = File.join(@dir, "fifo")
        File.mkfifo(fifo)
        writer = Thread.new { File.open(fifo, "wb") { |w| w.write("a log line\n" * 10).then { w.flush; sleep } } }
        expect { Timeout.timeout(10) { Bloomc.load_file(fifo) } }.to raise_error(Bloomc::FormatError, /bad magic/)
        writer.kill.join
      end

      it "names the path save was given, not its temporary file, in an error" do
        filter = Bloomc::BloomFilter.new(1000, 3)
        missing = File.join(@dir, "no", "such", "dir", "f.bloom")
        expect { filter.save(missing) }.to raise_error(Errno::ENOENT) { |e| expect(e.message).to eq("No such file or directory - saving #{missing}") }
        File.chmod(0o500, @dir)
        unless File.writable?(@dir) # root writes anyway
          path = File.join(@dir, "f.bloom")
          expect { filter.save(path) }.to raise_error(Errno::EACCES) { |e| expect(e.message).to eq("Permission denied - saving #{path}") }
        end
        File.chmod(0o700, @dir)
        expect(Dir.children(@dir)).to eq([]) # no temporary file left
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
