# frozen_string_literal: true

require "io/nonblock"

module Bloomc
  # Another process (or another open in this one) has the file open for
  # writing.
  class LockedError < Error; end

  # Filters kept in a memory-mapped file of bloomc's format (BloomFilter,
  # ContinuousBloomFilter and CountingBloomFilter). One writer at a time (an
  # exclusive flock, held until #close); any number of readers, with
  # +readonly: true+, which see its adds as they land, without a lock. Adds go
  # straight into the page cache, so they survive the process; #flush also
  # brings the header (key count, clock) up to date and waits until the file
  # is on disk. Truncating a mapped file under its filter is not survivable
  # (touching the lost pages is SIGBUS): leave mapped files alone while open.
  # A writer reserves the file's disk blocks at open, so that a full disk
  # is Errno::ENOSPC there rather than SIGBUS at an add (reserve: false
  # keeps a file sparse, and that risk).
  #
  # A forked child gets the parent's filters read-only (frozen): the file
  # stays the parent's to write, flush and close.
  #
  # A mapped filter is never Ractor-shareable, even frozen or read-only
  # (Ractor.make_shareable raises Ractor::Error and leaves it as it was): its
  # file, lock and mapping are the main Ractor's, and a #close there would
  # unmap the cells under another Ractor's lookup. Share a copy on the heap
  # instead: <tt>Ractor.make_shareable(filter.dup.freeze)</tt>.
  module Mapped
    # Class methods of the mappable filters.
    module ClassMethods
      # Opens the filter kept at +path+, creating the file when there is none.
      #
      # path:: (String, Pathname)
      # readonly:: (Boolean) map for reading: the filter is frozen, needs
      #     no lock, and sees the writer's adds
      # verify:: (Boolean) check the cells' checksum of a file that was
      #     closed cleanly (it reads the data the file holds, skipping holes)
      # reserve:: (Boolean) for a writer: give the whole file its disk
      #     blocks now (fallocate), so that a disk too full for it is
      #     Errno::ENOSPC here and never SIGBUS at a later add; false leaves a
      #     new file sparse (its blocks taken as keys first touch them) and an
      #     old one as it is
      # prefault:: (Boolean) commit every page of the mapping now
      #     (Pages#prefault!): a writer's allocates a sparse file's holes
      #     (whatever reserve: says) and maps them; a reader's reads the file
      #     in, holes left holes. false leaves pages to be read or allocated
      #     as keys first touch them
      # shape:: the constructor's arguments (m:, k:, capacity:, ...): for
      #     a new file, the filter to create; for an existing one, checked
      #     against what it holds (ArgumentError naming the difference)
      # Yields:: filter when given, the filter, closed when the block ends
      # Returns:: (self) mapped: #flush and #close
      # Raises:: Bloomc::LockedError when the file is open for writing elsewhere
      # Raises:: Bloomc::FormatError when the file is not a filter of this class
      # Raises:: ArgumentError when +path+ is a FIFO, a socket, a device or a
      #     directory (refused at once: an open never waits on one)
      # Raises:: SystemCallError Errno::ENOSPC (or EDQUOT, EFBIG) when the
      #     file's blocks cannot all be reserved; a file the open created is
      #     removed
      # Raises:: Bloomc::Error outside the main Ractor
      def open(path, readonly: false, verify: true, reserve: true, prefault: false, **shape)
        Pages.check_prefault(prefault)
        filter = Mapped.open(self, path, readonly, verify, reserve, shape)
        begin
          filter.prefault! if prefault
        rescue Exception # rubocop:disable Lint/RescueException -- an Interrupt too: a large file takes seconds
          filter.close
          raise
        end
        return filter unless block_given?

        begin
          yield filter
        ensure
          filter.close
        end
      end

      private

      # [a filter of the shape open was given but with a single cell, the
      # real m]: the template the file is created from or checked against,
      # without ever holding the real cells on the heap.
      def mapped_template(shape)
        shape = shape.dup
        capacity = shape.delete(:capacity)
        error_rate = shape.delete(:error_rate)
        m, k = Bloomc.sizing_arguments(shape.delete(:m), shape.delete(:k), capacity, error_rate)
        [template(k, shape).tap { |t| t.send(:remember_sizing, capacity, error_rate) }, m]
      end

      # A filter of that shape but with a single cell (ContinuousBloomFilter
      # takes its ttl in place).
      def template(k, shape)
        new(1, k, **shape)
      end
    end

    # Brings the file's header (key count, clock) up to date and waits until
    # the file is on disk: after it returns, a crash loses nothing added
    # before. A no-op on a filter mapped for reading.
    #
    # Returns:: (self)
    # Raises:: IOError when closed, in a forked child, or when the file was
    #     deleted, replaced or truncated under the filter (a moved file warns)
    def flush
      raise IOError, "closed #{self.class}" if closed?
      return self if @mapped.nil? || @mapped.readonly

      raise IOError, "#{path} is written by process #{@mapped.pid}, not this one" unless owns_mapping?

      write_file_header(Format::FLAG_OPEN)
      self
    end

    # Flushes, marks the file closed cleanly (with the cells' checksum),
    # unmaps it and releases the lock; the filter raises IOError afterwards.
    # In a forked child it only unmaps. Closing twice does nothing.
    #
    # Returns:: (nil)
    # Raises:: IOError as #flush; the filter is closed all the same
    def close
      return nil if @mapped.nil? || @mapped.file.nil?

      begin
        stop_timer if respond_to?(:timer_running?) && timer_running?
        write_file_header(0) if !@mapped.readonly && owns_mapping?
      ensure
        unmap
        @mapped.file.close unless @mapped.file.closed?
        @mapped.file = nil
      end
      nil
    end

    # Returns:: (Boolean) whether #close has run
    def closed?
      !@mapped.nil? && @mapped.file.nil?
    end

    # Returns:: (String, nil) the mapped file's path
    def path
      @mapped&.path
    end

    # What a mapped filter holds beside its cells; set before a read-only
    # filter is frozen, and changed by #close after.
    State = Struct.new(:file, :path, :readonly, :body_offset, :pid, :warned_moved)

    # A copy (dup, clone) holds its cells on the heap, not in the file.
    module Copy
      def initialize_copy(orig)
        super
        # nil, not removed: Ruby 3.3 keeps a removed instance variable of a
        # T_DATA object reachable, and Ractor.make_shareable of the copy
        # would freeze the original's State through it.
        @mapped = nil if instance_variable_defined?(:@mapped)
      end
    end

    private

    # Continuous filters add their ttl and recovery (see there).
    def map_state(fields, fd, body_offset, length, writable, _recovering)
      map_core(fields, fd, body_offset, length, writable)
    end

    # Whether this process writes the file (false in a forked child).
    def owns_mapping?
      @mapped.nil? || @mapped.pid == Process.pid
    end

    # The header as the filter now stands, and msync. The body's checksum is
    # computed only for a closed file (flags 0): while the file is open, a
    # reader does not check it, and a flush stays cheap on a large filter.
    def write_file_header(flags)
      check_mapped_length(@mapped.file.fileno, Format::MAGIC)
      sync_mapping if flags.zero? # the cells on disk first: the hole map then shows them
      crc = flags.zero? ? mapped_body_crc(@mapped.file.fileno) : 0
      length = @mapped.file.size - @mapped.body_offset
      write_header(Format.header_of(self, export_fields, flags, length, length, crc))
      sync_mapping
      check_still_named
    end

    # After the header is written: IOError when the file lost its name
    # (deleted, or replaced by a rename or a save), since what the filter
    # holds is then in no file anyone can open and another writer may have
    # the path; a warning when it was moved (its keys are in it, under its
    # new name) or the path cannot be read.
    def check_still_named
      mapped = @mapped.file.stat
      named = begin
        File.stat(path)
      rescue SystemCallError
        nil
      end
      return if named && named.dev == mapped.dev && named.ino == mapped.ino

      if mapped.nlink.zero?
        raise IOError, "#{path} was replaced while mapped: the keys added since are in no file" if named

        raise IOError, "#{path} was deleted while mapped: its keys are in no file"
      end
      return if @mapped.warned_moved

      @mapped.warned_moved = true
      warn "bloomc: #{path} no longer names the mapped file (moved?); its keys are in that file, under its new name"
    end

    # Shapes must match when a file is opened with one. A file made before
    # :murmur3_mixed, opened without hash:, keeps its :murmur3.
    def same_shape_as(template, m, path, hash_given)
      mine = send(:shape)
      asked = template.send(:shape).merge(m: m)
      asked = asked.merge(hash_function: :murmur3) if !hash_given && mine[:hash_function] == :murmur3 && asked.key?(:hash_function)
      asked = asked.merge(m: mine[:m], k: mine[:k]) if legacy_sizing?(template)
      diff = mine.keys.find { |key| mine[key] != asked[key] }
      return unless diff

      raise ArgumentError, "#{path} holds a filter of different #{diff} (#{mine[diff].inspect}, asked for #{asked[diff].inspect})"
    end

    # Whether this file was made by open(path, capacity:, error_rate:) by an
    # earlier bloomc: a version 1 file (no sizing of its own) whose m and k
    # are bloombroom's for the capacity and error rate asked for
    # (BloomHelper.find_m_k), or one sized by the formula before sizing by
    # the expected rate. It opens as it is.
    def legacy_sizing?(template)
      return false unless template.capacity && template.error_rate

      capacity = template.capacity
      rate = template.error_rate
      sized = @sizing.nil? ? BloomHelper.find_m_k(capacity, rate) : BloomHelper.send(:formula_m_k, capacity, rate)
      sized == [send(:shape)[:m], send(:shape)[:k]]
    end

    # What open calls the file types it refuses (File::Stat#ftype).
    IRREGULAR = { "fifo" => "a FIFO", "socket" => "a socket", "characterSpecial" => "a character device",
                  "blockSpecial" => "a block device", "directory" => "a directory" }.freeze
    private_constant :IRREGULAR

    class << self
      # @api private
      def open(klass, path, readonly, verify, reserve, shape) # :nodoc:
        # A fork hands back every mapping of the process (mapping.c): the
        # list of them is the main Ractor's.
        raise Error, "mapped filters open in the main Ractor only" unless Ractor.current == Ractor.main

        given = File.expand_path(path)
        path = File.symlink?(given) ? File.realdirpath(given) : given # the file a link names, created there if need be
        # Before any open: opening a device can do something (a tape
        # rewinds, a watchdog arms). open_regular checks again what it opened.
        check_regular(given, path)
        return open_file(klass, path, readonly, verify, reserve, shape) if readonly

        3.times do # a file deleted or replaced between its open and its lock: again
          filter = open_file(klass, path, readonly, verify, reserve, shape)
          return filter if filter
        end
        raise IOError, "#{path} was deleted or replaced three times while it was being opened"
      end

      private

      # The filter, or nil when the file locked is no longer the one at path.
      def open_file(klass, path, readonly, verify, reserve, shape)
        file, created = readonly ? [open_regular(path, File::RDONLY), false] : open_or_create(path)
        filter = nil
        locked = filled = false
        begin
          unless readonly
            unless file.flock(File::LOCK_EX | File::LOCK_NB)
              raise LockedError, "#{path} is open for writing (by another process, or another open in this one)"
            end

            locked = true
            unless same_file?(file, path)
              file.close
              return nil
            end
          end

          template, m = shape.empty? ? nil : klass.send(:mapped_template, shape)
          if file.size.zero? && !readonly
            filled = true
            create(file, template, m)
          end
          raise ArgumentError, "#{path} is empty: give the filter's shape (m:, k:, ...) to create it" if file.size.zero?

          filter = map(klass, file, readonly, verify, reserve && !readonly, path)
          filter.send(:same_shape_as, template, m, path, shape.key?(:hash)) if template
          unless readonly # the first writes, once the shape is known right
            filter.send(:clear_stale_cells) if filter.respond_to?(:clear_stale_cells, true)
            filter.send(:write_file_header, Format::FLAG_OPEN)
          end
          filter.freeze if readonly
          filter
        rescue Exception # rubocop:disable Lint/RescueException -- an Interrupt too: reserving can take seconds
          filter&.send(:unmap)
          undo_create(file, path, created) if locked && (created || filled)
          file.close
          raise
        end
      end

      # [file, whether this call created it]: by O_EXCL, so that a failed
      # open deletes only a file of its own.
      def open_or_create(path)
        3.times do
          return [open_regular(path, File::RDWR | File::CREAT | File::EXCL, 0o644), true]
        rescue Errno::EEXIST
          begin
            return [open_regular(path, File::RDWR), false]
          rescue Errno::ENOENT # deleted in between: create it, again
            next
          end
        end
        raise IOError, "#{path} was created and deleted three times while it was being opened"
      end

      # ArgumentError unless path is a regular file or nothing (given: the
      # path as the caller named it, a link to path or path itself).
      def check_regular(given, path)
        stat = begin
          File.stat(path)
        rescue Errno::ENOENT, Errno::ENOTDIR
          return
        end
        refuse_irregular(given, path, stat) unless stat.file?
      end

      def refuse_irregular(given, path, stat)
        what = IRREGULAR.fetch(stat.ftype, stat.ftype)
        named = given == path ? path : "#{given} -> #{path}"
        raise ArgumentError, "#{named} is not a regular file (#{what}): open maps regular files only"
      end

      # The File of path opened with flags, refused (ArgumentError) unless it
      # is a regular file. Opened with O_NONBLOCK, so that a FIFO put at path
      # after check_regular cannot block the open (a FIFO opened for reading
      # waits for a writer), and O_NOCTTY, so that a terminal never becomes
      # the process's; the descriptor's own fstat decides, then O_NONBLOCK
      # goes. On a regular file it changes one thing: while another process
      # holds a lease on the file (Samba, an NFS server), the kernel refuses
      # the open with EWOULDBLOCK instead of waiting until the lease is
      # broken (at most /proc/sys/fs/lease-break-time); it is retried until
      # then, as the blocking open waited (Ruby 3.1 also retries it itself).
      def open_regular(path, flags, *mode)
        file = begin
          File.open(path, flags | File::NONBLOCK | File::NOCTTY | File::BINARY, *mode)
        rescue Errno::EWOULDBLOCK
          sleep 0.01
          retry
        end
        stat = file.stat
        unless stat.file?
          file.close
          refuse_irregular(path, path, stat)
        end
        file.nonblock = false
        file
      rescue Errno::ENXIO, Errno::EISDIR => e # a socket, a device without its driver; a directory for writing
        stat = begin
          File.stat(path)
        rescue SystemCallError
          raise e
        end
        raise e if stat.file?

        refuse_irregular(path, path, stat)
      end

      def same_file?(file, path)
        mine = file.stat
        named = File.stat(path)
        mine.dev == named.dev && mine.ino == named.ino
      rescue Errno::ENOENT
        false
      end

      # After a failed open, the file goes back to what it was: gone if this
      # call created it (and the path still names it: another writer may
      # have a new file there), empty if it was empty (a later open with a
      # shape can then create it).
      def undo_create(file, path, created)
        if created
          File.delete(path) if same_file?(file, path)
        else
          file.truncate(0)
        end
      rescue SystemCallError
        nil # the open's own error is the one to raise
      end

      # A new file: the header of the template's shape with m cells, flagged
      # open, and zeroed cells (a sparse file, whose blocks map then
      # reserves unless told not to).
      def create(file, template, m)
        raise ArgumentError, "give the filter's shape (m:, k:, ...) to create a file" unless template

        fields = template.send(:export_fields) + template.send(:export_extra) + template.send(:export_sizing)
        fields[0] = m
        length = template.send(:body_bytes_for, m)
        header = Format.header(Format.kind_of(template), Format::FLAG_OPEN, fields, length, length, 0,
                               template.send(:format_version))
        file.write(header)
        file.truncate(header.bytesize + length)
        file.flush
      end

      # A closed file's checksum is checked first, on the file as found
      # (reading only its data: holes are skipped). Then, for a writer, the
      # file's blocks are reserved: once it is known to be a filter of klass
      # (a sparse file of something else keeps its holes), and before it is
      # mapped, since a counting or continuous filter's cells are read
      # through the mapping on opening, and on tmpfs reading a hole takes a
      # page too.
      def map(klass, file, readonly, verify, reserve, path)
        head = file.pread([file.size, 128 * 1024].min, 0) # the longest header, with 64 KiB of metadata
        _, flags, fields, stored, raw, body_crc, at, sizing, metadata = Format.parse_header(head, expect: klass)
        Format.fail!("a deflated file cannot be mapped: load it with #{klass}.load_file") if flags.anybits?(Format::FLAG_DEFLATE)
        Format.fail!("#{file.size} bytes where the header says #{at + stored}") unless file.size == at + stored && raw == stored
        if verify && flags.nobits?(Format::FLAG_OPEN) && file_crc(file.fileno, at, file.size) != body_crc
          Format.fail!("body checksum mismatch: the file is corrupted")
        end
        reserve_blocks(file.fileno, file.size, path, false) if reserve
        filter = klass.send(:allocate_mapped)
        filter.send(:map_state, fields, file.fileno, at, file.size, !readonly, flags.anybits?(Format::FLAG_OPEN))
        filter.send(:import_sizing, sizing)
        filter.send(:import_metadata, metadata)
        filter.instance_variable_set(:@mapped, State.new(file, path, readonly, at, Process.pid))
        filter
      rescue FormatError => e # the reason alone does not say which file
        raise FormatError, "#{path}: #{e.message}"
      end
    end

    def self.included(klass)
      klass.extend(ClassMethods)
      klass.prepend(Copy)
    end
  end
end
