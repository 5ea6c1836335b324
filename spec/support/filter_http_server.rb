# frozen_string_literal: true

require "socket"
require "zlib"
require "stringio"

# A small HTTP/1.1 server on loopback for the specs of Bloomc.fetch and
# Bloomc::Remote, stdlib only. Each path has a handler, set per example,
# that gets the request and returns [status, headers, body]; a body may be
# an Enumerator of chunks, sent with no Content-Length until it ends or the
# client goes. A raw handler (#raw) writes the whole answer itself, for the
# answers no server would send. One thread per connection; every connection is closed after
# its response. #down closes the listening socket (connections are refused)
# and #up opens it again on the same port.
class FilterHTTPServer
  Request = Struct.new(:verb, :path, :headers)

  REASONS = { 200 => "OK", 301 => "Moved Permanently", 302 => "Found", 304 => "Not Modified", 307 => "Temporary Redirect",
              404 => "Not Found", 500 => "Internal Server Error", 503 => "Service Unavailable" }.freeze

  attr_reader :port, :requests

  def initialize
    @handlers = {}
    @requests = []
    @lock = Mutex.new
    @threads = []
    @port = nil
    up
  end

  def url(path = "/") = "http://127.0.0.1:#{port}#{path}"

  # The handler of +path+: a block taking the Request.
  def on(path, &handler)
    @lock.synchronize { @handlers[path] = handler }
    self
  end

  # The handler of +path+ that writes to the socket itself: a block taking
  # the socket and the Request, whose writes end when the client goes.
  def raw(path, &writer)
    @lock.synchronize { @handlers[path] = [:raw, writer] }
    self
  end

  # Serves +data+ (a filter's dump) at +path+ as a server of saved filters
  # would: a strong ETag from the content, Last-Modified, 304 to a matching
  # If-None-Match (when etags:) or, without one, an If-Modified-Since not before it, and
  # gzip when asked for and gzip: is set.
  def serve(path, data, etags: true, last_modified: Time.utc(2026, 11, 24, 13), gzip: false, delay: nil)
    etag = %("#{Bloomc::CRC32C.checksum(data).to_s(16)}-#{data.bytesize}")
    date = last_modified&.httpdate
    on(path) do |request|
      sleep(delay) if delay
      headers = { "Content-Type" => "application/vnd.bloomc" }
      headers["ETag"] = etag if etags
      headers["Last-Modified"] = date if date
      # RFC 9110 13.1.3: If-Modified-Since counts only without If-None-Match.
      match = request.headers["if-none-match"]
      since = request.headers["if-modified-since"]
      if match ? etags && match == etag : date && since && Time.httpdate(since) >= last_modified
        next [304, headers, ""]
      end

      if gzip && request.headers["accept-encoding"].to_s.include?("gzip")
        headers["Content-Encoding"] = "gzip"
        next [200, headers, gzipped(data)]
      end
      [200, headers, data]
    end
  end

  def gzipped(data)
    out = StringIO.new(+"".b)
    writer = Zlib::GzipWriter.new(out)
    writer.write(data)
    writer.finish
    out.string
  end

  def requests_to(path) = @lock.synchronize { @requests.select { |r| r.path == path } }

  def up
    @server = @port ? TCPServer.new("127.0.0.1", @port) : TCPServer.new("127.0.0.1", 0)
    @port = @server.addr[1]
    server = @server
    @acceptor = Thread.new { accept_loop(server) }
    self
  end

  def down
    @server&.close
    @acceptor&.join(2)
    @server = nil
    self
  end

  def stop
    down
    @lock.synchronize { @threads.dup }.each { |t| t.kill.join(2) }
  end

  private

  def accept_loop(server)
    loop do
      client = server.accept
      thread = Thread.new { serve_client(client) }
      @lock.synchronize { @threads << thread }
    end
  rescue IOError, SystemCallError
    nil # closed by #down
  end

  def serve_client(client)
    request = read_request(client) or return
    handler = @lock.synchronize do
      @requests << request
      @handlers[request.path]
    end
    return handler[1].call(client, request) if handler.is_a?(Array)

    status, headers, body = handler ? handler.call(request) : [404, {}, "not found"]
    write_response(client, status, headers, body, request.verb == "HEAD")
  rescue IOError, SystemCallError
    nil # the client went
  ensure
    client.close unless client.closed?
  end

  def read_request(client)
    line = client.gets("\r\n", 8192) or return
    method, path = line.split
    headers = {}
    while (header = client.gets("\r\n", 8192)) && header != "\r\n"
      name, value = header.split(":", 2)
      headers[name.strip.downcase] = value.to_s.strip
    end
    Request.new(method, path, headers)
  end

  def write_response(client, status, headers, body, head)
    out = "HTTP/1.1 #{status} #{REASONS.fetch(status, 'Status')}\r\nConnection: close\r\n"
    headers.each { |name, value| out << "#{name}: #{value}\r\n" }
    streamed = body.is_a?(Enumerator)
    out << "Content-Length: #{body.bytesize}\r\n" unless streamed || status == 304 || headers.key?("Content-Length")
    client.write(out << "\r\n")
    return if head || status == 304

    streamed ? body.each { |chunk| client.write(chunk) } : client.write(body)
  end
end
