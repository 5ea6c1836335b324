# frozen_string_literal: true

require "bloomc/rack"

begin
  require "puma"
  require "puma/null_io"
  require "puma/server"
rescue LoadError => e
  raise LoadError, "bloomc serve needs the puma gem: `gem install puma` (or add it to your Gemfile) [#{e.message}]"
end

module Bloomc
  # `bloomc serve DIR`: the Rack app (Bloomc::RackApp) over a directory, with
  # its front page, on Puma. Every request is logged as one line.
  class Serve
    # Puma's thread pool: the app's work is short and mostly under the GVL,
    # so a few threads keep the socket busy while one waits on the disk.
    THREADS = 4

    # Writes one line per request: client, time, request line, status,
    # bytes sent and the time taken, as a web server's access log does. A
    # request the app fails is answered 500 here and logged like any other,
    # its exception written to rack.errors.
    class RequestLog
      # Wraps the Rack app +app+, writing each request's line to +out+.
      def initialize(app, out)
        @app = app
        @out = out
      end

      # The app's answer to +env+ (500 when it raises), logged as it is returned.
      def call(env)
        started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
        status, headers, body = begin
          @app.call(env)
        rescue StandardError => e
          failed(env, e)
        end
        log(env, status, headers, started)
        [status, headers, body]
      end

      private

      def failed(env, error)
        # One line: the message's first (error_highlight adds more lines).
        env["rack.errors"]&.puts("bloomc serve: #{env['REQUEST_METHOD']} #{env['PATH_INFO'].to_s.dump}: " \
                                 "#{error.class}: #{error.message.lines.first&.chomp} (#{error.backtrace&.first})")
        message = "internal server error\n"
        [500, { "content-type" => "text/plain; charset=utf-8", "content-length" => message.bytesize.to_s }, [message]]
      end

      def log(env, status, headers, started)
        ms = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) * 1000
        path = "#{env['SCRIPT_NAME']}#{env['PATH_INFO']}"
        path += "?#{env['QUERY_STRING']}" unless env["QUERY_STRING"].to_s.empty?
        length = headers["content-length"] || headers["Content-Length"] || "-"
        line = format(%(%<ip>s - [%<time>s] "%<method>s %<path>s %<version>s" %<status>d %<length>s %<ms>.1fms\n),
                      ip: env["REMOTE_ADDR"] || "-", time: Time.now.utc.strftime("%d/%b/%Y:%H:%M:%S +0000"),
                      method: env["REQUEST_METHOD"], path: path.dump[1...-1], version: env["SERVER_PROTOCOL"] || "HTTP/1.1",
                      status: status, length: length, ms: ms)
        @out.write(line) # one write: lines of concurrent requests do not interleave
      rescue IOError, SystemCallError
        nil # a closed log (stdout piped to a pager that quit) does not fail the request
      end
    end

    # dir:: (String) the directory of saved filters (NAME.bloom)
    # bind:: (String) the address to listen on (ArgumentError when it
    #     does not resolve)
    # port:: (Integer) 0 picks a free port (see #port)
    # log:: (IO) where the request lines go
    # errors:: (IO) rack.errors: why a request failed, a file not served
    def initialize(dir, bind: "127.0.0.1", port: 8080, log: $stdout, errors: $stderr)
      raise ArgumentError, "#{dir}: no such directory" unless File.directory?(dir)

      log.sync = true if log.respond_to?(:sync=) # each line as it happens, also into a pipe
      @rack_app = RackApp.new(dir, front_page: true)
      @app = RequestLog.new(@rack_app, log)
      @server = Puma::Server.new(@app, nil, min_threads: 1, max_threads: THREADS,
                                            log_writer: Puma::LogWriter.new(Puma::NullIO.new, errors), environment: "production")
      begin
        @server.add_tcp_listener(bind, port)
      rescue SocketError => e # a name that does not resolve
        raise ArgumentError, "cannot listen on #{bind}: #{e.message}"
      end
      @bind = bind
    end

    # The Bloomc::RackApp it serves (to publish a filter of the process's).
    attr_reader :rack_app

    # The port it listens on.
    def port
      @server.connected_ports.first
    end

    # Where a browser finds the front page.
    def url
      "http://#{@bind.include?(':') ? "[#{@bind}]" : @bind}:#{port}/"
    end

    # Serves in the background; returns the server's thread.
    def start
      @server.run
    end

    # Stops taking requests and lets the ones under way finish.
    def stop
      @server.stop(true)
    end
  end
end
