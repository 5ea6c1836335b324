# frozen_string_literal: true

# Loaded here, not when a compressed dump is first met: a non-main Ractor
# cannot require (Ractor::IsolationError).
require "zlib"
require_relative "metadata"

module Bloomc
  # The versioned binary format of every filter (docs/FORMAT.md): a header
  # naming the kind and its parameters, the cells as the C core lays them out
  # (the same bytes on every machine), and a CRC32C over everything before
  # it. Reading checks the magic, version, lengths and checksum before it
  # allocates anything, and each class checks its parameters and cells.
  # @api private
  module Format # :nodoc:
    MAGIC = "\x89BLOOMC\n".b.freeze
    # The newest version this bloomc reads and writes. Version 2 adds the
    # ScalableBloomFilter kind and, for a filter sized by capacity: and
    # error_rate:, three parameters at the end (Sizing); version 3 adds a
    # metadata block (Metadata). A filter is written in the oldest version
    # that holds it, so older bloomc reads what it can.
    VERSION = 3
    SIZING_FIELDS = 3
    # Kind numbers, in the header; never reused. Each kind's is in its C
    # descriptor (ext/bloomc/*_filter.c), and the kinds are the one list in
    # ext/bloomc/bloomc.h; spec/bloomc/kinds_spec.rb checks every other list.
    KINDS = Bloomc.send(:filter_kinds).sort.to_h { |number, klass| [number, klass.name.split("::").last.to_sym] }.freeze
    FLAG_DEFLATE = 1
    # Set while a writer has the file mapped (BloomFilter.open): the body may
    # be newer than its checksum, which is then not checked.
    FLAG_OPEN = 2
    # Version 3: a metadata block follows the header's checksum.
    FLAG_METADATA = 4
    FLAGS = FLAG_DEFLATE | FLAG_OPEN | FLAG_METADATA
    HEADER = 16   # magic, version, kind, flags, parameter count
    TRAILER = 24  # body length as stored and inflated, body CRC32C, header CRC32C
    ALIGN = 64    # the body starts on a multiple of 64 bytes (a cache line)
    # The most a deflate stream can expand (zlib's limit is about 1032:1):
    # a body claiming more than this is refused before it is inflated.
    MAX_RATIO = 1040

    module_function

    # Whether two dumps hold the same filter: the same bytes but for the
    # parameters that say when a dump was made (a kind's SAVE_TIME_FIELDS,
    # its last ones) and the header checksum over them.
    def same_content?(one, other)
      return true if one == other
      return false unless one.bytesize == other.bytesize && one.bytesize > HEADER && one.byteslice(0, HEADER) == other.byteslice(0, HEADER)

      kind, nfields = one.unpack("x10S<x2S<")
      name = KINDS[kind]
      times = name && Bloomc.const_get(name).const_defined?(:SAVE_TIME_FIELDS) ? Bloomc.const_get(name)::SAVE_TIME_FIELDS : 0
      return false if times.zero? || one.bytesize < HEADER + (8 * nfields) + TRAILER

      mask = lambda do |dump|
        dump = dump.dup
        dump[HEADER + (8 * (nfields - times)), 8 * times] = "\0" * (8 * times)
        dump[HEADER + (8 * nfields) + TRAILER - 4, 4] = "\0" * 4
        dump
      end
      mask.call(one) == mask.call(other)
    end

    def kind_of(filter)
      KINDS.find { |_, name| filter.is_a?(Bloomc.const_get(name)) }&.first or
        raise TypeError, "#{filter.class} has no binary format"
    end

    def dump(filter, compress: false)
      fields, body = filter.send(:export_core)
      raw_length = body.bytesize
      flags = 0
      if compress
        body = Zlib::Deflate.deflate(body, Zlib::BEST_COMPRESSION)
        flags |= FLAG_DEFLATE
      end
      header_of(filter, fields, flags, body.bytesize, raw_length, CRC32C.checksum(body)) << body
    end

    # The header of +filter+ (the kind's own parameters +fields+), with its
    # metadata: what dump and a mapped file's flush write.
    def header_of(filter, fields, flags, stored, raw, body_crc)
      fields += filter.send(:export_extra)
      sizing = filter.send(:export_sizing)
      json = filter.send(:metadata_json)
      return header(kind_of(filter), flags, fields + sizing, stored, raw, body_crc, filter.send(:format_version)) unless json

      # Version 3 always has a sized kind's three parameters: 0 and 0 for
      # "none", so that the metadata needs no sizing and no new layout.
      sizing = [0, 0, filter.send(:distinct_count)] if sizing.empty? && filter.is_a?(Sizing)
      header(kind_of(filter), flags, fields + sizing, stored, raw, body_crc, 3, json)
    end

    # The header and its padding, up to the body; with +metadata+ (JSON
    # text), version 3's block after the header's checksum.
    def header(kind, flags, fields, stored, raw, body_crc, version = 1, metadata = nil)
      flags |= FLAG_METADATA if metadata
      out = [MAGIC, version, kind, flags, fields.size, *fields, stored, raw, body_crc].pack("a8S<4Q<#{fields.size + 2}L<")
      out << [CRC32C.checksum(out)].pack("L<")
      out << [metadata.bytesize, CRC32C.checksum(metadata)].pack("L<L<") << metadata.b if metadata
      out << ("\0" * (-out.bytesize % ALIGN))
    end

    # Where the body starts, after +metadata+ bytes of metadata (nil: no
    # block).
    def body_offset(nfields, metadata = nil)
      ends = HEADER + 8 * nfields + TRAILER
      ends += 8 + metadata if metadata
      (ends + ALIGN - 1) / ALIGN * ALIGN
    end

    # [klass, flags, fields, stored, raw, body_crc, body offset, sizing,
    # metadata] from the start of a file or dump (at least its header),
    # checked up to the body; fields are the kind's own, sizing the three
    # parameters a version 2 or 3 header ends with (nil without them), and
    # metadata the JSON text of version 3's block (nil without one).
    def parse_header(data, expect: nil)
      fail!("#{data.bytesize} bytes are too few for a bloomc filter") if data.bytesize < HEADER
      fail!("not a bloomc filter (bad magic)") unless data.start_with?(MAGIC)
      version, kind, flags, nfields = data.unpack("S<S<S<S<", offset: 8)
      fail!("format version #{version} is newer than this bloomc reads (#{VERSION}); upgrade bloomc") if version > VERSION
      fail!("format version 0 does not exist") if version.zero?
      name = KINDS[kind] or fail!("unknown filter kind #{kind}")
      fail!("unknown flags #{flags}") unless flags.nobits?(~FLAGS)
      fail!("flag 4 (metadata) in a version #{version} header: it is new in version 3") if flags.anybits?(FLAG_METADATA) && version < 3
      at = body_offset(nfields)
      fail!("truncated: #{data.bytesize} bytes, the header alone takes #{at}") if data.bytesize < at
      crc_at = HEADER + 8 * nfields + TRAILER - 4
      unless data.unpack1("L<", offset: crc_at) == CRC32C.checksum(data.byteslice(0, crc_at))
        fail!("header checksum mismatch: the header is corrupted")
      end
      metadata = metadata_block(data, crc_at + 4) if flags.anybits?(FLAG_METADATA)
      at = body_offset(nfields, metadata&.bytesize)
      pad_at = crc_at + 4 + (metadata ? 8 + metadata.bytesize : 0)
      fail!("padding after the header is not zero") unless data.byteslice(pad_at...at).count("\0") == at - pad_at
      klass = Bloomc.const_get(name)
      fail!("holds a #{klass}, not a #{expect}") if expect && !(klass <= expect || expect <= klass)
      fields = data.unpack("Q<#{nfields}", offset: HEADER)
      stored, raw, body_crc = data.unpack("Q<Q<L<", offset: HEADER + 8 * nfields)
      fields, sizing = split_sizing(klass, fields, version)
      [klass, flags, fields, stored, raw, body_crc, at, sizing, metadata]
    end

    # Version 3's metadata block at +from+: its length, its CRC32C and JSON
    # text of a string or an object.
    def metadata_block(data, from)
      fail!("truncated: #{data.bytesize} bytes, the metadata's length is at #{from}") if data.bytesize < from + 8
      length, crc = data.unpack("L<L<", offset: from)
      fail!("metadata of #{length} bytes: 1 .. #{Metadata::MAX_BYTES}") unless length.between?(1, Metadata::MAX_BYTES)
      fail!("truncated: #{data.bytesize} bytes, the metadata ends at #{from + 8 + length}") if data.bytesize < from + 8 + length
      json = data.byteslice(from + 8, length)
      fail!("metadata checksum mismatch: the metadata is corrupted") unless CRC32C.checksum(json) == crc
      Metadata.check_block(json)
    end

    # A version 2 or 3 header of a kind sized by capacity: ends with its
    # Sizing (in version 3, 0 and 0 for none).
    def split_sizing(klass, fields, version)
      return [fields, nil] unless version >= 2 && klass.include?(Sizing)

      fail!("#{fields.size} parameters are too few for a version #{version} header") if fields.size < SIZING_FIELDS
      [fields[0...-SIZING_FIELDS], fields.last(SIZING_FIELDS)]
    end

    # The filter in +data+; of class +expect+ (or a relative) when given,
    # loaded into the allocated object +into+ when given (Marshal).
    def load(data, expect: nil, into: nil)
      expect = into.class if into
      raise TypeError, "a dump is a String, not #{data.class}" unless data.is_a?(String)

      data = data.b
      klass, flags, fields, stored, raw, body_crc, body_at, sizing, metadata = parse_header(data, expect: expect)
      fail!("truncated or padded: #{data.bytesize} bytes where the header says #{body_at + stored}") unless data.bytesize == body_at + stored
      body = data.byteslice(body_at, stored)
      # A file a writer had open (or was killed with) holds a body newer than
      # its checksum; the kind's own checks of the cells still apply.
      fail!("body checksum mismatch: the data is corrupted") unless flags.anybits?(FLAG_OPEN) || CRC32C.checksum(body) == body_crc
      body = inflate(body, raw) if flags.anybits?(FLAG_DEFLATE)
      fail!("body of #{body.bytesize} bytes where the header says #{raw}") unless body.bytesize == raw
      filter = into || (expect && expect <= klass ? expect : klass).allocate
      filter.send(:import_state, fields, body, flags.anybits?(FLAG_OPEN))
      filter.send(:import_sizing, sizing)
      filter.send(:import_metadata, metadata)
      filter
    end

    # The bytes of a saved filter at +path+, read only as far as its header
    # allows: anything but a filter (a log, /dev/zero) is refused at its
    # first bytes, and a body is read only when it has the length the header
    # gives.
    def read_file(path, expect: nil)
      File.open(path, "rb") do |file|
        data = file.read(HEADER).to_s
        parse_header(data) if data.bytesize < HEADER || !data.start_with?(MAGIC) # the FormatError for it
        nfields = data.unpack1("S<", offset: 14)
        data << file.read(body_offset(nfields) - HEADER).to_s
        if data.unpack1("S<", offset: 12).anybits?(FLAG_METADATA) # the block's length, then the block
          from = HEADER + 8 * nfields + TRAILER
          data << file.read(from + 8 - data.bytesize).to_s if data.bytesize < from + 8
          length = data.bytesize < from + 8 ? 0 : data.unpack1("L<", offset: from).clamp(0, Metadata::MAX_BYTES)
          ends = body_offset(nfields, length)
          data << file.read(ends - data.bytesize).to_s if ends > data.bytesize
        end
        _, _, _, stored, _, _, at = parse_header(data, expect: expect)
        total = at + stored
        if file.stat.file?
          fail!("truncated or padded: #{file.size} bytes where the header says #{total}") unless file.size == total
          data << file.read(stored).to_s
        else # a pipe: no size to check, so read it a chunk at a time
          chunk = "".b
          data << chunk while data.bytesize < total && file.read([total - data.bytesize, 1 << 20].min, chunk)
        end
        fail!("truncated or padded: more bytes than the header says (#{total})") unless file.eof?
        data
      end
    end

    # The filter #save wrote at +path+ (load_file's work): a FormatError
    # names the path, since the reason alone ("bad magic") does not say
    # which of a program's files it was.
    def load_file(path, expect: nil)
      load(read_file(path, expect: expect), expect: expect)
    rescue FormatError => e
      raise FormatError, "#{path}: #{e.message}"
    end

    def inflate(body, raw)
      fail!("a compressed body of #{body.bytesize} bytes cannot hold #{raw}") if raw > body.bytesize * MAX_RATIO + 1024
      out = +"".b
      inflater = Zlib::Inflate.new
      begin
        inflater.inflate(body) do |chunk|
          out << chunk
          fail!("the compressed body holds more than the #{raw} bytes the header says") if out.bytesize > raw
        end
        fail!("the compressed body ends early") unless inflater.finished?
      ensure
        inflater.reset # closing a stream that did not finish would warn
        inflater.close
      end
      out
    rescue Zlib::Error => e
      fail!("the compressed body is damaged (#{e.message})")
    end

    def fail!(reason)
      raise(FormatError, reason)
    end

    # Writes +data+ to +path+ through a temporary file in the same directory,
    # synced, then renamed over it: a reader sees the old file or the whole
    # new one, never a part. An error names +name+ (the path the caller was
    # given), not the temporary file: the same Errno, with the same errno.
    def write_atomically(path, data, name: path)
      temp = "#{path}.#{Process.pid}.#{rand(2**32).to_s(36)}.tmp"
      begin
        File.open(temp, File::WRONLY | File::CREAT | File::EXCL | File::BINARY, 0o644) do |file|
          file.write(data)
          file.fsync
        end
        File.rename(temp, path)
      rescue SystemCallError => e
        raise SystemCallError.new("saving #{name}", e.errno), cause: nil
      ensure
        File.unlink(temp) if File.exist?(temp)
      end
    end

    # Where #save writes +path+: the file a symlink names (the link stays),
    # never a device, a directory or a pipe, which its rename would replace.
    def save_target(path)
      path = File.expand_path(path)
      target = File.symlink?(path) ? File.realdirpath(path) : path
      if File.exist?(target) && !File.file?(target)
        raise ArgumentError, "#{path} is not a regular file: save replaces files only (write #dump to a device or pipe)"
      end

      target
    end
  end

  # Saving and loading, for every filter class.
  module Persistence
    include Metadata

    # The filter as a binary String in bloomc's format (docs/FORMAT.md),
    # which Bloomc.load reads back on any machine.
    #
    # compress:: (Boolean) deflate the cells (zlib): a sparse filter
    #     shrinks to a small fraction
    # Returns:: (String) ASCII-8BIT
    def dump(compress: false)
      Format.dump(self, compress: compress)
    end

    # Writes #dump to +path+, atomically: a reader sees the old file or the
    # whole new one, never a part.
    #
    # path:: (String, Pathname)
    # compress:: (Boolean) as for #dump
    # Returns:: (self)
    # Raises:: ArgumentError when +path+ is a device, a directory or a pipe
    def save(path, compress: false)
      Format.write_atomically(Format.save_target(path), dump(compress: compress), name: path.to_s)
      self
    end

    # YAML (Psych) support: the filter as its #dump, which YAML writes as a
    # !binary (base64) scalar, under the filter's class tag. YAML.dump and
    # YAML.unsafe_load round-trip it; YAML.load and YAML.safe_load read it
    # back when the class is among their permitted_classes.
    # @param coder [Psych::Coder]
    # @return [void]
    def encode_with(coder)
      coder["dump"] = dump
    end

    # The inverse of #encode_with, as checked as Bloomc.load checks a dump.
    # @param coder [Psych::Coder]
    # @return [void]
    # @raise [Bloomc::FormatError] when the YAML holds no dump of this class
    def init_with(coder)
      data = coder.map["dump"] if coder.type == :map
      raise FormatError, "YAML for a #{self.class} holds no dump: write it with YAML.dump(filter)" unless data.is_a?(String)

      Format.load(data, into: self)
    end

    private

    # Marshal support: the binary format (Marshal calls these though they
    # are private). marshal_dump rather than _dump, so that a continuous
    # filter's Ruby-side state (its lock) is not dumped with it.
    def marshal_dump
      dump
    end

    def marshal_load(data)
      Format.load(data, into: self)
    end

    # Parameters the Ruby layer keeps (none but a continuous filter's ttl).
    def export_extra
      []
    end

    # A kind without Sizing saves no sizing parameters: a version 1 header
    # (the kinds that have them: Sizing).
    def export_sizing
      []
    end

    def import_sizing(_fields)
      nil
    end

    def format_version
      1
    end

    # open: the file was open for writing when read (its body may be newer
    # than the clock it records).
    def import_state(fields, body, _open = false)
      import_core(fields, body)
    end

    # Class methods: load, load_file and Marshal's _load, refusing a dump of
    # another kind.
    module ClassMethods
      # data:: (String) a #dump
      # Returns:: (self) the filter, equal to the one dumped
      # Raises:: Bloomc::FormatError for anything but a dump of this class
      def load(data)
        Format.load(data, expect: self)
      end

      # path:: (String, Pathname) a file written by #save
      # Returns:: (self)
      # Raises:: Bloomc::FormatError as #load, the message starting with +path+
      def load_file(path)
        Format.load_file(path, expect: self)
      end
    end

    def self.included(klass)
      klass.extend(ClassMethods)
    end
  end

  # A filter of whatever kind +data+ (a #dump) holds.
  #
  # data:: (String)
  # Returns:: [BloomFilter, BlockedBloomFilter, ContinuousBloomFilter, CountingBloomFilter,
  #     SpectralBloomFilter, BitwiseBloomFilter, StableBloomFilter, A2BloomFilter, ScalableBloomFilter,
  #     CuckooFilter, BinaryFuseFilter]
  # Raises:: Bloomc::FormatError for truncated, corrupted, foreign or newer input
  def self.load(data)
    Format.load(data)
  end

  # The filter saved at +path+ by #save.
  #
  # Raises:: Bloomc::FormatError as Bloomc.load, the message starting with +path+
  def self.load_file(path)
    Format.load_file(path)
  end
end
