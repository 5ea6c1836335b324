# frozen_string_literal: true

require "delegate"
require "net/http"
require "uri"
require "zlib"
require "bloomc" unless defined?(Bloomc::Format)

module Bloomc
  # A filter published over HTTP (by Bloomc::RackApp or any server of saved
  # files), kept fresh: it is fetched once, then revalidated every +interval+
  # seconds by a background thread with a conditional GET (If-None-Match,
  # If-Modified-Since), so an unchanged filter costs a 304 and no body.
  #
  # Lookups answer from the last good copy and never wait for the network.
  # When the server is down or sends something that is not a filter, the copy
  # is kept and #last_error says why; #age says how long ago the copy was last
  # confirmed current.
  #
  # Example:
  #
  #   changed = Bloomc::Remote.new("https://example.org/filters/changed/2026-11-24T13", interval: 60)
  #   changed.include?("jcgregorio")
  #   changed.age # => seconds since the server last confirmed the copy
  #   changed.stop
  class Remote
    # The media type of the binary format (docs/FORMAT.md).
    MEDIA_TYPE = "application/vnd.bloomc"
    # Redirects followed before giving up.
    MAX_REDIRECTS = 5
    # The largest body fetched unless max_bytes: says otherwise (1 GiB).
    DEFAULT_MAX_BYTES = 1 << 30
    # The most the status line and headers may take, together and in any
    # one line, unless max_header_bytes: says otherwise (64 KiB).
    DEFAULT_MAX_HEADER_BYTES = 1 << 16
    # The seconds a whole fetch may take unless deadline: says otherwise.
    DEFAULT_DEADLINE = 300
    # The shortest interval: below it the thread would do little but poll.
    MIN_INTERVAL = 0.01

    # The read-only lookups answered from the current copy.
    QUERIES = %i[include? [] member? === include_all count_included all_include? any_include?].freeze

    # Returns:: (String) the URL polled
    attr_reader :url
    # Returns:: (Numeric) seconds between revalidations
    attr_reader :interval

    # Fetches the filter at +url+ once.
    #
    # url:: (String, URI::HTTP) an http or https URL
    # expect:: (Class, nil) the filter class the body must hold
    # timeout:: (Numeric) seconds to connect, and to wait for each read
    # deadline:: (Numeric) seconds the whole fetch may take, redirects
    #     included: a server that sends a byte now and then, each within
    #     +timeout+, is given up on then
    # max_bytes:: (Integer) the most the body may take, on the wire and
    #     inflated: a larger one is refused before it is read whole
    # max_header_bytes:: (Integer) the most the status line and headers may
    #     take (interim 1xx responses included), and any one line of a
    #     chunked body's framing
    # Returns:: (filter) the filter, not frozen
    # Raises:: Bloomc::FetchError when the server does not answer, answers other
    #     than 200 (after up to MAX_REDIRECTS redirects), sends too much, or
    #     takes longer than +deadline+
    # Raises:: Bloomc::FormatError when the body is not a filter (of class +expect+)
    # Raises:: ArgumentError, TypeError for a URL or option that does not fit
    def self.fetch(url, expect: nil, timeout: 10, deadline: DEFAULT_DEADLINE, max_bytes: DEFAULT_MAX_BYTES,
                   max_header_bytes: DEFAULT_MAX_HEADER_BYTES)
      options = HTTP.options(expect, timeout, deadline, max_bytes, max_header_bytes)
      HTTP.get(HTTP.check_url(url), options).body_filter
    end

    # url:: (String, URI::HTTP) an http or https URL
    # interval:: (Numeric) seconds between revalidations (at least MIN_INTERVAL)
    # expect,:: timeout, deadline, max_bytes, max_header_bytes as for ::fetch,
    #     for each check
    # wait:: (Boolean) true: fetch before returning, raising if that
    #     fails; false: return at once and fetch in the background (lookups
    #     raise FetchError until a copy has arrived; see #ready?)
    # max_stale:: (Numeric, nil) when given, lookups raise FetchError
    #     once the copy is older than this (see #age) instead of answering
    # Raises:: Bloomc::FetchError, Bloomc::FormatError when wait: and the first fetch fails
    def initialize(url, interval: 60, expect: nil, timeout: 10, deadline: DEFAULT_DEADLINE, max_bytes: DEFAULT_MAX_BYTES,
                   max_header_bytes: DEFAULT_MAX_HEADER_BYTES, wait: true, max_stale: nil)
      @url = HTTP.check_url(url).to_s
      @shown = HTTP.shown(@url) # for messages: no password
      @interval = check_seconds(:interval, interval, MIN_INTERVAL)
      @max_stale = max_stale && check_seconds(:max_stale, max_stale, 0)
      @copy = Copy.new(@url, HTTP.options(expect, timeout, deadline, max_bytes, max_header_bytes))
      @copy.refresh if wait
      @poller = Poller.new(@copy, @interval, fetch_first: !wait).start
      # The thread holds the Copy, not this object: when this is collected, its thread ends.
      ObjectSpace.define_finalizer(self, Poller.stopper(@poller))
    end

    # Returns:: (filter) the current copy, frozen
    # Raises:: Bloomc::FetchError when there is no copy yet, or it is older than max_stale
    def filter
      copy = @copy.filter
      raise FetchError.new("no copy of #{@shown} yet#{" (#{last_error.message})" if last_error}", url: @shown) unless copy

      if @max_stale && age > @max_stale
        raise FetchError.new("the copy of #{@shown} was last confirmed #{age.round(1)} s ago, more than max_stale (#{@max_stale} s)" \
                             "#{"; #{last_error.message}" if last_error}", url: @shown)
      end
      copy
    end

    # The lookups, each asked of #filter (which raises when there is no copy,
    # or it is too old), for RDoc (:method:) and YARD (@!method).

    ##
    # :method: include?
    # call-seq: include?(key) -> true or false
    #
    # The current copy's answer: Bloomc::BloomFilter#include? and its like.

    # @!method include?(key)
    #   The current copy's answer: Bloomc::BloomFilter#include? and its like.

    ##
    # :method: []
    # call-seq: self[key] -> true or false
    #
    # Same as #include?.

    # @!method []
    #   Same as #include?.

    ##
    # :method: member?
    # call-seq: member?(key) -> true or false
    #
    # Same as #include?.

    # @!method member?(key)
    #   Same as #include?.

    ##
    # :method: ===
    # call-seq: remote === key -> true or false
    #
    # #include?, for case/when (Bloomc::Filter#===): false for what cannot be a key.

    # @!method ===(key)
    #   #include?, for case/when (Bloomc::Filter#===): false for what cannot be a key.

    ##
    # :method: include_all
    # call-seq: include_all(keys) -> Array of true or false
    #
    # The current copy's answers, in order (Bloomc::Batch#include_all).

    # @!method include_all(keys)
    #   The current copy's answers, in order (Bloomc::Batch#include_all).

    ##
    # :method: count_included
    # call-seq: count_included(keys) -> Integer
    #
    # How many of the keys the current copy finds (Bloomc::Batch#count_included).

    # @!method count_included(keys)
    #   How many of the keys the current copy finds (Bloomc::Batch#count_included).
    #   @return [Integer]

    ##
    # :method: all_include?
    # call-seq: all_include?(keys) -> true or false
    #
    # Whether the current copy finds every key (Bloomc::Batch#all_include?).

    # @!method all_include?(keys)
    #   Whether the current copy finds every key (Bloomc::Batch#all_include?).

    ##
    # :method: any_include?
    # call-seq: any_include?(keys) -> true or false
    #
    # Whether the current copy finds any key (Bloomc::Batch#any_include?).

    # @!method any_include?(keys)
    #   Whether the current copy finds any key (Bloomc::Batch#any_include?).

    QUERIES.each do |name|
      define_method(name) { |*args| filter.public_send(name, *args) }
    end

    # Returns:: (Boolean) whether a copy has arrived
    def ready?
      !@copy.filter.nil?
    end

    # Revalidates now, in the calling thread (the background thread's
    # next check is not moved).
    #
    # Returns:: (Boolean) whether the copy changed
    # Raises:: Bloomc::FetchError, Bloomc::FormatError when the check fails
    #     (the copy is kept, and #last_error is set)
    def refresh
      @copy.refresh
    end

    # Returns:: (Float, nil) seconds since the server last confirmed the copy
    #     current (a 200 or a 304), on the monotonic clock; nil before the first
    def age
      @copy.age
    end
    alias stale_for age

    # Returns:: (Time, nil) when the last check was made, whatever its outcome
    def last_checked_at
      @copy.checked_at
    end

    # Returns:: (Time, nil) when the copy last changed (the first fetch included)
    def last_changed_at
      @copy.changed_at
    end

    # Returns:: (Exception, nil) why the last check failed; nil after a success
    def last_error
      @copy.last_error
    end

    # Ends the background thread (the copy still answers).
    #
    # Returns:: (self)
    def stop
      @poller.stop
      self
    end
    alias close stop

    # Returns:: (Boolean) whether the background thread runs
    def running?
      @poller.running?
    end

    # The URL, interval, the copy's age (or that there is none), the last
    # error's class and whether the background thread runs.
    def inspect
      "#<#{self.class} #{@shown} interval=#{interval}s #{ready? ? "age=#{age.round(1)}s" : 'no copy'}" \
        "#{" error=#{last_error.class}" if last_error} #{running? ? 'running' : 'stopped'}>"
    end

    private

    def check_seconds(name, value, min)
      raise TypeError, "#{name} must be a number of seconds, not #{value.class}" unless value.is_a?(Numeric) && value.real?
      raise ArgumentError, "#{name} must be finite and at least #{min}, got #{value.inspect}" unless value.finite? && value >= min

      value
    end

    # The last good copy and what the server said about it. Written by one
    # check at a time (@lock); read without a lock (each field is one
    # reference, replaced whole).
    class Copy
      attr_reader :filter, :checked_at, :changed_at, :last_error

      def initialize(url, options)
        @url = url
        @options = options
        @lock = Mutex.new
        @filter = @etag = @last_modified = @confirmed = @checked_at = @changed_at = @last_error = nil
      end

      def age
        @confirmed && Process.clock_gettime(Process::CLOCK_MONOTONIC) - @confirmed
      end

      def refresh
        @lock.synchronize do
          @checked_at = Time.now
          held = @filter
          response = HTTP.get(@url, @options, etag: held && @etag, last_modified: held && @last_modified)
          changed = !response.not_modified
          if changed
            fresh = response.body_filter.freeze
            changed = held.nil? || fresh != held || metadata(fresh) != metadata(held)
            @filter = fresh # the newest good copy, even when equal
            @etag = response.etag
            @last_modified = response.last_modified
            @changed_at = Time.now if changed
          end
          @confirmed = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          @last_error = nil
          changed
        rescue StandardError => e # a Bloomc::Error, or a surprise that must not pass unseen either
          @last_error = e
          raise
        end
      end

      # In a forked child: a lock its parent's thread held is not held here.
      def after_fork
        @lock = Mutex.new
      end

      private

      def metadata(filter)
        filter.respond_to?(:metadata) ? filter.metadata : nil
      end
    end
    private_constant :Copy

    # The background thread: a check every interval, until stopped.
    class Poller
      # Pollers whose thread runs, so that a forked child can restart them.
      # Each holds a Copy, never the Remote.
      RUNNING = {}.compare_by_identity
      RUNNING_LOCK = Mutex.new

      # A finalizer for the Remote that ends +poller+'s thread.
      def self.stopper(poller)
        proc { poller.stop(join: false) }
      end

      # @api private
      def self.restart_all_after_fork # :nodoc:
        RUNNING.each_key(&:restarted)
      end

      def initialize(copy, interval, fetch_first:)
        @copy = copy
        @interval = interval
        @fetch_first = fetch_first
        @signal = Mutex.new
        @wake = ConditionVariable.new
        @stopping = false
        @thread = nil
      end

      def start
        RUNNING_LOCK.synchronize { RUNNING[self] = true }
        @thread = Thread.new { run }
        @thread.name = "bloomc remote"
        @thread.report_on_exception = false
        self
      end

      def running?
        @thread&.alive? || false
      end

      # Wakes the thread to end and, with join:, waits a moment for it
      # before killing it (a check in progress is abandoned: its socket is
      # closed by Net::HTTP's ensure).
      def stop(join: true)
        RUNNING_LOCK.synchronize { RUNNING.delete(self) }
        thread = @thread
        @signal.synchronize do
          @stopping = true
          @wake.signal
        end
        return unless thread && thread != Thread.current

        thread.kill unless join && thread.join(0.2)
        thread.join(1) if join
      rescue ThreadError # from a finalizer run inside a trap
        @stopping = true
        thread&.kill
      end

      # In a forked child, where the parent's thread does not exist.
      def restarted
        @signal = Mutex.new
        @wake = ConditionVariable.new
        @copy.after_fork
        @fetch_first = @copy.filter.nil?
        start
      end

      private

      def run
        next_at = @fetch_first ? now : now + @interval
        loop do
          @signal.synchronize do
            @wake.wait(@signal, next_at - now) while !@stopping && next_at > now
          end
          break if @stopping

          begin
            @copy.refresh
          rescue StandardError
            nil # kept in the copy's last_error; the last good copy answers
          end
          next_at += @interval
          next_at = now + @interval if next_at < now # fell behind (a slow server): no burst to catch up
        end
      ensure
        RUNNING_LOCK.synchronize { RUNNING.delete(self) } if @thread.equal?(Thread.current)
      end

      def now
        Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end
    end
    private_constant :Poller

    # One GET, redirects followed, the body streamed and checked.
    # @api private
    module HTTP # :nodoc:
      # What a GET gave: not_modified (a 304), or the filter and its validators.
      Response = Struct.new(:not_modified, :body_filter, :etag, :last_modified)
      REDIRECTS = [301, 302, 303, 307, 308].freeze
      NETWORK_ERRORS = [SocketError, SystemCallError, IOError, Timeout::Error, Net::ProtocolError, Net::HTTPBadResponse,
                        Net::HTTPHeaderSyntaxError, Zlib::Error,
                        (OpenSSL::SSL::SSLError if defined?(OpenSSL::SSL::SSLError))].compact.freeze

      module_function

      def check_url(url)
        raise TypeError, "url must be a String or URI, not #{url.class}" unless url.is_a?(String) || url.is_a?(URI::Generic)

        uri = url.is_a?(String) ? URI.parse(url) : url
        raise ArgumentError, "#{url}: only http and https URLs can be fetched" unless uri.is_a?(URI::HTTP) && uri.host && !uri.host.empty?

        uri
      rescue URI::InvalidURIError => e
        raise ArgumentError, "not a URL: #{e.message}"
      end

      def options(expect, timeout, deadline, max_bytes, max_header_bytes)
        unless expect.nil? || (expect.is_a?(Class) && expect.include?(Persistence))
          raise TypeError, "expect must be a Bloomc filter class, not #{expect.inspect}"
        end

        { timeout: timeout, deadline: deadline }.each do |name, value|
          raise TypeError, "#{name} must be a number of seconds, not #{value.class}" unless value.is_a?(Numeric) && value.real?
          raise ArgumentError, "#{name} must be positive and finite, got #{value}" unless value.positive? && value.finite?
        end
        { max_bytes: max_bytes, max_header_bytes: max_header_bytes }.each do |name, value|
          raise TypeError, "#{name} must be an Integer, not #{value.class}" unless value.is_a?(Integer)
          raise ArgumentError, "#{name} must be positive, got #{value}" unless value.positive?
        end

        { expect: expect, timeout: timeout, deadline: deadline, max_bytes: max_bytes, max_header_bytes: max_header_bytes }.freeze
      end

      def get(url, options, etag: nil, last_modified: nil)
        uri = first = check_url(url)
        limits = Limits.new(options[:timeout], now + options[:deadline], options[:deadline], options[:max_header_bytes])
        (MAX_REDIRECTS + 1).times do
          status, result = request(uri, options, limits, etag, last_modified)
          case status
          when :redirect then uri = follow(uri, result)
          when :not_modified
            fail!(uri, "304 Not Modified to an unconditional request", 304) unless etag || last_modified

            return Response.new(true)
          else return Response.new(false, load(uri, result[0], options[:expect]), result[1], result[2])
          end
        end
        fail!(first, "more than #{MAX_REDIRECTS} redirects", nil)
      end

      # [:redirect, location], [:not_modified] or [:ok, [body, etag, last_modified]].
      def request(uri, options, limits, etag, last_modified)
        http = Connection.new(uri.host, uri.port)
        http.limits = limits
        http.use_ssl = uri.scheme == "https"
        # No second try after a timeout: the deadline is the caller's, and a
        # Remote checks again at its next interval.
        http.max_retries = 0
        timeout = limits.wait
        http.open_timeout = http.read_timeout = http.write_timeout = http.ssl_timeout = timeout
        request = Net::HTTP::Get.new(uri)
        request["Accept"] = MEDIA_TYPE
        request["Accept-Encoding"] = "gzip" # so Net::HTTP leaves the body to us, to count and cap
        request["User-Agent"] = "bloomc/#{VERSION} (Ruby)"
        request["If-None-Match"] = etag if etag
        request["If-Modified-Since"] = last_modified if last_modified
        request.basic_auth(URI.decode_www_form_component(uri.user), URI.decode_www_form_component(uri.password.to_s)) if uri.user
        http.start do
          http.request(request) do |response|
            http.head_read
            code = response.code.to_i
            return [:not_modified] if code == 304

            if REDIRECTS.include?(code)
              location = response["location"] or fail!(uri, "#{code} redirect without a Location", code)
              return [:redirect, location]
            end
            fail!(uri, "#{code} #{response.message}".strip, code) unless code == 200

            return [:ok, [read_body(uri, response, options[:max_bytes]), response["etag"], response["last-modified"]]]
          end
        end
      rescue LimitExceeded => e
        fail!(uri, e.message, e.status)
      rescue *NETWORK_ERRORS => e
        fail!(uri, limits.passed? ? limits.passed_message : "#{e.class}: #{e.message}", nil)
      end

      def follow(uri, location)
        target = uri + location
        fail!(uri, "redirect to #{location}, which is not http or https", nil) unless target.is_a?(URI::HTTP) && target.host
        target
      rescue URI::Error
        fail!(uri, "redirect to #{location.inspect}, which is not a URL", nil)
      end

      # The body, inflated when the server gzipped it; refused as soon as it
      # passes max_bytes on the wire or inflated.
      def read_body(uri, response, max_bytes)
        length = response["content-length"]&.to_i
        fail!(uri, "the body of #{length} bytes is larger than max_bytes (#{max_bytes})", 200) if length && length > max_bytes
        inflater = case response["content-encoding"].to_s.strip.downcase
                   when "", "identity" then nil
                   when "gzip", "x-gzip", "deflate" then Zlib::Inflate.new(Zlib::MAX_WBITS + 32) # gzip or zlib, by its header
                   else fail!(uri, "content encoding #{response['content-encoding']} is not one bloomc reads", 200)
                   end
        body = +"".b
        wire = 0
        too_big = -> { fail!(uri, "the body is larger than max_bytes (#{max_bytes})", 200) }
        response.read_body do |chunk|
          wire += chunk.bytesize
          too_big.call if wire > max_bytes
          if inflater
            inflater.inflate(chunk) do |piece|
              body << piece
              too_big.call if body.bytesize > max_bytes
            end
          else
            body << chunk
          end
        end
        fail!(uri, "the gzipped body ends early", 200) if inflater && !inflater.finished?
        body
      ensure
        # reset first: closing a stream that did not finish (a body cut
        # short or refused) warns "attempt to close unfinished zstream"
        inflater&.reset
        inflater&.close
      end

      def load(uri, body, expect)
        Format.load(body, expect: expect)
      rescue FormatError => e
        raise FormatError, "#{shown(uri)}: #{e.message}"
      end

      def fail!(uri, reason, status)
        raise FetchError.new("GET #{shown(uri)}: #{reason}", url: shown(uri), status: status)
      end

      # The URL without its password, for messages.
      def shown(uri)
        uri.to_s.sub(%r{//[^/@]*@}, "//")
      end

      def now
        Process.clock_gettime(Process::CLOCK_MONOTONIC)
      end

      # A limit of the response passed: the reason, and the status when the
      # head had been read. Not an IOError: Net::HTTP must not take it for a
      # network error.
      class LimitExceeded < StandardError
        attr_reader :status

        def initialize(message, status = nil)
          super(message)
          @status = status
        end
      end

      # One fetch's limits: each wait (+timeout+), the monotonic time it must
      # end by (+ends_at+, +deadline+ seconds after it began) and the head's
      # bytes.
      Limits = Struct.new(:timeout, :ends_at, :deadline, :max_header_bytes) do
        # The seconds the next wait may take: +timeout+, or less near the deadline.
        def wait
          left = ends_at - HTTP.now
          raise LimitExceeded, passed_message if left <= 0

          [timeout, left].min
        end

        def passed?
          HTTP.now >= ends_at
        end

        def passed_message
          "the download took longer than deadline (#{deadline} s)"
        end
      end

      # Net::HTTP with Limits: its socket is a LimitedSocket.
      class Connection < Net::HTTP
        attr_accessor :limits

        # The head has been read: what follows is the body, capped by max_bytes.
        def head_read
          @socket.head_read
        end

        private

        def connect
          super
          @socket = LimitedSocket.new(@socket.io, limits, read_timeout: @socket.read_timeout, write_timeout: @socket.write_timeout,
                                                          continue_timeout: @socket.continue_timeout, debug_output: @socket.debug_output)
        end
      end

      # Net::HTTP's buffered socket, with the bounds it lacks: Net::HTTP
      # reads a line (the status, a header, a chunk's size) until its end
      # however long it is, and waits +timeout+ for each read however many
      # there are.
      class LimitedSocket < Net::BufferedIO
        def initialize(io, limits, **timeouts)
          super(CountedIO.new(io), **timeouts)
          @limits = limits
          @head_bytes = 0
          @head_read = false
          @line_from = nil
        end

        def head_read
          @head_read = true
        end

        # Every line is read here. While its end has not come, whatever was
        # read since it began belongs to it: that is checked before each
        # further read, so that a line that never ends is refused at the
        # limit and not read whole into memory.
        def readuntil(terminator, ignore_eof = false) # rubocop:disable Style/OptionalBooleanParameter -- Net::BufferedIO's signature
          @line_from = @io.bytes_read
          line = super
          @line_from = nil
          check_line(line.bytesize)
          @head_bytes += line.bytesize unless @head_read
          line
        ensure
          @line_from = nil
        end

        private

        def check_line(bytes)
          max = @limits.max_header_bytes
          if @head_read
            raise LimitExceeded.new("a line of the body's framing is longer than max_header_bytes (#{max})", 200) if bytes > max
          elsif @head_bytes + bytes > max
            raise LimitExceeded, "the response's head is larger than max_header_bytes (#{max})"
          end
        end

        # Every read from the socket comes here (net-protocol's one read,
        # in every version): none may wait past the deadline, and none may
        # add to a line already too long.
        def rbuf_fill
          check_line(@io.bytes_read - @line_from) if @line_from
          self.read_timeout = @limits.wait
          super
        end
      end

      # The socket, counting the bytes read from it.
      class CountedIO < SimpleDelegator
        attr_reader :bytes_read

        def initialize(io)
          super
          @bytes_read = 0
        end

        def read_nonblock(*args, **options)
          data = __getobj__.read_nonblock(*args, **options)
          @bytes_read += data.bytesize if data.is_a?(String)
          data
        end
      end
    end
    private_constant :HTTP
  end

  # In a forked child the background threads do not exist: start them again.
  module RemoteForkHook
    def _fork
      pid = super
      Remote.const_get(:Poller).restart_all_after_fork if pid.zero?
      pid
    end
  end
  private_constant :RemoteForkHook
  Process.singleton_class.prepend(RemoteForkHook)
end
