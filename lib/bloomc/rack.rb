# frozen_string_literal: true

require "bloomc"
require "bloomc/json_representation"
require "digest"
require "json"
require "stringio"
require "strscan"
require "time"
require "zlib"

begin
  require "rack"
rescue LoadError => e
  raise LoadError, "bloomc/rack needs the rack gem (2.2 or 3.x): add `gem \"rack\"` to your Gemfile [#{e.message}]"
end

module Bloomc
  # A Rack application that publishes filters as web resources
  # (docs/HTTP.md): the files DIR/NAME.bloom of a directory, and filters
  # held in the process by name, each as GET NAME (the binary format) and
  # GET NAME.json, with validators, conditional requests, gzip and ranges.
  #
  #   app = Bloomc::RackApp.new("filters/")
  #   app.publish("recent", filter)
  #   run app # config.ru
  class RackApp
    # The binary format's media type (docs/FORMAT.md), served for GET NAME.
    MEDIA_TYPE = "application/vnd.bloomc"
    # The JSON form's, served for GET NAME.json and the index.
    JSON_TYPE = "application/json"
    # One path segment, in characters that never need percent-encoding; a
    # name cannot be "." or "..", start with a dot, or hold a slash.
    NAME = /\A[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}\z/
    # A period's label (Bloomc::PeriodicFilter: "2026-11-24T13" and the like).
    LABEL = /\A[0-9][0-9T:-]{0,31}\z/
    # index.json is the index's own route, so no filter may be named index,
    # and bloomc.js the front page's script.
    RESERVED = %w[index bloomc.js].freeze
    # The front page (GET /): the filters' list and a key's lookup.
    FRONT_PAGE = File.expand_path("rack/front_page.html", __dir__)
    # The JavaScript reader the front page runs (GET /bloomc.js).
    SCRIPT = File.expand_path("../../js/src/bloomc.js", __dir__)
    # Cache-Control of what never changes at its URL: a closed period.
    IMMUTABLE = "public, max-age=31536000, immutable"
    # The methods served; any other is answered 405 with ALLOW.
    METHODS = %w[GET HEAD].freeze
    # The Allow header of a 405.
    ALLOW = "GET, HEAD"

    # Bytes that stay (a file, a closed period) are gzipped once, as small
    # as zlib makes them (a sparse 1.2 MB filter: 16 KB, in 0.1 s); bytes
    # that may change on the next request at zlib's default (22 KB, 0.01 s).
    GZIP_LASTING = Zlib::BEST_COMPRESSION
    # zlib's level for bytes that may change on the next request.
    GZIP_CHANGING = Zlib::DEFAULT_COMPRESSION
    # Above this size, a sample decides whether gzip is worth its time.
    GZIP_SAMPLE = 65_536

    # One representation of a resource: its bytes, their strong ETag, and
    # the gzip variant made once (with its own ETag, which names the level:
    # other bytes) when a client first asks for it.
    class Representation
      attr_reader :body, :etag, :gzip_etag, :type, :changed_at, :last_modified

      def initialize(body, type, changed_at, level: GZIP_CHANGING)
        @body = body.b.freeze
        @type = type
        digest = Digest::SHA256.hexdigest(@body)[0, 32]
        @etag = %("#{digest}").freeze
        @level = level
        @gzip_etag = %("#{digest}-gzip#{level}").freeze
        @changed_at = changed_at
        @last_modified = changed_at.httpdate.freeze
      end

      # The gzipped bytes, or nil when gzip saves less than 1/32 of them (a
      # full filter's bits are as random as gzip's own output).
      # Computed once; two threads may both compute it, to the same bytes.
      def gzip
        return @gzip if defined?(@gzip)
        return @gzip = nil unless worth_gzip?

        out = StringIO.new("".b)
        writer = Zlib::GzipWriter.new(out, @level)
        writer.mtime = 1 # not the time of day, so that the bytes (and their ETag) are the same every time
        writer.write(@body)
        writer.finish
        @gzip = out.string.bytesize < @body.bytesize - @body.bytesize / 32 ? out.string.freeze : nil
      end

      private

      # A large body whose middle does not shrink by a tenth at zlib's
      # fastest is not gzipped at all: a full filter then costs 0.3 ms, not
      # the 40 ms of compressing it whole to no gain.
      def worth_gzip?
        return true if @body.bytesize <= 4 * GZIP_SAMPLE

        sample = @body.byteslice(@body.bytesize / 2, GZIP_SAMPLE)
        Zlib::Deflate.deflate(sample, Zlib::BEST_SPEED).bytesize < GZIP_SAMPLE * 9 / 10
      end
    end

    # What the index tells of a filter's load (docs/HTTP.md, "The index"):
    # the capacity and error rate it was sized for, the keys it holds as
    # over_capacity? counts them, whether it is past its capacity, and the
    # false-positive rate it meets now. Each is nil where the filter has none
    # (or a rate is not a finite number).
    Load = Struct.new(:capacity, :error_rate, :keys, :over_capacity, :false_positive_rate) do
      # The kinds whose over_capacity? needs no capacity: a scalable filter
      # compares its layers' rates with its error rate, and an A2, stable or
      # fuse filter is never past its capacity by design. Any other kind
      # without a capacity cannot tell (nil), though its over_capacity? says
      # false.
      self::WITHOUT_CAPACITY = %w[Bloomc::ScalableBloomFilter Bloomc::A2BloomFilter Bloomc::StableBloomFilter
                                  Bloomc::BinaryFuseFilter].freeze

      # The load of +filter+: read once per entry, from a filter made from
      # the very bytes the entry serves. A rate costs one scan of the cells.
      def self.of(filter)
        capacity = finite(filter.capacity) if filter.respond_to?(:capacity)
        error_rate = finite(filter.error_rate) if filter.respond_to?(:error_rate)
        error_rate = nil unless error_rate&.positive? # 0: sized by capacity alone
        over = if filter.respond_to?(:over_capacity?) && (capacity || self::WITHOUT_CAPACITY.include?(filter.class.name))
                 filter.over_capacity? == true
               end
        rate = finite(filter.false_positive_rate) if filter.respond_to?(:false_positive_rate)
        new(capacity, error_rate, keys_of(filter, capacity), over, rate)
      end

      # The keys over_capacity? compares with the capacity: the keys new to
      # the filter where its kind counts them (a key added twice counts
      # once), a continuous filter's live keys as its fill implies them, or
      # its adds.
      def self.keys_of(filter, capacity)
        if filter.is_a?(ContinuousBloomFilter)
          estimate = filter.estimated_count
          estimate.finite? ? estimate.round : nil
        elsif capacity && filter.respond_to?(:distinct, true)
          filter.send(:distinct)
        elsif filter.respond_to?(:size)
          filter.size
        end
      end

      def self.finite(value)
        value.is_a?(Numeric) && value.real? && value.finite? ? value : nil
      end

      # The index's fields, named as in docs/HTTP.md.
      def to_h = super.transform_keys(&:to_s)
    end

    # A servable filter's bytes (checked), with its JSON representation made
    # when first asked for; or the reason it is not servable.
    class Entry
      attr_reader :binary, :kind, :metadata, :error, :identity

      # +bytes+ a dump of +filter+ (its metadata is shown in the index);
      # +filter_load+ its Load when +filter+ was made from these bytes.
      def initialize(bytes, filter, changed_at, identity: nil, error: nil, level: GZIP_CHANGING, filter_load: nil)
        @identity = identity
        @error = error
        @level = level
        return if error

        @binary = Representation.new(bytes, MEDIA_TYPE, changed_at, level: level)
        @kind = Format::KINDS.fetch(bytes.unpack1("S<", offset: 10)).to_s
        @metadata = filter.respond_to?(:metadata) ? filter.metadata : nil
        @filter_load = filter_load
      end

      # The entry of a file's bytes, checked as Bloomc.load checks them (the
      # magic, both checksums and the kind's own checks of its cells), or
      # the reason they are not served. The filter the check made is read
      # for the index's Load there and then, and not kept.
      def self.checked(bytes, changed_at, identity: nil)
        filter = Format.load(bytes)
        new(bytes, filter, changed_at, identity: identity, level: GZIP_LASTING, filter_load: Load.of(filter))
      rescue FormatError => e
        failed(e.message, identity)
      end

      def self.failed(reason, identity)
        new(nil, nil, nil, identity: identity, error: reason)
      end

      # The Load of the bytes served, for the index. A filter held in the
      # process changes under its dump, so its Load is read from the dump
      # itself (loaded once, when the index first asks for this entry),
      # never from the filter as it is by then. Two threads may both read
      # it, to the same Load.
      def filter_load
        @filter_load ||= Load.of(Format.load(binary.body))
      rescue FormatError
        @filter_load = Load.new
      end

      def json
        @json ||= Representation.new(JSON.generate(Format.json_representation(binary.body)), JSON_TYPE, binary.changed_at,
                                     level: @level)
      end

      def lasting?
        @level == GZIP_LASTING
      end
    end

    # A filter published by name: its lock and the entry of its last dump.
    Published = Struct.new(:object, :lock, :entry, :periods, :periodic)
    private_constant :Representation, :Load, :Entry, :Published

    # dir:: (String, Pathname, nil) a directory of saved filters
    #     (NAME.bloom), looked at on every request; nil for in-process filters
    #     only
    # front_page:: (Boolean) serve the front page at / and its script
    #     at /bloomc.js
    # max_age:: (Integer) seconds, the Cache-Control max-age of the
    #     resources that may change (a closed period's is a year)
    def initialize(dir = nil, front_page: false, max_age: 60)
      unless max_age.is_a?(Integer) && max_age >= 0
        raise ArgumentError, "max_age must be a non-negative Integer of seconds, not #{max_age.inspect}"
      end

      @dir = dir && checked_dir(dir)
      @front_page = front_page ? true : false
      @max_age = max_age
      @cache_control = "public, max-age=#{max_age}"
      @published = {}
      @files = {}
      @static = {}
      @lock = Mutex.new
      # Rack's own middleware where it does the app's job as the app would
      # (docs/HTTP.md, "Rack's middleware and the app's own"): HEAD's empty
      # body and Content-Length. Conditional GET, gzip and ranges stay the
      # app's, for the reasons given there.
      @stack = ::Rack::Head.new(::Rack::ContentLength.new(method(:answer)))
    end

    # Returns:: (String, Pathname, nil) the directory of saved filters, as given
    attr_reader :dir
    # Returns:: (Integer) the Cache-Control max-age of what may change, in seconds
    attr_reader :max_age

    # Serves +filter+ as NAME (and NAME.json); a Bloomc::PeriodicFilter as
    # NAME/LABEL for each of its periods. Replaces what NAME served; a file
    # NAME.bloom of the directory is hidden while it is published.
    #
    # Returns:: (filter)
    def publish(name, filter)
      name = checked_name(name)
      periodic = filter.respond_to?(:each_period) && filter.respond_to?(:period) && filter.respond_to?(:synchronize)
      Format.kind_of(filter) unless periodic # a TypeError for anything without a binary format

      @lock.synchronize { @published[name] = Published.new(filter, Mutex.new, nil, {}, periodic) }
      filter
    end

    # Stops serving NAME. @return [filter, nil] what it served
    def unpublish(name)
      @lock.synchronize { @published.delete(name.to_s) }&.object
    end

    # Runs the block holding the lock under which the app dumps the filter
    # published as NAME: the filter's own (#synchronize) when it has one,
    # else one the app keeps. Another thread that changes the filter while it
    # is served does so in this block, so that no response holds a dump torn
    # by its change. @return the block's value
    def synchronize(name, &)
      published = @published.fetch(name.to_s) { raise KeyError, "nothing is published as #{name.inspect}" }
      lock_of(published).synchronize(&)
    end

    # The Rack interface.
    def call(env)
      @stack.call(env)
    end

    private

    # The answer to a GET or a HEAD (which Rack::Head gives no body), without
    # its Content-Length (Rack::ContentLength counts the body).
    def answer(env)
      return method_not_allowed unless METHODS.include?(env["REQUEST_METHOD"])

      route(env, decoded_path(env["PATH_INFO"]))
    end

    def route(env, path)
      return not_found unless path

      case path
      when "/index.json" then respond(env, index(env), @cache_control)
      when "/", "" then front_page(env, path)
      when "/bloomc.js" then @front_page ? static(env, SCRIPT, "text/javascript; charset=utf-8") : not_found
      else filter_route(env, path)
      end
    end

    def filter_route(env, path)
      name, label = path.delete_prefix("/").split("/", 2)
      json = false
      target = label || name
      if target.end_with?(".json")
        json = true
        target = target.delete_suffix(".json")
        label ? label = target : name = target
      end
      return not_found unless servable_name?(name) && (label.nil? || label.match?(LABEL))

      published = @published[name]
      if published&.periodic
        label ? period(env, published, label, json) : not_found("#{name} is published per period: ask for #{name}/LABEL (see index.json)")
      elsif label
        not_found
      elsif published
        entry = in_process(published)
        respond(env, json ? entry.json : entry.binary, @cache_control)
      else
        file(env, name, json)
      end
    end

    # PATH_INFO, percent-decoded once, or nil when it cannot name anything
    # here: a name is one segment of NAME's characters, so a '%' left after
    # decoding (double encoding), a NUL, a backslash, an empty or dot
    # segment never matches.
    def decoded_path(raw)
      raw = raw.to_s.b # a server may hand over invalid UTF-8 as UTF-8
      return raw unless raw.include?("%")

      decoded = raw.b.gsub(/%(\h\h)/) { Regexp.last_match(1).hex.chr }
      decoded.include?("%") ? nil : decoded
    end

    def front_page(env, path)
      return not_found unless @front_page
      # Mounted at /filters and asked for /filters: the page's relative URLs
      # need the trailing slash.
      return redirect("#{env['SCRIPT_NAME']}/") if path.empty?

      static(env, FRONT_PAGE, "text/html; charset=utf-8")
    end

    # A file of the directory, from the cache while its (mtime, size, inode,
    # device) stand: a conditional GET costs one lstat.
    def file(env, name, json)
      return not_found unless @dir

      unless (entry = directory_entry(name, env))
        @lock.synchronize { @files.delete(name) }
        return not_found("no filter named #{name} here\n")
      end
      return server_error("#{name}.bloom is not a servable bloomc filter: #{entry.error}\n") if entry.error

      respond(env, json ? entry.json : entry.binary, @cache_control)
    end

    # The stat of a regular file at +path+ that is inside the directory
    # (a symlink is followed only when its target is), or nil.
    def servable_stat(path)
      stat = File.lstat(path)
      if stat.symlink?
        real = File.realpath(path)
        return nil unless real.start_with?("#{@dir}/")

        stat = File.stat(real)
      end
      stat.file? ? stat : nil
    rescue SystemCallError
      nil
    end

    def identity(stat)
      [stat.mtime, stat.size, stat.ino, stat.dev]
    end

    # Reads the file once, whole (bloomc's save renames a finished file into
    # place, so the bytes are one save's), and checks them; the ETag is the
    # digest of the same bytes that are served. A failure is kept for the
    # same file too, so that a corrupted file is not read on every request.
    def load_file(env, name, path)
      real = File.realpath(path)
      return nil unless real.start_with?("#{@dir}/")

      # NONBLOCK: a FIFO renamed into place since the stat would
      # otherwise hold this thread in open(2) until a writer came.
      entry = File.open(real, File::RDONLY | File::NOFOLLOW | File::NONBLOCK | File::BINARY) do |io|
        stat = io.stat
        return nil unless stat.file?

        bytes = read_checked(io, stat.size)
        bytes.is_a?(String) ? Entry.checked(bytes, stat.mtime, identity: identity(stat)) : Entry.failed(bytes.message, identity(stat))
      end
      env["rack.errors"]&.puts("bloomc: not serving #{name}.bloom: #{entry.error}") if entry.error
      @lock.synchronize { @files[name] = entry }
    rescue SystemCallError
      nil
    end

    # The file's bytes, or the FormatError that refuses it: anything that
    # does not start as a filter is refused at its first bytes, before a
    # large file is read whole.
    def read_checked(io, size)
      head = io.read(Format::HEADER).to_s
      Format.parse_header(head) if head.bytesize < Format::HEADER || !head.start_with?(Format::MAGIC)
      flags = head.unpack1("S<", offset: 12)
      # A filter mapped for writing changes under its checksum: not a snapshot.
      if flags.anybits?(Format::FLAG_OPEN)
        return FormatError.new("it is open for writing (mapped); serve it once its writer closes it")
      end

      head << io.read(size - head.bytesize).to_s
    rescue FormatError => e
      e
    end

    # An in-process filter, dumped under its lock on every request; the
    # entry (and its ETag, gzip and JSON) is kept while the dump holds the
    # same filter (a SlidingBloomFilter's also says when it was made: the
    # entry's says it as well as any), and its Last-Modified is when the app
    # first saw it.
    def in_process(published)
      filter = published.object
      bytes = lock_of(published).synchronize { filter.dump }
      entry = published.entry
      return entry if entry && Format.same_content?(entry.binary.body, bytes)

      published.entry = Entry.new(bytes, filter, now)
    end

    def lock_of(published)
      published.periodic || published.object.respond_to?(:synchronize) ? published.object : published.lock
    end

    # A period of a periodic filter. A closed period's dump is final (it
    # never changes again): it is made once, after the period closed, and
    # served with a year's max-age; the current one is dumped per request.
    def period(env, published, label, json)
      periodic = published.object
      found = periodic.period(label)
      unless found
        @lock.synchronize { published.periods.delete(label) }
        return not_found("#{label} is not a period of this filter\n")
      end

      entry = period_entry(published, label, *found)
      respond(env, json ? entry.json : entry.binary, found[1] ? IMMUTABLE : current_cache_control(periodic))
    end

    def period_entry(published, label, filter, closed)
      cached, final = published.periods[label]
      return cached if final

      bytes = published.object.synchronize { filter.dump }
      entry = if cached && cached.binary.body == bytes
                # Closed since it was dumped: its last bytes, now lasting.
                closed && !cached.lasting? ? Entry.new(bytes, filter, cached.binary.changed_at, level: GZIP_LASTING) : cached
              else
                Entry.new(bytes, filter, now, level: closed ? GZIP_LASTING : GZIP_CHANGING)
              end

      @lock.synchronize do
        published.periods[label] = [entry, closed]
        prune_periods(published) if published.periods.size > 64
      end
      entry
    end

    # Forgets the cached periods the filter has dropped.
    def prune_periods(published)
      published.periods.delete_if { |label, _| published.object.period(label).nil? }
    end

    # The current period's max-age: the app's, but never beyond the period.
    def current_cache_control(periodic)
      "public, max-age=#{[@max_age, periodic.period_seconds.floor].min}"
    end

    # The index: one entry per servable filter (and per period).
    def index(env)
      filters = []
      published = @lock.synchronize { @published.dup }
      published.each do |name, pub|
        if pub.periodic
          periods = []
          pub.object.each_period { |label, filter, closed| periods << [label, filter, closed] }
          periods.each { |label, filter, closed| filters << index_entry("#{name}/#{label}", period_entry(pub, label, filter, closed)) }
          @lock.synchronize { pub.periods.select! { |label, _| periods.any? { |period| period[0] == label } } }
        else
          filters << index_entry(name, in_process(pub))
        end
      end
      names = directory_names
      @lock.synchronize { @files.select! { |name, _| names.include?(name) } }
      names.each do |name|
        next if published.key?(name)

        entry = directory_entry(name, env)
        filters << index_entry(name, entry) if entry && !entry.error
      end
      # Stamped now: it has no Last-Modified (a filter dropped from it would
      # not make it newer), so it is revalidated by its ETag alone.
      Representation.new(JSON.generate({ "filters" => filters }), JSON_TYPE, now)
    end

    def index_entry(name, entry)
      rep = entry.binary
      { "name" => name, "url" => name, "json_url" => "#{name}.json", "kind" => entry.kind, "bytes" => rep.body.bytesize,
        "etag" => rep.etag, "last_modified" => rep.last_modified, "metadata" => entry.metadata }.merge(entry.filter_load.to_h)
    end

    def directory_names
      return [] unless @dir

      Dir.children(@dir).filter_map do |file|
        name = file.delete_suffix(".bloom")
        name if name != file && servable_name?(name)
      end.sort
    rescue SystemCallError
      []
    end

    # env: the request's, whose rack.errors learns of a file that fails its
    # checks (once: the failure is cached with the file's identity).
    def directory_entry(name, env)
      path = File.join(@dir, "#{name}.bloom")
      stat = servable_stat(path) or return nil
      entry = @files[name]
      entry&.identity == identity(stat) ? entry : load_file(env, name, path)
    end

    # The front page and its script: files of the gem, cached by their stat.
    def static(env, path, type)
      stat = File.stat(path)
      cached = @static[path]
      unless cached && cached[0] == identity(stat)
        cached = [identity(stat), Representation.new(File.binread(path), type, stat.mtime, level: GZIP_LASTING)]
        @lock.synchronize { @static[path] = cached }
      end
      respond(env, cached[1], @cache_control)
    rescue SystemCallError
      not_found
    end

    # The response for +rep+: 304 when the request's validators match, gzip
    # when the client takes it (and it is smaller), a single byte range when
    # asked for, and the headers of the representation on every one.
    def respond(env, rep, cache_control)
      ranged = env["HTTP_RANGE"]
      gzip = ranged.nil? && gzip_accepted?(env["HTTP_ACCEPT_ENCODING"]) ? rep.gzip : nil
      etag = gzip ? rep.gzip_etag : rep.etag
      headers = { "content-type" => rep.type, "etag" => etag, "cache-control" => cache_control,
                  "vary" => "Accept-Encoding", "accept-ranges" => "bytes", "x-content-type-options" => "nosniff" }
      # A time within the current second is not a validator: a change later
      # in the same second would have the same Last-Modified (RFC 9110,
      # 8.8.2.2). Clients revalidate with the ETag until the second is over.
      headers["last-modified"] = rep.last_modified if rep.changed_at.to_i < now.to_i
      if not_modified?(env, etag, rep)
        headers.delete("content-type") # a 304 has no content (Rack::Lint)
        return [304, headers, []]
      end

      body = gzip || rep.body
      headers["content-encoding"] = "gzip" if gzip
      status = 200
      if ranged && if_range_holds?(env["HTTP_IF_RANGE"], rep)
        range = byte_range(ranged, body.bytesize)
        if range == :unsatisfiable
          return text(416, "range not satisfiable: the representation has #{body.bytesize} bytes\n",
                      { "content-range" => "bytes */#{body.bytesize}", "vary" => "Accept-Encoding" })
        elsif range
          status = 206
          headers["content-range"] = "bytes #{range.begin}-#{range.end}/#{body.bytesize}"
          body = body.byteslice(range)
        end
      end
      [status, headers, [body]]
    end

    # If-None-Match, when present, decides alone (weak comparison, a list
    # or *); else If-Modified-Since against Last-Modified.
    def not_modified?(env, etag, rep)
      if (inm = env["HTTP_IF_NONE_MATCH"])
        return etag_matches?(inm, etag)
      end

      since = env["HTTP_IF_MODIFIED_SINCE"] or return false
      time = Time.httpdate(since)
      # Exactly the date served, not any later one: a file moved into place
      # keeps its own, possibly older, mtime (rsync -a, cp -p, tar).
      rep.changed_at.to_i == time.to_i && rep.changed_at.to_i < now.to_i
    rescue ArgumentError # an unreadable date is ignored (RFC 9110, 13.1.3)
      false
    end

    def etag_matches?(header, etag)
      tags = list_elements(header)
      return true if tags == ["*"]

      tags.any? { |tag| tag.delete_prefix("W/") == etag }
    end

    # If-Range: the range applies only to the representation it names (a
    # strong ETag, or a date exactly the Last-Modified).
    def if_range_holds?(header, rep)
      return true unless header

      header = header.b.strip
      return header == rep.etag if header.start_with?('"')

      Time.httpdate(header).to_i == rep.changed_at.to_i && rep.changed_at.to_i < now.to_i
    rescue ArgumentError
      false
    end

    # One "bytes=" range of a body of +length+ bytes: a Range, nil to
    # serve the whole (several ranges, another unit, bad syntax), or
    # :unsatisfiable.
    def byte_range(header, length)
      spec = header.b.strip
      return nil unless spec.start_with?("bytes=")

      specs = list_elements(spec.delete_prefix("bytes="))
      return nil unless specs.size == 1

      match = /\A(\d*)-(\d*)\z/.match(specs.first) or return nil
      first, last = match.captures
      if first.empty?
        return nil if last.empty?

        suffix = last.to_i
        return :unsatisfiable if suffix.zero?

        return ([length - suffix, 0].max)..(length - 1)
      end
      first = first.to_i
      return :unsatisfiable if first >= length

      last = last.empty? ? length - 1 : [last.to_i, length - 1].min
      last < first ? nil : first..last
    end

    # gzip when Accept-Encoding lists it (or *) with a non-zero q.
    def gzip_accepted?(header)
      return false unless header

      header = header.b.downcase
      return false unless header.include?("gzip") || header.include?("*")

      gzip_q = star_q = nil
      list_elements(header).each do |item|
        coding, *params = item.split(";").map(&:strip)
        q = params.find { |p| p.start_with?("q=") }&.then { |p| p.delete_prefix("q=").to_f } || 1.0
        case coding
        when "gzip", "x-gzip" then gzip_q = q
        when "*" then star_q = q
        end
      end
      (gzip_q || star_q || 0).positive?
    end

    # The elements of a list header (RFC 9110, 5.6.1), as bytes, trimmed:
    # split at the commas outside quoted strings (an entity-tag may hold
    # one), the empty elements ("a,,b", ",a") dropped, as a recipient must.
    # Each step consumes what it matched, so a hostile value costs one pass.
    def list_elements(header)
      scanner = StringScanner.new(header.b)
      elements = ["".b]
      until scanner.eos?
        if scanner.skip(/,/)
          elements << "".b
        else
          elements.last << (scanner.scan(/"(?:[^"\\]|\\.)*+"?/n) || scanner.scan(/[^,"]+/n))
        end
      end
      elements.map(&:strip).reject(&:empty?)
    end

    def now
      Time.now
    end

    def checked_dir(dir)
      path = File.expand_path(dir.to_s)
      raise ArgumentError, "#{path} is not a directory" unless File.directory?(path)

      File.realpath(path)
    end

    # One segment of safe characters; not NAME.json's NAME.json, nor the index's.
    def servable_name?(name)
      name.match?(NAME) && !name.end_with?(".json") && !RESERVED.include?(name)
    end

    def checked_name(name)
      name = name.to_s
      unless servable_name?(name)
        raise ArgumentError, "#{name.inspect} cannot be a filter's name: one path segment of letters, digits, '_', '-' and '.' " \
                             "(not starting with a dot, not ending in .json, not index)"
      end
      name
    end

    def text(status, message, extra = {})
      headers = { "content-type" => "text/plain; charset=utf-8", "x-content-type-options" => "nosniff" }.merge(extra)
      [status, headers, [message]]
    end

    def not_found(message = "not found\n")
      text(404, message.end_with?("\n") ? message : "#{message}\n")
    end

    def server_error(message)
      text(500, message)
    end

    def method_not_allowed
      text(405, "only GET and HEAD are served here\n", "allow" => ALLOW)
    end

    def redirect(location)
      text(301, "see #{location}\n", "location" => location)
    end
  end
end
