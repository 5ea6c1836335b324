# frozen_string_literal: true

module Bloomc
  # When a filter's memory is committed, and in what pages.
  #
  # A new filter's cells are zeros the kernel has only promised: a page
  # (4 KiB) becomes real memory the first time a key touches it, at a cost of
  # a few microseconds each. A sparse filter, a large one holding few keys,
  # so costs only the pages its keys touched. A filter that will be filled
  # anyway is faster committed at once: +prefault: true+ on +new+ and +open+,
  # or #prefault!, commits every page in one call to the kernel; a batch
  # add (add_all, add_new) that would touch most pages of a fresh filter of
  # 2 MiB or more does it by itself (docs/PERFORMANCE.md has the rule and
  # its measurements).
  module Pages
    # +new+ of every filter class, with +prefault:+.
    module New
      # call-seq: new(*args, prefault: false, **options) -> filter
      #
      # The class's own +new+; with +prefault: true+, the new filter's pages
      # are committed before it is returned (#prefault!).
      #
      # prefault:: (Boolean) commit every page now
      # Raises:: TypeError when +prefault+ is neither true nor false
      def new(*args, prefault: false, **options, &block)
        Pages.check_prefault(prefault)
        filter = super(*args, **options, &block)
        prefault ? filter.prefault! : filter
      end
    end

    def self.check_prefault(value) # :nodoc:
      return if [true, false].include?(value)

      raise TypeError, "prefault must be true or false, not #{value.class}"
    end

    # Commits every page of the filter's memory now, so that no add or
    # lookup waits for the kernel later. A filter mapped from a file for
    # writing gets every block of the file allocated (a sparse file's holes
    # filled); one mapped read-only has the file read into memory, holes
    # left as they are. Safe on a frozen filter: no cell changes.
    #
    # Returns:: (self)
    # Raises:: NoMemoryError when the memory is not there
    # Raises:: IOError when closed, or the mapped file changed size
    def prefault!
      commit_pages
      self
    end
  end

  # call-seq: Bloomc.use_huge_pages! -> true
  #
  # Lets large filters use transparent huge pages (2 MiB): from now on, a
  # filter whose cells take 2 MiB or more is advised +MADV_HUGEPAGE+, so that
  # each random access misses the TLB far less and its first fill faults
  # 512 times less often (docs/PERFORMANCE.md).
  #
  # It changes the whole process: Ruby 3.1 turns huge pages off for its
  # process at boot (+THP_enabled: 0+ in /proc/self/status), since after a
  # fork one byte written in a 2 MiB page shared with the child copies the
  # whole 2 MiB instead of 4 KiB, which makes preforking servers grow. On
  # Linux 6.18 and later this lifts that only for memory advised
  # MADV_HUGEPAGE (Ruby's heap stays on small pages); on older kernels it
  # lifts it for the whole process, where the system's setting
  # (/sys/kernel/mm/transparent_hugepage/enabled) then applies. A forked
  # child inherits it. It cannot be undone.
  #
  # Returns:: (true)
  # Raises:: Bloomc::UnsupportedError when the system has no transparent
  #     huge pages, they are set to +never+, or the gem was built without
  #     Linux's prctl
  def self.use_huge_pages! # rubocop:disable Naming/PredicateMethod -- a bang: it changes the process
    enabled = begin
      File.read("/sys/kernel/mm/transparent_hugepage/enabled")
    rescue SystemCallError
      raise UnsupportedError, "this system has no transparent huge pages"
    end
    raise UnsupportedError, "transparent huge pages are off system-wide ([never])" if enabled.include?("[never]")

    error = allow_huge_pages
    raise UnsupportedError, "no prctl(PR_SET_THP_DISABLE) (Linux's) in this build or this kernel" if error == Errno::ENOSYS::Errno
    raise UnsupportedError, "the kernel refused huge pages: #{SystemCallError.new(nil, error).message}" unless error.zero?

    true
  end

  # Returns:: (Boolean) whether ::use_huge_pages! has run in this process:
  #     large filters allocated now get huge pages
  def self.huge_pages?
    huge_pages_advised
  end
end
