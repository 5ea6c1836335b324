# frozen_string_literal: true

module Bloomc
  # The versioned binary format of every filter (docs/FORMAT.md): a header
  # naming the kind and its parameters, the cells as the C core lays them out
  # (the same bytes on every machine), and a CRC32C over everything before
  # it. Reading checks the magic, version, lengths and checksum before it
  # allocates anything, and each class checks its parameters and cells.
  # @api private
  module Format
    MAGIC = "\x89BLOOMC\n".b.freeze
    VERSION = 1
    # Kind numbers, in the header; never reused.
    KINDS = {
      1 => :BloomFilter, 2 => :BlockedBloomFilter, 3 => :ContinuousBloomFilter, 4 => :CountingBloomFilter,
      5 => :SpectralBloomFilter, 6 => :BitwiseBloomFilter, 7 => :StableBloomFilter, 8 => :A2BloomFilter
    }.freeze
    FLAG_DEFLATE = 1
    HEADER = 16   # magic, version, kind, flags, parameter count
    LENGTHS = 16  # body length as stored, and inflated
    ALIGN = 64    # the body starts on a multiple of 64 bytes (a cache line)
    # The most a deflate stream can expand (zlib's limit is about 1032:1):
    # a body claiming more than this is refused before it is inflated.
    MAX_RATIO = 1040

    module_function

    def kind_of(filter)
      KINDS.find { |_, name| filter.is_a?(Bloomc.const_get(name)) }&.first or
        raise TypeError, "#{filter.class} has no binary format"
    end

    def dump(filter, compress: false)
      kind = kind_of(filter)
      fields, body = filter.send(:export_core)
      fields += filter.send(:export_extra)
      raw_length = body.bytesize
      flags = 0
      if compress
        require "zlib"
        body = Zlib::Deflate.deflate(body, Zlib::BEST_COMPRESSION)
        flags |= FLAG_DEFLATE
      end
      header = [MAGIC, VERSION, kind, flags, fields.size, *fields].pack("a8S<S<S<S<Q<*")
      header << [body.bytesize, raw_length].pack("Q<Q<")
      header << ("\0" * (-header.bytesize % ALIGN))
      out = header << body
      out << [CRC32C.checksum(out)].pack("L<")
    end

    # The filter in +data+; of class +expect+ (or a relative) when given,
    # loaded into the allocated object +into+ when given (Marshal).
    def load(data, expect: nil, into: nil)
      expect = into.class if into
      raise TypeError, "a dump is a String, not #{data.class}" unless data.is_a?(String)

      data = data.b
      fail!("#{data.bytesize} bytes are too few for a bloomc filter") if data.bytesize < HEADER + LENGTHS + 4
      fail!("not a bloomc filter (bad magic)") unless data.start_with?(MAGIC)
      version, kind, flags, nfields = data.unpack("S<S<S<S<", offset: 8)
      fail!("format version #{version} is newer than this bloomc reads (#{VERSION}); upgrade bloomc") if version > VERSION
      fail!("format version 0 does not exist") if version.zero?
      name = KINDS[kind] or fail!("unknown filter kind #{kind}")
      fail!("unknown flags #{flags}") unless (flags & ~FLAG_DEFLATE).zero?
      body_at = HEADER + 8 * nfields + LENGTHS
      body_at += -body_at % ALIGN
      fail!("truncated: #{data.bytesize} bytes, the header alone takes #{body_at + 4}") if data.bytesize < body_at + 4
      stored, raw = data.unpack("Q<Q<", offset: HEADER + 8 * nfields)
      fail!("truncated or padded: #{data.bytesize} bytes where the header says #{body_at + stored + 4}") unless data.bytesize == body_at + stored + 4
      crc = data.unpack1("L<", offset: data.bytesize - 4)
      fail!("checksum mismatch: the data is corrupted") unless crc == CRC32C.checksum(data.byteslice(0, data.bytesize - 4))
      fail!("padding after the parameters is not zero") unless data.byteslice(HEADER + 8 * nfields + LENGTHS...body_at).count("\0") == body_at - HEADER - 8 * nfields - LENGTHS
      klass = Bloomc.const_get(name)
      fail!("holds a #{klass}, not a #{expect}") if expect && !(klass <= expect || expect <= klass)
      fields = data.unpack("Q<#{nfields}", offset: HEADER)
      body = data.byteslice(body_at, stored)
      body = inflate(body, raw) if flags & FLAG_DEFLATE != 0
      fail!("body of #{body.bytesize} bytes where the header says #{raw}") unless body.bytesize == raw
      filter = into || (expect && expect <= klass ? expect : klass).allocate
      filter.send(:import_state, fields, body)
      filter
    end

    def inflate(body, raw)
      fail!("a compressed body of #{body.bytesize} bytes cannot hold #{raw}") if raw > body.bytesize * MAX_RATIO + 1024
      require "zlib"
      out = +"".b
      inflater = Zlib::Inflate.new
      begin
        inflater.inflate(body) do |chunk|
          out << chunk
          fail!("the compressed body holds more than the #{raw} bytes the header says") if out.bytesize > raw
        end
        fail!("the compressed body ends early") unless inflater.finished?
      ensure
        inflater.close
      end
      out
    rescue Zlib::Error => e
      fail!("the compressed body is damaged (#{e.message})")
    end

    def fail!(reason) = raise(FormatError, reason)
  end

  # Saving and loading, for every filter class.
  module Persistence
    # The filter as a binary String in bloomc's format (docs/FORMAT.md),
    # which Bloomc.load reads back on any machine.
    # @param compress [Boolean] deflate the cells (zlib): a sparse filter
    #   shrinks to a small fraction
    # @return [String] ASCII-8BIT
    def dump(compress: false) = Format.dump(self, compress: compress)

    # Writes #dump to +path+, atomically: a reader sees the old file or the
    # whole new one, never a part.
    # @param path [String, Pathname]
    # @param compress [Boolean] as for #dump
    # @return [self]
    def save(path, compress: false)
      data = dump(compress: compress)
      path = File.expand_path(path)
      temp = "#{path}.#{Process.pid}.#{rand(2**32).to_s(36)}.tmp"
      begin
        File.open(temp, File::WRONLY | File::CREAT | File::EXCL | File::BINARY, 0o644) do |file|
          file.write(data)
          file.fsync
        end
        File.rename(temp, path)
      ensure
        File.unlink(temp) if File.exist?(temp)
      end
      self
    end

    private

    # Marshal support: the binary format (Marshal calls these though they
    # are private). marshal_dump rather than _dump, so that a continuous
    # filter's Ruby-side state (its lock) is not dumped with it.
    def marshal_dump = dump
    def marshal_load(data) = Format.load(data, into: self)

    # Parameters the Ruby layer keeps (none but a continuous filter's ttl).
    def export_extra = []

    def import_state(fields, body)
      import_core(fields, body)
    end

    # Class methods: load, load_file and Marshal's _load, refusing a dump of
    # another kind.
    module ClassMethods
      # @param data [String] a #dump
      # @return [self] the filter, equal to the one dumped
      # @raise [Bloomc::FormatError] for anything but a dump of this class
      def load(data) = Format.load(data, expect: self)

      # @param path [String, Pathname] a file written by #save
      # @return [self]
      # @raise [Bloomc::FormatError] as #load
      def load_file(path) = load(File.binread(path))
    end

    def self.included(klass)
      klass.extend(ClassMethods)
    end
  end

  # A filter of whatever kind +data+ (a #dump) holds.
  # @param data [String]
  # @return [BloomFilter, BlockedBloomFilter, ContinuousBloomFilter, CountingBloomFilter,
  #   SpectralBloomFilter, BitwiseBloomFilter, StableBloomFilter, A2BloomFilter]
  # @raise [Bloomc::FormatError] for truncated, corrupted, foreign or newer input
  def self.load(data) = Format.load(data)

  # The filter saved at +path+ by #save.
  # @raise [Bloomc::FormatError] as Bloomc.load
  def self.load_file(path) = Format.load(File.binread(path))
end
