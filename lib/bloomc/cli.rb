# frozen_string_literal: true

require "optparse"
require "bloomc"
require_relative "json_representation"

module Bloomc
  # The `bloomc` command (exe/bloomc): dedup, build, query, merge and info.
  # Lines are bytes: a key is a line without its "\n", whatever its encoding,
  # NUL bytes and invalid UTF-8 included. User errors print one line on
  # stderr, naming the option and the value as given, and exit 2.
  class CLI
    # Exit statuses.
    OK = 0
    NONE_FOUND = 1 # query: no key selected, as grep
    USAGE = 2
    # dedup and build, after all their output: the filter took more lines
    # than --capacity and its false-positive rate passed --error, so dedup
    # may have dropped new lines and the filter build saved answers falsely
    # more often than asked. Not 0, so that cron and `set -e` notice.
    PAST_CAPACITY = 3
    INTERRUPTED = 130

    CHUNK = 1 << 20 # bytes read at a time
    # The longest line dedup, build and query read (--max-line's default). A
    # line is looked up and written whole, so it is held whole: the limit
    # bounds that memory (a few times it at most, beside the filter) when
    # the input has no lines, as /dev/zero or a binary file does. 4 MiB is
    # far beyond a key, a log line or a JSON record, and small beside the
    # filter of a large input.
    MAX_LINE = 4 << 20
    SERVE_PORT = 8080
    MAX_FIELD = 65_536 # query --fields
    DEFAULT_CAPACITY = 1_000_000 # build --kind bloom, blocked, counting or cuckoo without --capacity
    # Without --capacity, dedup and build grow a ScalableBloomFilter from a
    # first layer of this many lines: a large input needs few layers (10
    # million distinct lines take 6), and a small one costs under a
    # megabyte at build's default --error.
    GROWING_FROM = 1 << 18

    # Filter kinds `build --kind` makes.
    KINDS = { "bloom" => BloomFilter, "blocked" => BlockedBloomFilter, "counting" => CountingBloomFilter,
              "cuckoo" => CuckooFilter, "fuse" => BinaryFuseFilter, "scalable" => ScalableBloomFilter,
              "sliding" => SlidingBloomFilter }.freeze

    COMMANDS = {
      "dedup" => "write each line not seen before (within --ttl seconds)",
      "build" => "build a filter from lines and save it",
      "query" => "print the keys a filter holds (--invert: those it does not)",
      "merge" => "save the union of filters of the same kind and shape",
      "info" => "describe a saved filter",
      "serve" => "serve a directory of filters over HTTP, with a page that looks keys up"
    }.freeze

    # A mistake of the user's: one line on stderr, exit 2.
    class UsageError < StandardError; end

    # OptionParser taking each option by its whole name only: no --cr for
    # --crlf, no -c for --crlf when a command has no -c (a grep user means a
    # count), and none of OptionParser's own switches (--version, the shell
    # completions), which would exit or print in the middle of a command.
    # Its require_exact is not used: it refuses --capacity=10 (it compares
    # the whole argument with the name), and on OptionParser's own switches
    # it raises NoMethodError (optparse 0.2 on Ruby 3.1, 0.4 on 3.3).
    class ExactOptionParser < OptionParser
      private

      def add_officious; end

      def complete(typ, opt, icase = false, *pat) # rubocop:disable Style/OptionalBooleanParameter -- OptionParser's signature
        return super unless pat.empty?

        search(typ, opt) { |switch| return [switch, opt] }
        raise InvalidOption.new(opt, additional: method(:additional_message).curry[typ])
      end
    end
    private_constant :ExactOptionParser

    # Runs argv; returns the exit status.
    def self.run(argv, stdin: $stdin, stdout: $stdout, stderr: $stderr)
      new(stdin, stdout, stderr).run(argv.dup)
    end

    def initialize(stdin, stdout, stderr)
      @stdin = stdin
      @stdout = stdout
      @stderr = stderr
    end

    def run(argv)
      status = dispatch(argv)
      @stdout.flush # a full disk or a closed stdout is an error too
      status
    rescue NoMemoryError => e # not the filter's sizing (sized) nor a load (load): say only what ran out
      fail_with("not enough memory (#{e.message})")
    rescue UsageError, OptionParser::ParseError, IOError, ArgumentError, TypeError, RangeError, Error => e
      fail_with(e.message)
    rescue SystemCallError => e
      fail_with(e.message.sub(/ @ \w+/, "").split(" - ", 2).reverse.join(": ")) # "PATH: No such file or directory"
    rescue Interrupt
      INTERRUPTED
    end

    private

    def dispatch(argv)
      command = argv.shift
      case command
      when nil # no command: the usage, where errors go, and a usage error's status
        @stderr.puts(usage)
        return USAGE
      when "-h", "--help", "help" then return help(argv.first)
      when "-v", "--version" then return say("bloomc #{VERSION}")
      end
      raise UsageError, "unknown command #{command.inspect} (#{COMMANDS.keys.join(', ')}; see bloomc --help)" unless COMMANDS.key?(command)

      @command = command
      send(command, argv)
    end

    def say(line)
      @stdout.puts(line)
      OK
    end

    def fail_with(message)
      @stderr.puts("bloomc#{" #{@command}" if @command}: #{message}")
      USAGE
    end

    def help(command)
      if command
        raise UsageError, "unknown command #{command.inspect}" unless COMMANDS.key?(command)

        @command = command
        return say(parser(command, {}).help)
      end
      say(usage)
    end

    def usage
      <<~HELP
        Usage: bloomc COMMAND [OPTIONS] [ARGS]

        #{COMMANDS.map { |name, what| format('  %-6s  %s', name, what) }.join("\n")}

        bloomc COMMAND --help for each; bloomc --version.

        Exit status: 0 done; 1 query found no key; 2 a usage error (one line on stderr);
        3 dedup or build went past --capacity and its false-positive rate past --error
        (its output written all the same); 130 interrupted.
      HELP
    end

    # The options of each command, parsed into opts.
    def parser(command, opts)
      ExactOptionParser.new do |o|
        o.program_name = "bloomc #{command}"
        case command
        when "dedup"
          o.banner = "Usage: bloomc dedup [--ttl SECONDS] [--capacity N] [--error P] [FILE...]\n" \
                     "Writes each line of the FILEs (or stdin) not seen before; with --ttl, not seen within the\n" \
                     "last SECONDS (a line seen then is repeated after at most 1.25 x SECONDS; 1.5 x with --capacity).\n" \
                     "Without --capacity the filter follows the lines, however many come; past a --capacity given,\n" \
                     "with its rate past --error, a warning says so and the exit status is #{PAST_CAPACITY}, once every\n" \
                     "new line is written."
          ttl_option(o, opts, "forget lines after SECONDS")
          sizing(o, opts, "distinct lines to hold, with --ttl those within 1.5 x ttl (a fixed filter)", nil, 1e-6,
                 "a new line taken for a repeat", default: "none: it grows, or with --ttl slides")
        when "build"
          o.banner = "Usage: bloomc build [--capacity N] [--error P] [--kind KIND] [--ttl SECONDS] -o FILTER [FILE...]\n" \
                     "Builds a filter of the lines of the FILEs (or stdin) and saves it to FILTER. Without --capacity\n" \
                     "the filter grows with the lines (a scalable filter); past a --capacity given, with its rate past\n" \
                     "--error, a warning says so and the exit status is #{PAST_CAPACITY}, once the filter is saved.\n" \
                     "--kind cuckoo adds a line only when the filter does not hold it yet, however often it comes.\n" \
                     "--kind sliding --ttl SECONDS holds the lines for SECONDS from the build, wherever it is read."
          ttl_option(o, opts, "with --kind sliding: forget the lines SECONDS after the build")
          o.on("-o", "--output FILTER", "where to save it (required; - : stdout)") { |v| opts[:output] = v }
          o.on("--kind KIND", "#{KINDS.keys.join(', ')} (default scalable; bloom with --capacity)") do |v|
            raise UsageError, "unknown --kind #{shown(v)} (#{KINDS.keys.join(', ')})" unless KINDS.key?(v)

            opts[:kind] = v
          end
          sizing(o, opts, "keys to hold (scalable: its first layer's)", nil, 0.001, "a false positive",
                 default: "none: it grows; #{DEFAULT_CAPACITY} for another --kind")
          metadata(o, opts)
        when "query"
          o.banner = "Usage: bloomc query [--invert] [--count | --quiet] [--delimiter CHAR] [--fields LIST] FILTER [KEY...]\n" \
                     "Prints the KEYs (or the lines of stdin) FILTER holds; exits 0 when it found any, 1 when none.\n" \
                     "A KEY - stands for the lines of stdin (give a key \"-\" on stdin). With --delimiter or --fields,\n" \
                     "a line of stdin is printed whole when any of its chosen fields is held."
          o.on("-v", "--invert", "print the keys it does not hold") { opts[:invert] = true }
          o.on("-c", "--count", "print how many keys it holds (with --invert: does not hold), not the keys") { opts[:count] = true }
          o.on("-q", "--quiet", "print nothing: the exit status alone says whether it holds a key; stops at the first") do
            opts[:quiet] = @quiet = true # no progress bar either
          end
          o.on("-d", "--delimiter CHAR", "split each line at CHAR (one byte; default , with --fields; \\t for a tab)") do |v|
            v = "\t" if v == "\\t"
            raise UsageError, "--delimiter must be one byte other than a newline, not #{v.dump}" unless v.bytesize == 1 && v != "\n"

            opts[:delimiter] = v.b
          end
          o.on("-f", "--fields LIST", "look up these fields (from 1: 1,3 or 2-4) and print the whole line when one is held; " \
                                      "with --delimiter alone, every field") do |v|
            opts[:fields] = field_map(v)
          end
        when "merge"
          o.banner = "Usage: bloomc merge -o OUT FILTER...\nSaves the union of the FILTERs (of one kind and shape) to OUT."
          o.on("-o", "--output OUT", "where to save it (required; - : stdout)") { |v| opts[:output] = v }
          metadata(o, opts, " (default: the first FILTER's)")
        when "info"
          o.banner = "Usage: bloomc info [--json] FILTER\nPrints a saved filter's kind, shape, fill, estimated count and false-positive rate\n" \
                     "(FILTER - : stdin)."
          o.on("--json", "the filter's JSON form, as bloomc serve gives it (docs/HTTP.md)") { opts[:json] = true }
        when "serve"
          o.banner = "Usage: bloomc serve [--port N] [--bind ADDR] [--slide NAME --ttl SECONDS [--error P]] DIR\n" \
                     "Serves the filters saved in DIR (DIR/NAME.bloom at /NAME, its JSON at /NAME.json; files saved\n" \
                     "later are served too) on Puma, with a front page that looks keys up in the browser. Logs one\n" \
                     "line per request on stdout. Ctrl-C stops it. Needs the gems rack and puma. With --slide, the\n" \
                     "lines of stdin go into a sliding filter served as /NAME: those of the last SECONDS."
          o.on("--slide NAME", "serve the lines of stdin of the last --ttl SECONDS as NAME") { |v| opts[:slide] = v }
          ttl_option(o, opts, "with --slide: how long a line stays")
          o.on("--error P", "with --slide: the false-positive rate (default 0.001)") do |v|
            error = Float(v, exception: false)
            unless error&.positive? && error < 1
              raise UsageError, "--error must be a probability above 0 and below 1, such as 0.001, not #{shown(v)}"
            end

            opts[:error] = error
          end
          o.on("--port N", "the port to listen on (default #{SERVE_PORT}; 0: any free one)") do |v|
            port = Integer(v, 10, exception: false)
            raise UsageError, "--port must be a whole number 0 .. 65535, not #{shown(v)}" unless port&.between?(0, 65_535)

            opts[:port] = port
          end
          o.on("--bind ADDR", "the address to listen on (default 127.0.0.1: this machine only)") { |v| opts[:bind] = v }
          o.on("-q", "--quiet", "log no request on stdout") { opts[:quiet] = true }
        end
        if %w[dedup build].include?(command)
          o.on("-q", "--quiet", "no warning and no progress bar on stderr (the exit status is still #{PAST_CAPACITY} past capacity)") do
            @quiet = true
          end
        end
        if %w[dedup build query].include?(command)
          max_line(o)
          o.on("--crlf", "lines end in \"\\r\\n\" (Windows): drop each line's \"\\r\"#{' (and write "\\n" alone)' if command == 'dedup'}") do
            @crlf = true
          end
        end
        o.on("-h", "--help", "this help") { opts[:help] = true }
      end
    end

    def sizing(o, opts, what, capacity, error, miss, default: capacity)
      given = opts[:given] = {} # the options' text, for a message
      o.on("--capacity N", "#{what} (default #{default})") do |v|
        number = Float(v, exception: false) # 1e6 too
        raise UsageError, "--capacity must be a whole number of lines, not #{shown(v)}" unless number&.finite? && number == number.floor

        raise UsageError, "--capacity must be at least 1, not #{shown(v)}" unless number >= 1

        opts[:capacity] = number.to_i
        given["--capacity"] = v
      end
      o.on("--error P", "chance of #{miss} at capacity (default #{error})") do |v|
        rate = Float(v, exception: false)
        raise UsageError, "--error must be a probability above 0 and below 1, such as 0.001, not #{shown(v)}" unless rate&.positive? && rate < 1

        opts[:error] = rate
        given["--error"] = v
      end
      opts[:capacity] = capacity
      opts[:error] = error
    end

    # --ttl SECONDS, for dedup and build.
    def ttl_option(o, opts, what)
      o.on("--ttl SECONDS", "#{what} (at least #{ContinuousBloomFilter::MIN_TIMER_TTL})") do |v|
        ttl = Float(v, exception: false)
        unless ttl&.between?(ContinuousBloomFilter::MIN_TIMER_TTL, ContinuousBloomFilter::MAX_TTL)
          raise UsageError, "--ttl must be a number of seconds, #{ContinuousBloomFilter::MIN_TIMER_TTL} .. " \
                            "#{ContinuousBloomFilter::MAX_TTL}, not #{shown(v)}"
        end

        opts[:ttl] = ttl
        (opts[:given] ||= {})["--ttl"] = v
      end
    end

    # A filter made from --capacity and --error (and --ttl): what the
    # filter's class refuses, or memory that runs out, is told as those
    # options, with the values the user gave (or the defaults taken).
    def sized(opts)
      yield
    rescue ArgumentError, RangeError, NoMemoryError => e
      given = { "--capacity" => opts[:capacity], "--error" => opts[:error], "--ttl" => opts[:ttl], **opts[:given] }.compact
      options = given.map { |option, value| "#{option} #{shown(value.is_a?(Float) ? format('%g', value) : value.to_s)}" }.join(" and ")
      reason = e.is_a?(NoMemoryError) ? "not enough memory for a filter of #{options} (#{e.message})" : "#{options}: #{e.message}"
      raise UsageError, reason
    end

    # A value of the command line as it can be shown in a message: as typed
    # when it is printable text, else quoted with escapes ("\xFF").
    def shown(value)
      text = value.dup.force_encoding(Encoding::UTF_8)
      text.valid_encoding? && text.match?(/\A[[:print:]]+\z/) ? text : value.b.dump
    end

    # --metadata: a JSON object is kept as a Hash, anything else as text.
    def metadata(o, opts, default = "")
      o.on("--metadata TEXT", "a JSON object or any text to keep in the filter, shown by info#{default}") do |v|
        text = v.dup.force_encoding(Encoding::UTF_8)
        raise UsageError, "--metadata must be UTF-8 text, not #{shown(v)}" unless text.valid_encoding?

        value = JSON.parse(text, max_nesting: Metadata::MAX_DEPTH) if text.start_with?("{")
        opts[:metadata] = value.is_a?(Hash) ? value : text
        Metadata.encode(opts[:metadata]) # its size: refused now, not after the input is read
      rescue JSON::ParserError => e
        raise UsageError, "--metadata starts with { but is not a JSON object (#{e.message[0, 60]})"
      rescue ArgumentError, TypeError => e
        raise UsageError, "--metadata: #{e.message}"
      end
    end

    # --max-line, in the commands that read lines: 8M is 8 MiB.
    def max_line(o)
      o.on("--max-line BYTES", "stop at a line longer than BYTES (K, M, G: KiB, MiB, GiB; default #{MAX_LINE >> 20}M)") do |v|
        digits, unit = v.match(/\A(\d+)([KMG]?)\z/i)&.captures
        bytes = digits.to_i << { "" => 0, "K" => 10, "M" => 20, "G" => 30 }.fetch(unit.to_s.upcase)
        unless bytes.positive?
          raise UsageError, "--max-line must be a positive whole number of bytes (K, M or G after it for KiB, MiB, GiB), not #{shown(v)}"
        end

        @max_line = bytes
      end
    end

    # Options and the remaining arguments; nil when --help was given (and printed).
    # An argument that is not valid UTF-8 (a file name or a key of any
    # bytes) is taken as bytes: OptionParser's patterns match it then, and
    # each option says what it makes of it.
    def parse(argv)
      opts = {}
      args = parser(@command, opts).parse(argv.map { |arg| arg.valid_encoding? ? arg : arg.b })
      if opts[:help]
        say(parser(@command, {}).help)
        return nil
      end
      [opts, args]
    end

    def dedup(argv)
      opts, files = parse(argv) || (return OK)
      filter = sized(opts) do
        if opts[:ttl] && !opts[:capacity] # a window of any rate: generations that follow the lines
          SlidingBloomFilter.new(ttl: opts[:ttl], error_rate: opts[:error])
        elsif opts[:ttl]
          ContinuousBloomFilter.new(capacity: opts[:capacity], error_rate: opts[:error], ttl: opts[:ttl]).start_timer
        elsif opts[:capacity]
          BloomFilter.new(capacity: opts[:capacity], error_rate: opts[:error])
        else
          ScalableBloomFilter.new(error_rate: opts[:error], initial_capacity: GROWING_FROM)
        end
      end
      @stdout.sync = true # each chunk's new lines go out as they are found: works in a pipe
      out = String.new(capacity: CHUNK, encoding: Encoding::BINARY)
      written = 0
      each_chunk(files) do |lines, length|
        filter.send(:dedup_lines, lines, out.clear, length)
        next if out.empty?

        @stdout.write(out)
        written += out.count("\n")
      end
      past_capacity(filter, "#{written} lines were new to a filter sized for --capacity #{filter.capacity} lines",
                    "a new line was taken for a repeat and dropped")
    end

    # When a filter holds more keys than its --capacity and its
    # false-positive rate is past the --error asked for: one line on
    # stderr, and PAST_CAPACITY. OK otherwise.
    def past_capacity(filter, what, miss)
      return OK unless filter.over_capacity? && filter.false_positive_rate > filter.error_rate
      return PAST_CAPACITY if @quiet

      @stderr.flush
      @stderr.puts("bloomc #{@command}: warning: #{what}; past it, the false-positive rate reached " \
                   "#{format('%.3g', filter.false_positive_rate)} (#{miss} at that rate), above --error " \
                   "#{format('%g', filter.error_rate)}: give a larger --capacity, or none for a filter that grows")
      PAST_CAPACITY
    end

    def build(argv)
      opts, files = parse(argv) || (return OK)
      raise UsageError, "-o FILTER is required" unless opts[:output]

      raise UsageError, "--ttl is for --kind sliding" if opts[:ttl] && opts[:kind] != "sliding"

      output = output_path(opts[:output])
      filter = build_fuse(files, opts) if opts[:kind] == "fuse"
      filter ||= sized(opts) { new_filter(opts[:kind] || (opts[:capacity] ? "bloom" : "scalable"), opts) }
      add_lines(filter, files) unless opts[:kind] == "fuse"
      filter.metadata = opts[:metadata] if opts.key?(:metadata)
      save(filter, output, opts[:output])
      @stderr.puts("bloomc build: #{filter.inspect} saved to #{opts[:output]}") if @stderr.tty? && !@quiet
      return OK unless filter.respond_to?(:over_capacity?) && filter.over_capacity?

      new_keys = filter.to_h.dig(:sizing, :keys_new) || filter.size
      past_capacity(filter, "#{new_keys} keys were new to a filter sized for --capacity #{filter.capacity}", "a key never added is found")
    end

    # Each line of the files as a key. A kind whose adds never raise takes
    # the lines straight from the chunk, in C and on every core (add_lines:
    # no Ruby String a key); the others take add_all's all or nothing, of
    # the lines the filter does not hold yet, each once: a cuckoo filter
    # keeps a copy of a key's fingerprint for each add, 8 at most, so a line
    # given 9 times would not fit however large the filter (set semantics,
    # as a scalable filter has of its own).
    def add_lines(filter, files)
      if filter.respond_to?(:add_lines, true)
        threads = Batch.threads_for(nil) # automatic, as add_all's
        each_chunk(files) { |lines, length| filter.send(:add_lines, lines, length, threads) }
      else
        each_chunk(files) do |lines, length|
          keys = keys_of(lines.byteslice(0, length)).uniq
          held = filter.include_all(keys)
          filter.add_all(keys.reject.with_index { |_, i| held[i] })
        end
      end
    end

    # A binary fuse filter is built once from every line: 8-bit fingerprints
    # (about 1/256) for an --error of 1/256 or more, else 16-bit.
    def build_fuse(files, opts)
      keys = []
      each_chunk(files) { |lines, length| keys.concat(keys_of(lines.byteslice(0, length))) }
      BinaryFuseFilter.build(keys, fingerprint_bits: opts[:error] >= 1.0 / 256 ? 8 : 16)
    end

    # build's filter of KIND from --capacity (a scalable filter's first
    # layer) and --error.
    def new_filter(kind, opts)
      return ScalableBloomFilter.new(error_rate: opts[:error], initial_capacity: opts[:capacity] || GROWING_FROM) if kind == "scalable"

      if kind == "sliding"
        raise UsageError, "--kind sliding needs --ttl SECONDS" unless opts[:ttl]

        first = opts[:capacity] || SlidingBloomFilter::DEFAULT_FIRST_SIZE
        return SlidingBloomFilter.new(ttl: opts[:ttl], error_rate: opts[:error], first_size: first.clamp(64, 2**40))
      end

      KINDS.fetch(kind).new(capacity: opts[:capacity] || DEFAULT_CAPACITY, error_rate: opts[:error])
    end

    def query(argv)
      opts, args = parse(argv) || (return OK)
      path = args.shift or raise UsageError, "give a FILTER to query"
      raise UsageError, "a KEY cannot contain a newline (give such keys on stdin, one a line)" if args.any? { |key| key.include?("\n") }

      split = opts.key?(:delimiter) || opts.key?(:fields)
      raise UsageError, "--delimiter and --fields choose fields of the lines on stdin, not of KEYs" if split && args.any? { |a| a != "-" }

      args = ["-"] if args.empty?
      raise UsageError, "FILTER - is read from stdin: give the KEYs as arguments" if path == "-" && args.include?("-")

      filter = load(path)
      # --count and --quiet print no key: @keys_out swallows them.
      @keys_out = opts[:count] || opts[:quiet] ? File.open(File::NULL, "wb") : @stdout
      @stdout.sync = true if args.include?("-")
      # The KEYs in order, each "-" the lines of stdin (read once: a second
      # "-" finds it at its end). --quiet stops at the first key selected.
      fields = opts if split
      selected = 0
      args.chunk_while { |a, b| a != "-" && b != "-" }.each do |run|
        break if opts[:quiet] && selected.positive?

        selected += run == ["-"] ? query_stdin(filter, fields, opts) : query_keys(filter, run.map(&:b), opts.fetch(:invert, false))
      end
      @stdout.puts(selected) if opts[:count] && !opts[:quiet]
      selected.positive? ? OK : NONE_FOUND
    ensure
      @keys_out.close if @keys_out && !@keys_out.equal?(@stdout)
    end

    # Prints the keys held (invert: not held); returns how many it selected.
    def query_keys(filter, keys, invert)
      found = filter.include_all(keys)
      picked = keys.each_index.reject { |i| found[i] == invert }
      @keys_out.write(picked.map { |i| "#{keys[i]}\n" }.join)
      picked.size
    end

    # The lines of stdin, looked up in C (no Ruby object a key), by chosen
    # fields when opts hold --delimiter or --fields (+split+); returns how
    # many it selected.
    def query_stdin(filter, split, opts)
      delimiter = split.fetch(:delimiter, ",").ord if split
      fields = split&.fetch(:fields, nil)
      out = +"".b
      selected = 0
      each_chunk(["-"]) do |lines, length|
        selected += filter.send(:query_lines, lines, out.clear, length, delimiter, fields, opts.fetch(:invert, false))
        @keys_out.write(out)
        break if opts[:quiet] && selected.positive?
      end
      selected
    end

    # --fields: 1,3 and 2-4 (from 1, as cut counts) to the map query_lines
    # takes (byte i not 0: field i + 1 chosen).
    def field_map(list)
      numbers = (list.empty? ? [list] : list.split(",", -1)).flat_map do |part|
        from, to = part.match(/\A(\d+)(?:-(\d+))?\z/)&.captures
        raise UsageError, "--fields is a list of field numbers from 1, such as 1,3 or 2-4, not #{shown(list)}" unless from

        first = from.to_i
        last = (to || from).to_i
        unless first.between?(1, MAX_FIELD) && last.between?(first, MAX_FIELD)
          raise UsageError, "--fields #{shown(part)}: fields are numbered 1 .. #{MAX_FIELD}, a range low to high"
        end

        (first..last).to_a
      end
      map = "\0".b * numbers.max
      numbers.each { |i| map.setbyte(i - 1, 1) }
      map
    end

    def merge(argv)
      opts, paths = parse(argv) || (return OK)
      raise UsageError, "-o OUT is required" unless opts[:output]
      raise UsageError, "give the FILTERs to merge" if paths.empty?

      output = output_path(opts[:output])
      union = load(paths.first)
      paths.drop(1).each do |path|
        union.merge!(load(path))
      rescue ArgumentError => e
        raise UsageError, "#{path}: #{e.message}"
      end
      union.metadata = opts[:metadata] if opts.key?(:metadata)
      save(union, output, opts[:output])
      OK
    end

    # Where -o writes: the file a symlink names (the link stays), in a
    # directory that exists; never over a device, a directory or a FIFO.
    def output_path(path)
      return path if path == "-" # stdout

      target = Format.save_target(path)
      raise UsageError, "#{path}: no such directory" unless File.directory?(File.dirname(target))

      target
    rescue ArgumentError => e # save_target's refusal, or a ~user that does not exist
      raise UsageError, e.message.include?("not a regular file") ? "#{path}: not a regular file" : "#{path}: #{e.message}"
    rescue SystemCallError => e
      raise UsageError, "#{path}: #{e.message.sub(/ @ \w+/, '').split(' - ').first}"
    end

    # save (atomic: a temporary file renamed), its errors told against the
    # user's path.
    def save(filter, target, shown)
      return @stdout.binmode.write(filter.dump) if target == "-"

      filter.save(target)
    rescue SystemCallError => e
      raise UsageError, "#{shown}: #{e.message.sub(/ @ \w+/, '').split(' - ').first}"
    end

    def info(argv)
      opts, paths = parse(argv) || (return OK)
      raise UsageError, "give one FILTER" unless paths.size == 1

      filter = load(paths.first)
      return say(filter.to_json) if opts[:json]

      described = filter.to_h # its statistics read the cells once, for every row
      stats = described[:stats]
      rows = { "keys" => keys_held(filter, described), "kind" => filter.class.name.sub("Bloomc::", ""), "m" => filter.m }
      rows["k"] = filter.k if filter.respond_to?(:k)
      rows["width"] = filter.width if filter.respond_to?(:width)
      rows["fingerprint bits"] = filter.fingerprint_bits if filter.respond_to?(:fingerprint_bits)
      rows["ttl"] = filter.ttl if filter.respond_to?(:ttl)
      if filter.is_a?(ScalableBloomFilter)
        rows["layers"] = filter.layers.map { |l| "#{l.count}/#{l.capacity} (m=#{l.m} k=#{l.k})" }.join(", ")
        rows["error rate"] = filter.error_rate
      end
      # (without a count of new keys, the first line gives this number)
      rows["keys added"] = "#{stats[:size]} (repeats included)" if stats.key?(:size) && described.dig(:sizing, :keys_new)
      rows["fill"] = format("%.4f%%", stats[:fill_ratio] * 100)
      estimate = stats[:estimated_count]
      rows["estimated count"] = estimate.finite? ? estimate.round : "saturated (every cell set)"
      rate = format("%.3g", stats[:false_positive_rate])
      rows["false-positive rate"] = rate
      rows["size on disk"] = "#{paths.first == '-' ? filter.dump.bytesize : File.size(paths.first)} bytes"
      rows["metadata"] = JSON.generate(filter.metadata) if filter.metadata
      if filter.over_capacity?
        rows["over capacity"] = "yes: more keys than it was sized for, so its false-positive rate is above " \
                                "#{filter.error_rate}"
        @stderr.puts("bloomc info: warning: #{paths.first} holds more keys than its capacity; its false-positive rate " \
                     "is #{rate}, above the #{filter.error_rate} it was sized for")
      end
      say(rows.map { |name, value| "#{name}: #{value}" }.join("\n"))
    end

    # info's first line: the keys new to the filter against its capacity
    # (what its false-positive rate follows), else the keys it holds.
    # An A2 or stable filter's capacity is a window of the latest keys: it
    # forgets by design and is never over it.
    def keys_held(filter, described)
      stats = described[:stats]
      estimate = stats[:estimated_count]
      count = described.dig(:sizing, :keys_new)
      held = if count then "#{count} new to it"
             elsif stats.key?(:size) then "#{count = stats[:size]} added"
             elsif estimate.finite? then "about #{count = estimate.round} (its cells' estimate)"
             else "every cell set (its cells' estimate is past counting)"
             end
      capacity = described.dig(:sizing, :capacity)
      return held if capacity.nil? || filter.is_a?(A2BloomFilter) || filter.is_a?(StableBloomFilter)
      return "#{held}, over its capacity #{capacity}" unless count

      "#{held}, #{format('%.0f', 100.0 * count / capacity)}% of its capacity #{capacity}#{' (over it)' if count > capacity}"
    end

    def serve(argv)
      opts, dirs = parse(argv) || (return OK)
      raise UsageError, "give one DIR to serve" unless dirs.size == 1

      needs_gems("rack", "puma")
      require "bloomc/serve"
      raise UsageError, "--slide NAME needs --ttl SECONDS" if opts[:slide] && !opts[:ttl]
      raise UsageError, "--ttl and --error are for --slide NAME" if !opts[:slide] && (opts[:ttl] || opts[:error])

      log = opts[:quiet] ? File.open(File::NULL, "w") : @stdout
      server = Serve.new(dirs.first, bind: opts.fetch(:bind, "127.0.0.1"), port: opts.fetch(:port, SERVE_PORT), log: log)
      slide(server.rack_app, opts) if opts[:slide]
      @stderr.puts("bloomc serve: #{dirs.first} at #{server.url} (Ctrl-C stops)")
      Signal.trap("TERM") { Thread.main.raise(Interrupt) }
      begin
        server.start.join
      rescue Interrupt
        server.stop
      end
      OK
    end

    # serve --slide: a SlidingBloomFilter of stdin's lines, published as
    # NAME, fed by a thread as the lines come (each chunk under the app's
    # lock, so no response holds a torn dump).
    def slide(app, opts)
      filter = SlidingBloomFilter.new(ttl: opts[:ttl], error_rate: opts.fetch(:error, 0.001))
      app.publish(opts[:slide], filter)
    rescue ArgumentError => e
      raise UsageError, "--slide #{shown(opts[:slide])}: #{e.message}"
    else
      Thread.new do
        each_chunk([]) { |lines, length| app.synchronize(opts[:slide]) { filter.add_all(keys_of(lines[0, length])) } }
      rescue IOError, SystemCallError => e
        @stderr.puts("bloomc serve: --slide stopped reading stdin (#{e.message})")
      end
    end

    # The optional gems a command runs on, refused as one line that says how
    # a CLI user installs those missing (a LoadError's own message is a
    # Gemfile's advice, with did_you_mean's guesses).
    def needs_gems(*names)
      missing = names.reject do |name|
        require name
        true
      rescue LoadError
        false
      end
      raise UsageError, "needs the gem#{'s' unless missing.one?} #{missing.join(' and ')}: gem install #{missing.join(' ')}" if missing.any?
    end

    # A FormatError names the path; so does a filter too large for memory.
    def load(path)
      return Bloomc.load(@stdin.binmode.read) if path == "-"

      Bloomc.load_file(path)
    rescue NoMemoryError => e
      raise UsageError, "#{shown(path)}: not enough memory to load this filter (#{e.message})"
    end

    # The keys of a chunk of whole lines.
    def keys_of(lines)
      keys = lines.split("\n", -1)
      keys.pop if lines.end_with?("\n")
      keys
    end

    # Yields the input in chunks of whole lines (the last may lack its
    # "\n"), as soon as they are read, so that a pipe's lines are not held
    # back: a String and the length of its whole lines (the String is
    # reused: copy what you keep). With --crlf, without the "\r" of each
    # line's "\r\n".
    def each_chunk(files, &block)
      block = without_cr(block) if @crlf
      inputs = files.empty? ? ["-"] : files
      inputs.each do |name|
        io = name == "-" ? @stdin : File.open(name, "rb")
        begin
          io.binmode
          progress = Progress.new(@quiet ? nil : @stderr, @stdout, io, name)
          read_lines(io, progress, name == "-" ? "stdin" : name, &block)
          progress.finish
        ensure
          progress&.stop # Ctrl-C or an error: the bar's line ended before the message or the shell's prompt
          io.close unless io.equal?(@stdin)
        end
      end
    end

    # --crlf: block, given each chunk with "\r\n" as "\n" (and a last line's
    # "\r" dropped). A chunk is whole lines, so no "\r\n" spans two.
    def without_cr(block)
      lambda do |lines, length|
        chunk = lines.byteslice(0, length)
        chunk.gsub!("\r\n", "\n")
        chunk.chomp!("\r") unless chunk.end_with?("\n")
        block.call(chunk, chunk.bytesize)
      end
    end

    # The buffers are reused: reading a file makes no garbage a chunk. Only
    # the bytes just read are searched for "\n", so a long line takes time in
    # proportion to its length. A line longer than the limit (--max-line)
    # stops the command, after the lines before it: memory stays bounded
    # whatever the input.
    def read_lines(io, progress, name)
      limit = @max_line || MAX_LINE
      # A line between two "\n" of one read is shorter than the read, so only
      # the first and the last line a read touches can be too long.
      size = [CHUNK, limit + 2].min
      buffer = String.new(capacity: size, encoding: Encoding::BINARY)
      pending = String.new(capacity: 2 * size, encoding: Encoding::BINARY) # the partial line: its first `held` bytes
      held = 0
      read = 0 # bytes before buffer's
      # The number of a line, for a message: counting every "\n" costs dedup
      # some 15% of its time, so a file's are counted again when a line is
      # too long, and only a pipe's as they are read.
      start = io.pos if io.stat.file?
      lines = 0
      line_at = ->(offset) { (start ? newlines(io, start, start + offset) : lines) + 1 }
      loop do
        io.readpartial(size, buffer)
        progress.advance(buffer.bytesize)
        last = buffer.rindex("\n")
        head = last ? buffer.index("\n") : buffer.bytesize # the bytes of the held line in this read
        too_long(name, line_at.(read - held), limit) if held + head > limit
        junk = pending.bytesize - held # 1 when a cut left a byte to ignore (keep_tail)
        hold(pending, buffer) { "#{name}: line #{line_at.(read - held)}" }
        if last
          held.zero? ? yield(buffer, last + 1) : yield(pending, held + last + 1)
          lines += buffer.count("\n") unless start
          too_long(name, line_at.(read + last + 1), limit) if buffer.bytesize - last - 1 > limit
        end
        held = keep_tail(pending, last ? junk + held + last + 1 : junk)
        read += buffer.bytesize
      rescue EOFError
        break
      end
      yield pending, held unless held.zero?
    end

    # The "\n" in a file's bytes from..to, read again.
    def newlines(io, from, to)
      buffer = String.new(capacity: CHUNK, encoding: Encoding::BINARY)
      count = 0
      while from < to
        io.pread([CHUNK, to - from].min, from, buffer)
        count += buffer.count("\n")
        from += buffer.bytesize
      end
      count
    rescue EOFError # cut short since
      count
    end

    # Moves string's bytes from +from+ on to its front and returns how many
    # they are. String#[]= from 0 would give its buffer up (Ruby frees or
    # shares it), so the first byte stays and is overwritten; when none is
    # left it stays as a byte to ignore.
    def keep_tail(string, from)
      return string.bytesize if from.zero?

      left = string.bytesize - from
      byte = string.getbyte(from) if left.positive?
      string[1, from] = ""
      string.setbyte(0, byte) if byte
      left
    end

    def too_long(name, line, limit)
      raise UsageError, "#{name}: line #{line} is longer than the limit of #{limit} bytes (--max-line)"
    end

    # pending << buffer, where the memory for a line under a large --max-line
    # may run out: said as such (the block names the line), not as the
    # filter's.
    def hold(pending, buffer)
      pending << buffer
    rescue NoMemoryError
      raise UsageError, "#{yield}: not enough memory to hold a line that long (--max-line)"
    end

    # A progress bar on stderr (ruby-progressbar) for a file read for more
    # than a second or two, when stderr is a terminal; nothing otherwise.
    class Progress
      def initialize(stderr, stdout, io, name)
        @after = Float(ENV.fetch("BLOOMC_PROGRESS_AFTER", "1.5"), exception: false) || 1.5 # seconds
        # A terminal's stderr only, and not when the lines go to it too.
        @shown = stderr&.tty? && !stdout.tty?
        @stderr = stderr
        stat = io.stat
        @total = stat.file? ? stat.size : nil # IO#size is File's alone: stdin may be a file
        @name = name
        @started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        @done = 0
        @bar = nil
      end

      def advance(bytes)
        @done += bytes
        return unless @total && @shown

        @bar ||= start_bar if Process.clock_gettime(Process::CLOCK_MONOTONIC) - @started >= @after
        @bar.progress = [@done, @total].min if @bar
      end

      def finish
        @bar&.finish
        @bar = nil
      end

      # Ends the line of a bar left unfinished (Ctrl-C, an error), so that
      # what follows on the terminal starts on a line of its own.
      def stop
        return unless @bar && !@bar.finished? # a bar at 100% ended its line itself

        @bar.stop
        @stderr.write("\n")
        @bar = nil
      end

      private

      def start_bar
        require "ruby-progressbar"
        ProgressBar.create(title: File.basename(@name), total: @total, output: @stderr,
                           format: "%t |%B| %p%% %e")
      end
    end
    private_constant :Progress
  end
end
