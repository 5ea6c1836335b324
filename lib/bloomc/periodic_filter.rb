# frozen_string_literal: true

require "fileutils"
require "monitor"
require "time"

module Bloomc
  # One filter per period of time (an hour by default), as a web resource per
  # period: adds go to the current period's filter, a lookup looks in the
  # last n periods, a period that has ended is frozen and never changes again,
  # and periods older than the retention are dropped.
  #
  # Periods are aligned to multiples of their length since the Unix epoch, in
  # UTC, and named by their start ("2026-11-24T13" for an hour; see #label).
  # The clock is read on every call and the periods roll over then: no thread
  # is needed. A period in which nothing was added holds no filter of its own;
  # lookups and #each_period treat it as empty. Each period's filter carries
  # its start and length in its metadata ("period_start", "period_seconds"),
  # beside what the block gave it (a Hash is kept, a String as "description").
  #
  # Thread-safe: every method takes one re-entrant lock (a Monitor), which
  # #synchronize also takes, so a reader can dump the current period's filter
  # while adds wait.
  #
  # It holds filters and is not one (not a Bloomc::Filter): it has no cells
  # of its own, so no m, k, dump or set operations, and it saves as a
  # directory of period filters (#save) where a filter is one dump.
  #
  # Example (the users who changed, per hour, kept for a day):
  #
  #   changed = Bloomc::PeriodicFilter.new(period: 3600, retention: 24) do
  #     Bloomc::BloomFilter.new(capacity: 3000, error_rate: 0.01)
  #   end
  #   changed << "jcgregorio"
  #   changed.include?("jcgregorio", last: 24) # => true
  #   changed.save("changed/")
  #   changed = Bloomc::PeriodicFilter.open("changed/")
  class PeriodicFilter
    include Membership

    # The version of the manifest #save writes and ::open reads.
    MANIFEST_VERSION = 1
    MANIFEST = "manifest.json"
    # The empty filter every period starts as, saved so that ::open needs no block.
    TEMPLATE = "template.bloom"
    # Labels by period length: the coarsest unit that still names each period's start.
    LABEL_FORMATS = [[86_400, "%Y-%m-%d"], [3600, "%Y-%m-%dT%H"], [60, "%Y-%m-%dT%H:%M"], [1, "%Y-%m-%dT%H:%M:%S"]].freeze
    LABEL_PATTERN = /\A(\d{4})-(\d\d)-(\d\d)(?:T(\d\d)(?::(\d\d)(?::(\d\d))?)?)?\z/
    SYSTEM_CLOCK = -> { Time.now }
    private_constant :MANIFEST, :TEMPLATE, :LABEL_FORMATS, :LABEL_PATTERN, :SYSTEM_CLOCK

    # Returns:: (Integer) the length of a period in seconds
    attr_reader :period_seconds
    # Returns:: (Integer) how many periods are kept, the current one included
    attr_reader :retention

    # period:: (Integer) seconds per period (a whole number, at least 1;
    #     3600.0 or 3600r are taken as 3600)
    # retention:: (Integer) periods kept, the current one included (at least 1)
    # clock:: (#call) returns the time now, a Time or seconds since the epoch
    # Block returns:: (filter) a new, empty filter; every call must give the same
    #     class and shape (so that periods can be unioned). It is called once
    #     here, for the empty template, then once for each period that gets an add.
    # Raises:: ArgumentError, TypeError for a period, retention, clock or block
    #     that does not fit
    def initialize(period: 3600, retention: 24, clock: SYSTEM_CLOCK, &factory)
      raise ArgumentError, "a block is required: it makes each period's new filter" unless factory

      setup(period, retention, clock, factory, nil)
    end

    class << self
      # Restores a PeriodicFilter that #save wrote to +dir+, then drops the
      # periods past retention by +clock+.
      #
      # dir:: (String, Pathname)
      # clock:: (#call) as for ::new
      # Block returns:: (filter) new filters, as for ::new; without a block, copies
      #     of the empty filter saved with the periods
      # Returns:: (PeriodicFilter)
      # Raises:: Bloomc::FormatError for a missing or damaged manifest, or a
      #     file that is not a filter of the template's kind and shape
      # Raises:: ArgumentError when the block's filters differ from the saved ones
      def open(dir, clock: SYSTEM_CLOCK, &factory)
        require "json"
        manifest = read_manifest(dir)
        saved = load_part(dir, TEMPLATE, nil).freeze
        factory ||= -> { saved.dup }
        periodic = allocate
        template = periodic.send(:check_new_filter, factory.call, saved)
        periodic.send(:restore, dir, manifest, clock, factory, template)
      end
      alias load open

      private

      def read_manifest(dir)
        path = File.join(dir, MANIFEST)
        raise FormatError, "#{path}: no such file (not a directory written by PeriodicFilter#save)" unless File.file?(path)

        manifest = JSON.parse(File.read(path, 65_536 * 16, mode: "rb"))
        raise FormatError, "#{path}: not a PeriodicFilter manifest" unless manifest.is_a?(Hash) && manifest["format"] == "bloomc-periodic"

        version = manifest["version"]
        unless version == MANIFEST_VERSION
          raise FormatError, "#{path}: manifest version #{version.inspect} is not #{MANIFEST_VERSION} (written by another bloomc?)"
        end
        unless manifest["periods"].is_a?(Array) && manifest["periods"].all?(String)
          raise FormatError, "#{path}: periods must be a list of labels"
        end

        manifest
      rescue JSON::ParserError => e
        raise FormatError, "#{path}: the manifest is not JSON (#{e.message.lines.first.strip})"
      end

      def load_part(dir, name, template)
        path = File.join(dir, name)
        raise FormatError, "#{path}: missing" unless File.file?(path)

        filter = Bloomc.load_file(path)
        template&.send(:check_shape, filter)
        filter
      rescue ArgumentError => e
        raise FormatError, "#{path}: #{e.message}, unlike the other periods"
      rescue FormatError => e
        raise e.message.start_with?(path) ? e : FormatError.new("#{path}: #{e.message}")
      end
    end

    # The name of the period that starts at +index+ * period_seconds.
    #
    # index:: (Integer)
    # Returns:: (String)
    def label(index)
      format = LABEL_FORMATS.find { |length, _| period_seconds >= length }.last
      Time.at(index * period_seconds).utc.strftime(format)
    end

    # Returns:: (String) the label of the period the clock is in
    def current_label
      synchronize { label(roll) }
    end

    # Adds +key+ to the current period.
    #
    # key:: (String, Symbol, Integer)
    # Returns:: (self)
    # Raises:: TypeError for a key of another type (nothing is changed)
    def add(key)
      synchronize { with_current_filter { |filter| filter.add(key) } }
      self
    end
    alias << add

    # Adds every key to the current period.
    #
    # keys:: (Array, Enumerable)
    # Returns:: (self)
    def add_all(keys)
      keys = Batch.keys_array(keys)
      synchronize { with_current_filter { |filter| filter.add_all(keys) } }
      self
    end

    # Whether +key+ was added in the last +last+ periods (the current one and
    # the last - 1 before it). It asks each period's filter, which gives no
    # more false positives than their union would.
    #
    # key:: (String, Symbol, Integer)
    # last:: (Integer) 1..retention
    # Returns:: (Boolean)
    def include?(key, last: 1)
      synchronize do
        periods = held(last)
        # With no period to ask, the empty template still checks the key's type.
        periods.empty? ? @template.include?(key) : periods.any? { |_, filter| filter.include?(key) }
      end
    end

    # include?, by the name Set gives it (=== too: the current period's).
    #
    # Returns:: (Boolean)
    def member?(key, last: 1) = include?(key, last: last)

    # include? for each key, over the last +last+ periods.
    #
    # keys:: (Array, Enumerable)
    # last:: (Integer) 1..retention
    # Returns:: (Array<Boolean>)
    def include_all(keys, last: 1)
      keys = Batch.keys_array(keys)
      synchronize do
        found = @template.include_all(keys) # all false; checks every key's type
        held(last).each_value do |filter|
          filter.include_all(keys).each_with_index { |hit, i| found[i] = true if hit }
        end
        found
      end
    end

    # A new filter holding the keys of the last +last+ periods: the union of
    # their filters (a fresh empty filter when none of them holds any).
    #
    # last:: (Integer) 1..retention
    # Returns:: (filter) unfrozen, owned by the caller
    def union(last: 1)
      synchronize do
        held(last).each_with_object(@template.dup) { |(_, filter), out| out.merge!(filter) }
      end
    end

    # The filter of a period, by its label or by a time in it.
    #
    # label_or_time:: (String, Time)
    # Returns:: (filter, nil) the period's filter (frozen once closed; a shared
    #     frozen empty filter for a period with no adds), or nil for a period
    #     not kept (before the first, past retention or in the future)
    def [](label_or_time)
      found = period(label_or_time)
      found && found[0]
    end

    # label_or_time:: (String, Time) a label, or a time in the period
    # Returns:: (Array(filter, Boolean), nil) the period's filter and whether the
    #     period has ended, or nil as for #[], and for a String that is not a
    #     label of this period length (a URL's path may hold anything)
    # Raises:: TypeError for neither a String nor a Time
    def period(label_or_time)
      synchronize do
        current = roll
        index = label_or_time.is_a?(String) ? label_index(label_or_time) : index_of(label_or_time)
        [@periods.fetch(index, @template), index < current] if index&.between?(first_index(current), current)
      end
    end

    # Each period kept, oldest first, up to the current one; a period with no
    # adds comes with the shared frozen empty filter.
    #
    # Block's +label+:: (String)
    # Block's +filter+:: (filter) frozen once the period is closed
    # Block's +closed+:: (Boolean) whether the period has ended
    # Returns:: (self, Enumerator)
    def each_period
      return enum_for(__method__) unless block_given?

      synchronize do
        current = roll
        (first_index(current)..current).each { |index| yield label(index), @periods.fetch(index, @template), index < current }
      end
      self
    end

    # Returns:: (Array<String>) the labels #each_period yields
    def labels
      each_period.map { |label, _, _| label }
    end

    # A PeriodicFilter has no YAML form (it holds its factory block and its
    # clock, which Marshal refuses too): YAML.dump raises. #save it to a
    # directory and PeriodicFilter.open it instead.
    # @raise [TypeError]
    def encode_with(_coder) = raise(TypeError, "a #{self.class} has no YAML form (it holds a block): save(dir) and #{self.class}.open(dir)")

    # YAML that claims to be a PeriodicFilter is refused (see #encode_with).
    # @raise [TypeError]
    def init_with(_coder) = raise(TypeError, "a #{self.class} has no YAML form: #{self.class}.open(dir) reads one save(dir) wrote")

    # Writes every period's filter to +dir+ as LABEL.bloom, the empty template
    # and a manifest, each atomically, then removes the files of periods the
    # previous manifest there listed and this one does not. A closed period
    # already saved to +dir+ is not written again.
    #
    # dir:: (String, Pathname) created if missing
    # compress:: (Boolean) deflate each filter's cells (see #dump)
    # Returns:: (self)
    def save(dir, compress: false)
      require "json"
      @save_lock.synchronize do
        FileUtils.mkdir_p(dir)
        key = File.expand_path(dir)
        done = (@saved[key] ||= {})
        parts, current = synchronize do
          now = roll
          [@periods.map { |index, filter| [index, filter, index < now ? nil : filter.dump(compress: compress)] }, now]
        end
        parts.each do |index, filter, data|
          path = File.join(dir, "#{label(index)}.bloom")
          next if data.nil? && done[index] && File.file?(path)

          data ? Format.write_atomically(path, data) : filter.save(path, compress: compress)
          done[index] = true if data.nil?
        end
        @template.save(File.join(dir, TEMPLATE), compress: true) unless done[:template]
        done[:template] = true
        old = previous_labels(dir)
        labels = parts.map { |index, _, _| label(index) }
        Format.write_atomically(File.join(dir, MANIFEST), JSON.pretty_generate(manifest(current, labels)) << "\n")
        (old - labels).each { |gone| FileUtils.rm_f(File.join(dir, "#{gone}.bloom")) }
        done.delete_if { |index, _| index != :template && index <= current - retention }
      end
      self
    end

    # The lock of every method here, re-entrant: hold it to read a period's
    # filter (dump it) while no add can change it.
    #
    # Returns:: the block's value
    def synchronize(&)
      @lock.synchronize(&)
    end

    # The period length, retention, current label, periods held and the
    # template's class.
    def inspect
      synchronize do
        "#<#{self.class} period=#{period_seconds}s retention=#{retention} current=#{label(roll)} " \
          "periods=#{@periods.size} template=#{@template.class}>"
      end
    end

    private

    def setup(period, retention, clock, factory, first)
      @lock = Monitor.new
      @period_seconds = check_period(period)
      @retention = check_retention(retention)
      raise TypeError, "clock must respond to call, not #{clock.class}" unless clock.respond_to?(:call)

      @clock = clock
      @factory = factory
      @template ||= make_filter
      @template.freeze
      @periods = {} # index => filter, oldest first
      @current = now_index
      @first = first || @current # the first period this filter has seen: none before it is reported
      @save_lock = Mutex.new
      @saved = {}
    end

    def restore(dir, manifest, clock, factory, template)
      @template = template
      setup(manifest["period_seconds"], manifest["retention"], clock, factory, nil)
      labels = manifest["periods"]
      indexes = labels.map { |text| index_of(text) }
      raise FormatError, "#{dir}: the manifest lists periods out of order" unless indexes.each_cons(2).all? { |a, b| a < b }

      first = manifest["first"].is_a?(String) ? index_of(manifest["first"]) : indexes.first
      saved_current = index_of(manifest["current"].to_s) if manifest["current"]
      labels.zip(indexes).each do |text, index|
        filter = self.class.send(:load_part, dir, "#{text}.bloom", @template)
        check_period_metadata(dir, text, filter)
        filter.freeze if saved_current.nil? || index < saved_current
        @periods[index] = filter
      end
      @first = [first, *indexes].compact.min || @current
      @current = [@current, saved_current || @current, *indexes].max
      drop_old(@current)
      closed = @periods.keys.select { |index| index < @current }
      closed.each { |index| @periods[index].freeze }
      @saved[File.expand_path(dir)] = closed.to_h { |index| [index, true] }.merge(template: true)
      self
    rescue ArgumentError, TypeError => e
      raise FormatError, "#{File.join(dir, MANIFEST)}: #{e.message}"
    end

    def check_period(period)
      raise TypeError, "period must be a number of seconds, not #{period.class}" unless period.is_a?(Numeric) && period.real?
      unless period.finite? && period >= 1 && period == period.to_i
        raise ArgumentError, "period must be a whole number of seconds, at least 1, got #{period.inspect}"
      end

      period.to_i
    end

    def check_retention(retention)
      raise TypeError, "retention must be an Integer count of periods, not #{retention.class}" unless retention.is_a?(Integer)
      raise ArgumentError, "retention must be at least 1 (the current period), got #{retention}" if retention < 1

      retention
    end

    # A new filter from the block, checked against the template.
    def make_filter
      check_new_filter(@factory.call, @template)
    end

    def check_new_filter(filter, template)
      unless filter.is_a?(SetOps) && filter.respond_to?(:add) && filter.respond_to?(:merge!) && !filter.is_a?(BinaryFuseFilter)
        raise TypeError, "the block must return a Bloomc filter that takes adds and unions, not #{filter.class}"
      end
      raise ArgumentError, "the block returned the same filter twice; it must make a new one each time" if held_filter?(filter)
      raise ArgumentError, "the block returned a frozen filter; it must make a new one each time" if filter.frozen?
      raise ArgumentError, "the block returned a filter that already holds keys; it must make a new, empty one" unless filter.empty?
      return filter unless template

      filter = made_like(template, filter)
      begin
        template.send(:check_shape, filter)
      rescue ArgumentError => e
        raise ArgumentError, "the block's filters must all have one shape, to be unioned: #{e.message}"
      end
      filter
    end

    # A directory saved before :murmur3_mixed became the default holds
    # :murmur3 periods sized by the formula: a block that asks for the same
    # capacity and error rate as then gets new periods like them.
    def made_like(template, filter)
      return filter unless template.respond_to?(:k) && filter.respond_to?(:capacity) && filter.capacity &&
        template.hash_function == :murmur3 && filter.hash_function == :murmur3_mixed

      saved, asked = [template, filter].map { |f| f.send(:shape).except(:m, :k, :hash_function) }
      return filter unless saved == asked && [template.m, template.k] == BloomHelper.send(:formula_m_k, filter.capacity, filter.error_rate)

      template.dup.clear
    end

    def held_filter?(filter)
      filter.equal?(@template) || (@periods || {}).each_value.any? { |f| f.equal?(filter) }
    end

    # The period index the clock is in.
    def now_index
      now = @clock.call
      seconds = case now
                when Time then now.to_r
                when Numeric then now.real? && now.finite? ? now.to_r : nil
                end
      raise TypeError, "the clock must return a Time or seconds since the epoch, not #{now.inspect}" unless seconds

      (seconds / period_seconds).floor
    end

    # Moves to the period the clock is in, closing the one that ended and
    # dropping those past retention; returns the current index. A clock that
    # goes back does not reopen a closed period: adds stay in the latest.
    def roll
      now = now_index
      return @current if now <= @current

      @periods[@current]&.freeze
      @current = now
      drop_old(now)
      now
    end

    def drop_old(current)
      @periods.delete_if { |index, _| index <= current - retention }
    end

    def first_index(current)
      [@first, current - retention + 1].max
    end

    # Yields the current period's filter, made on its first add and kept
    # only once that add succeeds (a key of a wrong type leaves the gap).
    def with_current_filter
      current = roll
      filter = @periods[current] || make_filter.tap { |made| describe_period(made, current) }
      yield filter
      @periods[current] = filter
    end

    # The period's start and length join the metadata the block gave the
    # filter (a String of it is kept as "description").
    def describe_period(filter, index)
      return unless filter.respond_to?(:metadata=)

      period = { "period_start" => Time.at(index * period_seconds).utc.iso8601, "period_seconds" => period_seconds }
      given = filter.metadata
      filter.metadata = case given
                        when Hash then given.merge(period)
                        when String then { "description" => given }.merge(period)
                        else period
                        end
    end

    # A saved period whose metadata names another start is a file moved or renamed.
    def check_period_metadata(dir, text, filter)
      meta = filter.respond_to?(:metadata) ? filter.metadata : nil
      return unless meta.is_a?(Hash) && meta["period_start"]

      expected = Time.at(index_of(text) * period_seconds).utc.iso8601
      return if meta["period_start"] == expected && meta["period_seconds"] == period_seconds

      raise FormatError, "#{File.join(dir, "#{text}.bloom")}: holds the period #{meta['period_start']} " \
                         "(#{meta['period_seconds']} s), not #{expected} (#{period_seconds} s)"
    end

    # [index, filter] of the periods held among the last +last+.
    def held(last)
      raise TypeError, "last must be an Integer count of periods, not #{last.class}" unless last.is_a?(Integer)
      raise ArgumentError, "last must be 1..#{retention} (the retention), got #{last}" unless last.between?(1, retention)

      current = roll
      @periods.select { |index, _| index > current - last && index <= current }
    end

    def index_of(label_or_time)
      case label_or_time
      when Time then (label_or_time.to_r / period_seconds).floor
      when String then index_of_label(label_or_time)
      else raise TypeError, "a period is named by its label (String) or a Time in it, not #{label_or_time.class}"
      end
    end

    # The period a label names, or nil: the first start at or after the
    # label's time (a label is no finer than the period, so each names one start).
    def label_index(text)
      match = LABEL_PATTERN.match(text.b)
      start = begin
        match && Time.utc(*match.captures.compact.map(&:to_i))
      rescue ArgumentError
        nil
      end
      index = start && -(-start.to_i).div(period_seconds)
      index if index && label(index) == text
    end

    def index_of_label(text)
      label_index(text) or
        raise ArgumentError, "#{text.inspect} is not the label of a #{period_seconds}-second period (like #{label(@current).inspect})"
    end

    def manifest(current, labels)
      { "format" => "bloomc-periodic", "version" => MANIFEST_VERSION, "period_seconds" => period_seconds,
        "retention" => retention, "first" => label(first_index(current)), "current" => label(current), "periods" => labels }
    end

    def previous_labels(dir)
      self.class.send(:read_manifest, dir)["periods"]
    rescue FormatError
      []
    end
  end
end
